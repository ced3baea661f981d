package fedex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// amount is a money amount as FedEx sends it: a JSON number (the documented
// type, e.g. 445.54) or, defensively, a JSON string holding one. The literal
// is kept so that cents are parsed from the decimal text, never through a
// float64 (0.1+0.2 style errors would misquote by a cent).
type amount string

// UnmarshalJSON keeps the literal of a number or the content of a string.
func (a *amount) UnmarshalJSON(b []byte) error {
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
		*a = amount(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("amount is neither a number nor a string")
	}
	*a = amount(n)
	return nil
}

// moneyAmount is an amount FedEx writes either as a number (what its
// documented rate answers show for totals: "totalDutiesAndTaxes": 0) or as
// the schema's Money object ({"amount": 12.45, "currency": "USD"}).
type moneyAmount amount

func (m *moneyAmount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var o struct {
			Amount amount `json:"amount"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		*m = moneyAmount(o.Amount)
		return nil
	}
	return (*amount)(m).UnmarshalJSON(b)
}

// maxAmountDigits keeps cents within int64 with room to spare.
const maxAmountDigits = 15

// cents parses a plain decimal ("12", "12.3", "12.345") into integer cents.
// Digits past the cent are rounded half up, in decimal, which is how
// FedEx's two-decimal amounts would round if one ever came with more.
// Negative amounts, exponents and anything else are errors.
func (a amount) cents() (int64, error) {
	s := string(a)
	if s == "" {
		return 0, errors.New("amount is missing")
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || !isDigits(whole) || !isDigits(frac) {
		return 0, errors.New("amount " + strconv.Quote(s) + " is not a plain decimal number")
	}
	if len(whole) > maxAmountDigits {
		return 0, errors.New("amount " + strconv.Quote(s) + " is too large")
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, errors.New("amount " + strconv.Quote(s) + " is not a number")
	}
	n *= 100
	for i := 0; i < 2; i++ {
		d := int64(0)
		if i < len(frac) {
			d = int64(frac[i] - '0')
		}
		if i == 0 {
			n += 10 * d
		} else {
			n += d
		}
	}
	if len(frac) > 2 && frac[2] >= '5' {
		n++
	}
	return n, nil
}

// isDigits reports whether s is made of ASCII digits only ("" is).
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// formatCents writes cents as a JSON number literal with two decimals, for
// amounts shipd sends (customs values).
func formatCents(c int64) json.Number {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return json.Number(sign + strconv.FormatInt(c/100, 10) + "." + twoDigits(c%100))
}

func twoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
