package carriers

import (
	"sort"
	"strings"
)

// Incoterms shipd takes: who pays the destination's duties and taxes.
const (
	// IncotermDAP (delivered at place): the recipient pays, the default.
	IncotermDAP = "DAP"
	// IncotermDDP (delivered duty paid): the shipper pays, with the label.
	IncotermDDP = "DDP"
)

// EEIThresholdCents is the value of goods under one Schedule B number above
// which a US export needs Electronic Export Information filed in AES and
// its ITN on the paperwork (15 CFR 30.37(a)).
const EEIThresholdCents = 250000

// NoEEI3037a is the exemption legend of a US export that needs no EEI
// because no Schedule B number carries more than $2,500 (15 CFR 30.37(a)).
const NoEEI3037a = "NOEEI 30.37(a)"

// IncotermOrDefault is the declaration's incoterm, DAP when none was given.
func (c *Customs) IncotermOrDefault() string {
	if c == nil || c.Incoterm == "" {
		return IncotermDAP
	}
	return strings.ToUpper(c.Incoterm)
}

// DDP reports whether the shipper pays duties and taxes.
func (c *Customs) DDP() bool { return c != nil && c.IncotermOrDefault() == IncotermDDP }

// TotalValueCents is the declared value of every line.
func (c *Customs) TotalValueCents() int64 {
	var total int64
	if c == nil {
		return 0
	}
	for _, it := range c.Items {
		total += it.ValueCents
	}
	return total
}

// TotalWeightOz is the declared weight of every line.
func (c *Customs) TotalWeightOz() float64 {
	var total float64
	if c == nil {
		return 0
	}
	for _, it := range c.Items {
		total += it.WeightOz
	}
	return total
}

// EEL is the export filing the paperwork carries for a shipment from
// origin: the one declared, else NOEEI 30.37(a) for a US export (the input
// rules refuse a US export that needs an ITN and has none), else "".
func (c *Customs) EEL(origin string) string {
	if c == nil {
		return ""
	}
	if c.EELPFC != "" {
		return c.EELPFC
	}
	if NormalizeCountry(origin) == "US" {
		return NoEEI3037a
	}
	return ""
}

// HSDigits is an HS tariff number's digits, the dots and spaces between
// them dropped, and whether it is one: 6 to 10 digits.
func HSDigits(hs string) (string, bool) {
	var b strings.Builder
	for _, r := range hs {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '.' || r == ' ':
		default:
			return "", false
		}
	}
	d := b.String()
	return d, len(d) >= 6 && len(d) <= 10
}

// ScheduleBValue is one Schedule B number's share of a declaration.
type ScheduleBValue struct {
	// Number is the HS number's digits; "" for the lines without one,
	// counted together (a customs officer cannot tell them apart).
	Number     string
	ValueCents int64
}

// ScheduleBValues sums the declaration's values per Schedule B number, the
// largest first (ties by number).
func (c *Customs) ScheduleBValues() []ScheduleBValue {
	if c == nil {
		return nil
	}
	sums := map[string]int64{}
	for _, it := range c.Items {
		d, _ := HSDigits(it.HSTariffNumber)
		sums[d] += it.ValueCents
	}
	out := make([]ScheduleBValue, 0, len(sums))
	for n, v := range sums {
		out = append(out, ScheduleBValue{Number: n, ValueCents: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ValueCents != out[j].ValueCents {
			return out[i].ValueCents > out[j].ValueCents
		}
		return out[i].Number < out[j].Number
	})
	return out
}

// ITN is the AES internal transaction number in an "AES X..." proof of
// filing citation, and whether EELPFC is one.
func ITN(eelPFC string) (string, bool) {
	f := strings.Fields(strings.ToUpper(eelPFC))
	if len(f) != 2 || f[0] != "AES" || !validITN(f[1]) {
		return "", false
	}
	return f[1], true
}

// validITN: AES ITNs are an X and 14 digits (X20261127123456).
func validITN(s string) bool {
	if len(s) != 15 || s[0] != 'X' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
