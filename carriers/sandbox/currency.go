package sandbox

import (
	"math/big"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// originCurrencies are the currencies of the countries a carrier pricing
// in its origin's currency (DHL Express) quotes in, and the sandbox's fixed
// rate of each to the euro: deterministic prices to test against, not
// today's market (VARIANTS.md, "The sandbox's European carriers"). A
// country not listed is quoted in euros.
var originCurrencies = map[string]struct {
	code    string
	perEuro string
}{
	"US": {"USD", "1.08"}, "PR": {"USD", "1.08"}, "CA": {"CAD", "1.5"}, "MX": {"MXN", "18"},
	"GB": {"GBP", "0.86"}, "CH": {"CHF", "0.95"}, "LI": {"CHF", "0.95"}, "NO": {"NOK", "11.6"},
	"SE": {"SEK", "11.4"}, "DK": {"DKK", "7.46"}, "PL": {"PLN", "4.3"}, "CZ": {"CZK", "25"},
	"HU": {"HUF", "390"}, "RO": {"RON", "4.97"}, "BG": {"BGN", "1.96"}, "IS": {"ISK", "150"},
	"JP": {"JPY", "160"}, "AU": {"AUD", "1.65"}, "NZ": {"NZD", "1.8"}, "CN": {"CNY", "7.8"},
	"HK": {"HKD", "8.4"}, "SG": {"SGD", "1.45"}, "KR": {"KRW", "1450"}, "IN": {"INR", "90"},
	"BR": {"BRL", "5.9"}, "ZA": {"ZAR", "20"}, "TR": {"TRY", "36"},
}

// priced turns a price in the tariff's currency into the currency it is
// quoted in: the tariff's, or, for a tariff priced in its origin's
// currency, the shipper's country's.
func (c *carrier) priced(origin carriers.Address, cents int64) (currency string, _ int64) {
	base := c.t.Currency
	if base == "" {
		base = "USD"
	}
	if !c.t.PricesInOriginCurrency {
		return base, cents
	}
	to, ok := originCurrencies[carriers.NormalizeCountry(origin.Country)]
	if !ok || to.code == base {
		return base, cents
	}
	perEuro, _ := new(big.Rat).SetString(to.perEuro)
	rate := perEuro
	if from, ok := euroRate(base); ok {
		rate = new(big.Rat).Quo(perEuro, from)
	}
	return to.code, exchangerates.Convert(cents, base, to.code, rate)
}

// euroRate is the sandbox's units of code per euro (1 for the euro).
func euroRate(code string) (*big.Rat, bool) {
	if code == exchangerates.EUR {
		return big.NewRat(1, 1), true
	}
	for _, c := range originCurrencies {
		if c.code == code {
			r, _ := new(big.Rat).SetString(c.perEuro)
			return r, true
		}
	}
	return nil, false
}
