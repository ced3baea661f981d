package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/exchangerates"
)

// platformFees is serve's --platform-fee: a fee for every currency (N), or
// for one (CUR=N), in the currency's minor unit.
type platformFees struct {
	all   *int64
	per   map[string]int64
	given bool // the flag was given: the environment is not read
}

// maxPlatformFee bounds a fee (a label's price is an int64 of minor units;
// a fee of a million units is a typo, not a price).
const maxPlatformFee = 1_000_000

func (f *platformFees) set(v string) error {
	f.given = true
	currency, amount, per := strings.Cut(v, "=")
	if !per {
		currency, amount = "", v
	}
	n, err := strconv.ParseInt(strings.TrimSpace(amount), 10, 64)
	if err != nil || n < 0 || n > maxPlatformFee {
		return fmt.Errorf("%q: the fee is a whole number of minor units from 0 to %d (8 is 0.08 USD or EUR), as N or CUR=N", v, maxPlatformFee)
	}
	if !per {
		f.all = &n
		return nil
	}
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if !exchangerates.IsCurrency(currency) {
		return fmt.Errorf("%q: %q is not an ISO 4217 currency code such as EUR", v, currency)
	}
	if f.per == nil {
		f.per = map[string]int64{}
	}
	f.per[currency] = n
	return nil
}
