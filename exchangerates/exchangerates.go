// Package exchangerates converts amounts between currencies with the
// European Central Bank's euro foreign exchange reference rates, read from
// the file the ECB publishes (eurofxref-daily.xml), which an operator
// fetches as often as they like and shipd re-reads when it changes.
//
// The ECB gives each rate as units of a currency per euro. A rate between
// two other currencies is the cross through the euro; amounts are in minor
// units (cents) and a converted amount is rounded half away from zero to
// the minor unit of its currency (ISO 4217). Rates are exact decimals
// (math/big), so no float comes between the file and the amount.
package exchangerates

import (
	"golang.org/x/text/currency"

	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"time"
)

// EUR is the base of the ECB's rates.
const EUR = "EUR"

// ErrNoRate means the table has no rate for a currency of the pair.
var ErrNoRate = errors.New("no exchange rate for this pair of currencies")

// ErrMalformed means a rates file is not the ECB's document.
var ErrMalformed = errors.New("not the ECB's euro foreign exchange reference rates")

// Table is one day's reference rates.
type Table struct {
	// Date is the day the ECB set the rates (its Cube time).
	Date time.Time
	// perEUR are units of each currency per euro.
	perEUR map[string]*big.Rat
}

// maxRates bounds the currencies one file may name: the ECB publishes about
// thirty.
const maxRates = 200

// maxFileBytes bounds a rates file: the ECB's is 1.5 KiB.
const maxFileBytes = 1 << 20

// Parse reads the ECB's eurofxref-daily.xml (or any document of that form:
// an Envelope of Cube elements, the day's with a time and its Cubes with a
// currency and a rate).
func Parse(r io.Reader) (*Table, error) {
	var doc struct {
		XMLName xml.Name `xml:"Envelope"`
		Days    []struct {
			Time  string `xml:"time,attr"`
			Rates []struct {
				Currency string `xml:"currency,attr"`
				Rate     string `xml:"rate,attr"`
			} `xml:"Cube"`
		} `xml:"Cube>Cube"`
	}
	dec := xml.NewDecoder(io.LimitReader(r, maxFileBytes))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(doc.Days) == 0 {
		return nil, fmt.Errorf("%w: no day of rates (Cube time=…)", ErrMalformed)
	}
	// eurofxref-daily.xml has one day; the 90-day history has the newest first.
	day := doc.Days[0]
	date, err := time.Parse(time.DateOnly, strings.TrimSpace(day.Time))
	if err != nil {
		return nil, fmt.Errorf("%w: the day %q is not a date as YYYY-MM-DD", ErrMalformed, day.Time)
	}
	if len(day.Rates) == 0 || len(day.Rates) > maxRates {
		return nil, fmt.Errorf("%w: %d rates on %s", ErrMalformed, len(day.Rates), day.Time)
	}
	t := &Table{Date: date, perEUR: map[string]*big.Rat{EUR: big.NewRat(1, 1)}}
	for _, rate := range day.Rates {
		code := strings.TrimSpace(rate.Currency)
		if !IsCode(code) {
			return nil, fmt.Errorf("%w: currency %q is not an ISO 4217 code", ErrMalformed, code)
		}
		v, ok := decimal(strings.TrimSpace(rate.Rate))
		if !ok || v.Sign() <= 0 {
			return nil, fmt.Errorf("%w: the rate of %s, %q, is not a positive decimal", ErrMalformed, code, rate.Rate)
		}
		if code == EUR {
			continue
		}
		t.perEUR[code] = v
	}
	return t, nil
}

// decimal reads a plain decimal ("1.0512", "161.23"): no sign, no
// exponent, at most 20 significant characters, so that no rate can make
// big.Rat arithmetic expensive.
func decimal(s string) (*big.Rat, bool) {
	if s == "" || len(s) > 20 || strings.Count(s, ".") > 1 || strings.Trim(s, "0123456789.") != "" || s == "." {
		return nil, false
	}
	v, ok := new(big.Rat).SetString(s)
	return v, ok
}

// IsCode reports whether code has the form of an ISO 4217 code: three
// upper-case letters.
func IsCode(code string) bool {
	if len(code) != 3 {
		return false
	}
	for _, r := range code {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// IsCurrency reports whether code is a currency of ISO 4217 as the
// Unicode CLDR data of golang.org/x/text knows it (an account is billed in
// one): three upper-case letters naming a currency, not XXX (no currency)
// nor XTS (reserved for tests).
func IsCurrency(code string) bool {
	if !IsCode(code) || code == "XXX" || code == "XTS" {
		return false
	}
	_, err := currency.ParseISO(code)
	return err == nil
}

// Currencies lists the table's currencies, EUR among them, sorted.
func (t *Table) Currencies() []string {
	out := make([]string, 0, len(t.perEUR))
	for c := range t.perEUR {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Rate is how many units of to one unit of from is worth: the cross
// through the euro. ErrNoRate when the table lacks either currency.
func (t *Table) Rate(from, to string) (*big.Rat, error) {
	if from == to {
		return big.NewRat(1, 1), nil
	}
	if t == nil {
		return nil, fmt.Errorf("%s to %s: %w", from, to, ErrNoRate)
	}
	f, okF := t.perEUR[from]
	g, okT := t.perEUR[to]
	if !okF || !okT {
		return nil, fmt.Errorf("%s to %s: %w", from, to, ErrNoRate)
	}
	return new(big.Rat).Quo(g, f), nil
}

// Convert is amount minor units of from in minor units of to, at rate
// (units of to per unit of from), rounded half away from zero.
func Convert(amount int64, from, to string, rate *big.Rat) int64 {
	// amount / 10^minor(from) * rate * 10^minor(to)
	v := new(big.Rat).Mul(big.NewRat(amount, 1), rate)
	v.Mul(v, new(big.Rat).SetFrac(pow10(MinorUnits(to)), pow10(MinorUnits(from))))
	return roundHalfAway(v)
}

// roundHalfAway rounds v to an integer, halves away from zero.
func roundHalfAway(v *big.Rat) int64 {
	num, den := new(big.Int).Set(v.Num()), v.Denom()
	neg := num.Sign() < 0
	num.Abs(num)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Mul(r, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64()
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// MinorUnits is the number of decimals of a currency's minor unit (ISO
// 4217): 2 but for the currencies below.
func MinorUnits(code string) int {
	switch code {
	case "JPY", "KRW", "ISK", "CLP", "VND", "XOF", "XAF", "PYG", "UGX":
		return 0
	case "BHD", "KWD", "OMR", "JOD", "TND", "LYD", "IQD":
		return 3
	}
	return 2
}

// Format writes a rate as a decimal with up to 10 decimals, trailing zeros
// removed ("1.0512", "0.951294").
func Format(rate *big.Rat) string {
	s := rate.FloatString(10)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Rate is a rate of a pair on a day: Value units of To per unit of From.
type Rate struct {
	From, To string
	Value    *big.Rat
	// Date is the day of the ECB's rates; zero for a currency to itself.
	Date time.Time
}

// Convert is amount minor units of r.From in minor units of r.To, rounded
// half away from zero.
func (r Rate) Convert(amount int64) int64 { return Convert(amount, r.From, r.To, r.Value) }

// String is the rate as a decimal (Format).
func (r Rate) String() string { return Format(r.Value) }

func one() *big.Rat { return big.NewRat(1, 1) }
