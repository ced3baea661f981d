package ui

import "testing"

// An amount is shown with its currency's own decimals: a yen has none, a
// dinar three.
func TestMoney(t *testing.T) {
	for _, c := range []struct {
		cents    int64
		currency string
		want     string
	}{
		{1234, "USD", "$12.34"},
		{5, "", "$0.05"},
		{-837, "EUR", "−8.37 EUR"},
		{1234, "jpy", "1234 JPY"},
		{1234, "KWD", "1.234 KWD"},
		{7, "GBP", "0.07 GBP"},
	} {
		if got := money(c.cents, c.currency); got != c.want {
			t.Errorf("money(%d, %q) = %q, want %q", c.cents, c.currency, got, c.want)
		}
	}
}
