package ups

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// poundsFromOunces converts a parcel weight to the LBS value UPS expects.
// UPS accepts pounds with one decimal place; the weight is rounded up to the
// next tenth of a pound so that a quote is never made on less than the real
// weight (UPS bills whole pounds, rounded up, in any case). 24 oz is "1.5",
// 1 oz is "0.1", 32 oz is "2".
func poundsFromOunces(oz float64) string {
	// Shave float noise so that an exact tenth (e.g. 1.6 oz * 10 / 16) is
	// not bumped to the next tenth.
	tenths := int64(math.Ceil(oz*10/16 - 1e-9))
	if tenths < 1 {
		tenths = 1
	}
	if tenths%10 == 0 {
		return strconv.FormatInt(tenths/10, 10)
	}
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}

// inches formats a parcel dimension in whole inches, rounded to the nearest
// inch as UPS does when it computes dimensional weight ("round each
// measurement to the nearest whole number"). The Shipping API allows at most
// 3 characters (0 to 108 IN), so whole inches also keep rate and ship
// requests identical.
func inches(in float64) string {
	n := int64(math.Floor(in + 0.5))
	if n < 1 {
		n = 1
	}
	return strconv.FormatInt(n, 10)
}

var errAmount = errors.New("not a decimal amount")

// parseCents reads a UPS MonetaryValue ("12.34", "7", "0.50") as integer
// cents without going through float64, so no amount is ever off by a cent.
// More than two decimals are accepted only when the extra digits are zero.
func parseCents(s string) (int64, error) {
	s = strings.TrimSpace(s)
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || len(intPart) > 15 || !isDigits(intPart) || (frac != "" && !isDigits(frac)) {
		return 0, fmt.Errorf("%q: %w", s, errAmount)
	}
	if len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, fmt.Errorf("%q has fractions of a cent: %w", s, errAmount)
		}
		frac = frac[:2]
	}
	for len(frac) < 2 {
		frac += "0"
	}
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, errAmount)
	}
	cents, _ := strconv.ParseInt(frac, 10, 64)
	return whole*100 + cents, nil
}

// wholeDollarsUp formats cents as whole dollars rounded up, at least 1: the
// Rating API's InvoiceLineTotal takes "1 to 99999999".
func wholeDollarsUp(cents int64) string {
	d := (cents + 99) / 100
	if d < 1 {
		d = 1
	}
	return strconv.FormatInt(d, 10)
}

// unitValue is the value of one unit of a customs line, in dollars with up
// to 6 decimals (the Shipping API's Product/Unit/Value format), from the
// line's total value. Integer arithmetic keeps it exact to the micro-dollar.
func unitValue(totalCents int64, quantity int) string {
	if quantity < 1 {
		quantity = 1
	}
	micro := (totalCents*10000 + int64(quantity)/2) / int64(quantity)
	s := fmt.Sprintf("%d.%06d", micro/1_000_000, micro%1_000_000)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// digitsOnly keeps the digits of a phone number: UPS accepts 0-9 only. A US
// number written with its country code (+1 555 ...) loses the leading 1,
// since UPS wants the 10-digit national layout for US numbers.
func digitsOnly(phoneNumber, country string) string {
	var b strings.Builder
	for _, r := range phoneNumber {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	d := b.String()
	if country == "US" && len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	return d
}

// truncate cuts s to at most n runes; used only for fields shipd fills
// itself (descriptions, references), never for customer addresses, which
// UPS should reject rather than have shortened silently.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// chunks splits s into at most max pieces of at most n runes each (the
// Shipping API's Product/Description: up to 3 lines of 35).
func chunks(s string, n, max int) []string {
	r := []rune(strings.TrimSpace(s))
	var out []string
	for len(r) > 0 && len(out) < max {
		k := min(n, len(r))
		out = append(out, strings.TrimSpace(string(r[:k])))
		r = r[k:]
	}
	return out
}
