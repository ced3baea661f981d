package shipping

import (
	"context"
	"errors"
	"fmt"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/store"
)

// ExchangeRates converts a carrier's prices into an account's currency
// (*exchangerates.File: the operator's ECB reference rates, nil when none
// are configured, which converts a currency only to itself).
type ExchangeRates interface {
	Rate(from, to string) (exchangerates.Rate, error)
}

// CodeNoExchangeRate is a CarrierFailure's code when the carrier priced in
// a currency the operator's exchange rates cannot convert into the
// account's: its rates are left out of the quote.
const CodeNoExchangeRate = "no_exchange_rate"

// ErrCurrencyChanged: the account's currency changed between the quote
// and the purchase (409 currency_changed): quote again.
var ErrCurrencyChanged = errors.New("the account's currency changed while this label was being priced; quote again")

// legacyCurrency is a carrier rate's currency when it names none.
const legacyCurrency = "USD"

// accountCurrency is the currency every amount of the account is in.
func (s *Service) accountCurrency(ctx context.Context, accountID string) (string, error) {
	a, err := s.store.Account(ctx, accountID)
	if err != nil {
		return "", err
	}
	return currencyOf(a), nil
}

// currencyOf is the currency an account is billed in.
func currencyOf(a store.Account) string {
	if a.Currency == "" {
		return legacyCurrency
	}
	return a.Currency
}

// inCurrency is r's price in the account's currency: r itself when the
// carrier priced in it, else converted at the operator's rate (its own
// figure and the rate kept on the Rate); an error wrapping
// exchangerates.ErrNoRate when the operator's rates cannot convert it.
func (s *Service) inCurrency(r carriers.Rate, currency string) (Rate, error) {
	from := r.Currency
	if from == "" {
		from = legacyCurrency
	}
	fee := s.platformFee(currency)
	out := Rate{
		Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory,
		CarrierRateCents: r.CarrierRateCents, Currency: currency, EstimatedDays: r.EstimatedDays,
		EstimatedDeliveryDate: carriers.Date(r.EstimatedDeliveryDate), Guaranteed: r.Guaranteed,
		DutiesCents: r.DutiesCents,
	}
	if from != currency {
		var rate exchangerates.Rate
		var err error
		if s.cfg.ExchangeRates == nil {
			err = fmt.Errorf("%s to %s: %w (no exchange rates are configured: --exchange-rates)", from, currency, exchangerates.ErrNoRate)
		} else {
			rate, err = s.cfg.ExchangeRates.Rate(from, currency)
		}
		if err != nil {
			return Rate{}, err
		}
		out.CarrierCurrency, out.CarrierAmountCents, out.ExchangeRate = from, r.CarrierRateCents, rate.String()
		out.CarrierRateCents = rate.Convert(r.CarrierRateCents)
		out.DutiesCents = rate.Convert(r.DutiesCents)
	}
	out.PlatformFeeCents = fee
	out.CustomerPriceCents = out.CarrierRateCents + fee
	return out, nil
}

// noExchangeRate is the failure of a carrier whose rates could not be
// converted into the account's currency.
func noExchangeRate(carrier, from, to string) CarrierFailure {
	return CarrierFailure{Carrier: carrier, Kind: FailureRejected, Code: CodeNoExchangeRate,
		Message: fmt.Sprintf("%s prices in %s and this account is billed in %s, and shipd has no exchange rate from %s to %s (the operator sets the ECB's reference rates with serve --exchange-rates)", carrier, from, to, from, to)}
}

// checkCurrency, in the transaction that inserted row, refuses it when the
// account's currency is no longer the one it was priced in: a change of
// currency (accounts.SetCurrency) committed meanwhile. Inserting first and
// reading after is what makes the pair safe: the change refuses an account
// with a shipment, and one of the two transactions sees the other.
func checkCurrency(ctx context.Context, tx *store.Tx, row store.Shipment) error {
	c, err := tx.AccountCurrency(ctx, row.AccountID)
	if err != nil {
		return err
	}
	if c != row.Currency {
		return fmt.Errorf("priced in %s, the account is now in %s: %w", row.Currency, c, ErrCurrencyChanged)
	}
	return nil
}

// CarrierFigure is what the carrier itself asked for row's label: its
// own amount and currency when the price was converted.
func CarrierFigure(row store.Shipment) (int64, string) {
	if row.CarrierCurrency != nil && row.CarrierAmountCents != nil {
		return *row.CarrierAmountCents, *row.CarrierCurrency
	}
	return row.CarrierRateCents, row.Currency
}

// carrierCurrency, carrierAmount and exchangeRate are r's conversion as a
// shipment row keeps it: nil when the carrier priced in the account's
// currency.
func (r Rate) carrierCurrency() *string {
	if r.CarrierCurrency == "" {
		return nil
	}
	return &r.CarrierCurrency
}

func (r Rate) carrierAmount() *int64 {
	if r.CarrierCurrency == "" {
		return nil
	}
	return &r.CarrierAmountCents
}

func (r Rate) exchangeRate() *string {
	if r.CarrierCurrency == "" {
		return nil
	}
	return &r.ExchangeRate
}
