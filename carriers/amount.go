package carriers

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// Amount is a price as a carrier's JSON sends it: a number (or,
// defensively, a string holding one) kept as its decimal text, so that
// minor units are parsed from the digits, never through a float64 (0.1+0.2
// style errors would misquote by a cent). FedEx and DHL Express answer so.
type Amount string

// UnmarshalJSON keeps the literal of a number or the content of a string;
// null is the empty amount.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*a = ""
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = Amount(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("amount is neither a number nor a string")
	}
	*a = Amount(n)
	return nil
}

// maxAmountDigits keeps minor units within int64 with room to spare.
const maxAmountDigits = 15

// Minor parses a plain decimal ("12", "12.3", "12.345") into minor units of
// a currency with decimals digits after the point, rounding the digits past
// them half up, in decimal. Negative amounts, exponents and anything else
// are errors.
func (a Amount) Minor(decimals int) (int64, error) {
	s := string(a)
	if s == "" {
		return 0, errors.New("amount is missing")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || !asciiDigits(whole) || !asciiDigits(frac) {
		return 0, errors.New("amount " + strconv.Quote(Excerpt(s)) + " is not a plain decimal number")
	}
	if len(whole) > maxAmountDigits {
		return 0, errors.New("amount " + strconv.Quote(Excerpt(s)) + " is too large")
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, errors.New("amount " + strconv.Quote(Excerpt(s)) + " is not a number")
	}
	for i := range decimals {
		d := int64(0)
		if i < len(frac) {
			d = int64(frac[i] - '0')
		}
		n = n*10 + d
	}
	if len(frac) > decimals && frac[decimals] >= '5' {
		n++
	}
	return n, nil
}

// asciiDigits reports whether s is made of ASCII digits only ("" is).
func asciiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
