package shipping

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// Pricing is what a caller's labels are priced with: the carriers it quotes
// with (with their carrier accounts) and its account's currency. A quote
// reads it for itself; a batch reads it once for all its labels.
type Pricing struct {
	caller     accounts.Caller
	carriers   []carriers.Carrier
	accountIDs []string
	currency   string
}

// PricingFor reads c's Pricing.
func (s *Service) PricingFor(ctx context.Context, c accounts.Caller) (*Pricing, error) {
	return s.pricing(ctx, c, "")
}

// pricing reads c's Pricing; currency is the account's when the caller has
// read it already ("": read it here).
func (s *Service) pricing(ctx context.Context, c accounts.Caller, currency string) (*Pricing, error) {
	cs, accountIDs, err := s.quoteCarriers(ctx, c)
	if err != nil {
		return nil, err
	}
	if currency == "" {
		if currency, err = s.accountCurrency(ctx, c.AccountID); err != nil {
			return nil, err
		}
	}
	return &Pricing{caller: c, carriers: cs, accountIDs: accountIDs, currency: currency}, nil
}

// PriceLabel is what Create does before its transaction, for a label of
// a batch (shipping/batches): it checks in, quotes it with p and picks the
// rate sel asks for, into row (without an id). The label's own problems (its
// input, no rate, no matching service, refused by the carriers) are returned
// as issues; anything else (carriers unavailable or failing, the request
// cancelled) as the error.
func (s *Service) PriceLabel(ctx context.Context, p *Pricing, in Input, sel Selection, format carriers.LabelFormat, row *store.Shipment) ([]Issue, error) {
	c := p.caller
	err := in.onePieceForm()
	if err == nil {
		// The schema cannot require one of parcel and parcels; a batch item
		// has no returnOf to supply it.
		err = in.complete()
	}
	input := in.Normalized()
	if err == nil {
		err = input.check(c.Mode)
	}
	if err == nil {
		err = s.checkDeliverBy(sel.DeliverBy)
	}
	var quote Quote
	if err == nil {
		quote, err = s.ratesFrom(ctx, input, false, p) // batch items are outbound labels
	}
	if err == nil {
		quote, err = s.offering(quote, sel, format, carriers.Label4x6)
	}
	var rate Rate
	if err == nil {
		rate, err = quote.pick(sel)
	}
	var (
		ie   *InputError
		none *NoMatchingServiceError
		ce   *CarriersError
	)
	switch {
	case err == nil:
	case errors.As(err, &ie):
		return ie.Issues, nil
	case errors.Is(err, ErrNoRates), errors.As(err, &none), errors.As(err, &ce) && errors.Is(err, ErrCarrierRejected):
		return []Issue{{Message: err.Error()}}, nil
	default:
		return nil, err
	}
	request, err := encodeInput(input)
	if err != nil {
		return nil, err
	}
	*row = store.Shipment{AccountID: c.AccountID, Mode: string(c.Mode), Status: string(Paying),
		Carrier: rate.Carrier, Service: rate.Service, ServiceCategory: rate.ServiceCategory,
		CarrierRateCents: rate.CarrierRateCents, PlatformFeeCents: rate.PlatformFeeCents, CustomerPriceCents: rate.CustomerPriceCents,
		Currency: rate.Currency, EstimatedDays: rate.EstimatedDays, Request: request, Source: "api",
		EstimatedDeliveryDate: rate.deliveryDate(), Guaranteed: &rate.Guaranteed,
		CarrierAccountID: optional(rate.CarrierAccountID),
		CarrierCurrency:  rate.carrierCurrency(), CarrierAmountCents: rate.carrierAmount(), ExchangeRate: rate.exchangeRate()}
	return nil, nil
}

// AdmitPurchases refuses n new purchases that would take the backlog past
// its bound: a batch is admitted whole or not at all.
func (s *Service) AdmitPurchases(ctx context.Context, n int) error {
	if s.cfg.MaxPurchaseBacklog < 0 {
		return nil
	}
	waiting, err := s.backlog.count(ctx)
	if err != nil {
		return err
	}
	if waiting+n > s.cfg.MaxPurchaseBacklog {
		return ErrPurchaseQueueFull
	}
	return nil
}

// ReservePurchase reserves, in tx, the balance row (inserted in tx) applies
// (ErrCurrencyChanged when the account's currency is no longer row's): what
// Create does inside its transaction, for a label of a batch, whose jobs go
// in at once (PurchaseJobs).
func (s *Service) ReservePurchase(ctx context.Context, tx *store.Tx, row store.Shipment, now time.Time) error {
	if err := checkCurrency(ctx, tx, row); err != nil {
		return err
	}
	return s.recordReserve(ctx, tx, row, now)
}

// PurchaseJobs are the jobs that buy a batch's labels ids, in its order
// (jobs.go's purchaseJobs, sized by this instance's purchase workers).
func (s *Service) PurchaseJobs(ids []string) []river.InsertManyParams {
	return purchaseJobs(ids, s.cfg.PurchaseWorkers)
}

// BatchItemFinisher is told of each label of a batch that its purchase
// moved to purchased or failed, in the transaction that moved it
// (shipping/batches completes the batch then).
type BatchItemFinisher interface {
	BatchItemFinished(ctx context.Context, tx *store.Tx, row store.Shipment) error
}

// SetBatchItemFinisher gives the purchase path the batches' hook; until it
// is set, a batch's labels are bought and their batch is never completed.
// Call it before the workers start.
func (s *Service) SetBatchItemFinisher(f BatchItemFinisher) { s.batches = f }

// FinishBatchItem runs the batches' hook for row, an item of a batch.
func (s *Service) FinishBatchItem(ctx context.Context, tx *store.Tx, row store.Shipment) error {
	if row.BatchID == nil || s.batches == nil {
		return nil
	}
	return s.batches.BatchItemFinished(ctx, tx, row)
}
