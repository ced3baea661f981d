package usps

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// maxCents bounds a parsed amount far above any postage (a million dollars),
// so that a hostile "1e999999" is refused before it costs memory or time.
const maxCents = 100_000_000

// parseCents reads a USD amount as USPS writes it (a JSON number such as
// 7.99, 12, 5.840000000000001) into integer cents, exactly: the decimal text
// is read as a rational number, never as a float. USPS computes totals in
// floating point, so digits beyond the cent are rounding noise and are
// rounded half up.
func parseCents(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("no amount")
	}
	// big.Rat accepts exponents; a huge one would make it build an enormous
	// number, so the exponent is checked first.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, err := strconv.Atoi(s[i+1:])
		if err != nil || exp > 12 || exp < -12 {
			return 0, fmt.Errorf("amount %q is out of range", s)
		}
	}
	if len(s) > 64 {
		return 0, fmt.Errorf("amount %q is too long", s[:64])
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("amount %q is not a number", s)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("amount %q is negative", s)
	}
	r.Mul(r, big.NewRat(100, 1))
	// Round half up: floor(x + 1/2).
	r.Add(r, big.NewRat(1, 2))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() || q.Int64() > maxCents {
		return 0, fmt.Errorf("amount %q is out of range", s)
	}
	return q.Int64(), nil
}

// dollars is an amount in cents that marshals as a JSON number of dollars
// with two decimals (1250 -> 12.50), the way USPS reads customs values.
type dollars int64

func (d dollars) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%d.%02d", d/100, d%100)), nil
}

// poundsFromOunces converts ounces to the pounds USPS weighs in
// (weightUOM "lb"), rounded up to 1/10000 lb so a parcel is never declared
// lighter than it is and the JSON stays short (24 oz -> 1.5).
func poundsFromOunces(oz float64) float64 {
	// The small epsilon keeps float noise such as 1.50000000001 from
	// rounding a whole ten-thousandth up.
	return math.Ceil(oz/16*1e4-1e-6) / 1e4
}
