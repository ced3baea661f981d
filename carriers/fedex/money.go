package fedex

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/shipd-dev/shipd/carriers"
)

// moneyAmount is an amount FedEx writes either as a number (what its
// documented rate answers show for totals: "totalDutiesAndTaxes": 0) or as
// the schema's Money object ({"amount": 12.45, "currency": "USD"}).
type moneyAmount carriers.Amount

func (m *moneyAmount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var o struct {
			Amount carriers.Amount `json:"amount"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		*m = moneyAmount(o.Amount)
		return nil
	}
	return (*carriers.Amount)(m).UnmarshalJSON(b)
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
