package shipping

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// Rate is one carrier service's price for a shipment, fee included.
type Rate struct {
	Carrier            string `json:"carrier"`
	Service            string `json:"service"`
	ServiceCategory    string `json:"serviceCategory"`
	CarrierRateCents   int64  `json:"carrierRateCents"`
	PlatformFeeCents   int64  `json:"platformFeeCents"`
	CustomerPriceCents int64  `json:"customerPriceCents"`
	Currency           string `json:"currency"`
	EstimatedDays      int    `json:"estimatedDays"`
	// EstimatedDeliveryDate is the carrier's committed or estimated date
	// (midnight UTC); Guaranteed says whether the carrier guarantees it.
	EstimatedDeliveryDate time.Time `json:"estimatedDeliveryDate"`
	Guaranteed            bool      `json:"guaranteed"`
	// CarrierAccountID is the account's carrier account that quoted the
	// rate and buys it; "" for the operator's carriers and the sandbox.
	CarrierAccountID string `json:"carrierAccountId,omitempty"`
	// DutiesCents is the part of CarrierRateCents that is the
	// destination's duties and taxes (DDP); 0 when none was quoted.
	DutiesCents int64 `json:"dutiesCents,omitempty"`
	// CarrierCurrency, CarrierAmountCents and ExchangeRate are set when
	// the carrier priced in another currency than the account's (Currency):
	// its own figure, and the rate it was converted at (currency.go).
	CarrierCurrency    string `json:"carrierCurrency,omitempty"`
	CarrierAmountCents int64  `json:"carrierAmountCents,omitempty"`
	ExchangeRate       string `json:"exchangeRate,omitempty"`
	// MissingFields are the field paths a purchase at this rate still
	// needs (requirements.go), [] when the shipment can be bought at it.
	MissingFields []string `json:"missingFields"`
}

// ServiceOption names a service one can select.
type ServiceOption struct {
	Carrier, Service, ServiceCategory string
}

// Selection is how the caller picks a rate: carrier and service together
// select that service; ServiceCategory the cheapest in the tier; nothing the
// cheapest overall.
type Selection struct {
	Carrier         *string `json:"carrier,omitempty"`
	Service         *string `json:"service,omitempty"`
	ServiceCategory *string `json:"serviceCategory,omitempty"`
	// DeliverBy, a calendar date (midnight UTC), keeps only the rates that
	// arrive on or before it.
	DeliverBy *time.Time `json:"deliverBy,omitempty"`
	// CarrierAccountID keeps only the rates of that carrier account.
	CarrierAccountID *string `json:"carrierAccountId,omitempty"`
}

// Errors of quoting and selection; the API maps each to its code.
var (
	// ErrNoRates: no carrier offers a rate for the shipment (422 no_rates).
	ErrNoRates = errors.New("no carrier offers a rate for this shipment")
	// ErrCarrierNotConfigured: the mode has no carrier (live mode before any is configured).
	ErrCarrierNotConfigured = errors.New("no carrier is configured for live mode: the operator sets a carrier's credentials (SHIPD_UPS_CLIENT_ID, SHIPD_FEDEX_CLIENT_ID or SHIPD_USPS_CLIENT_ID and the rest, README \"Going live\") and restarts shipd; retrying does not help")
	// ErrCarrierFailed: a carrier failed to answer (502 carrier_error).
	ErrCarrierFailed = errors.New("the carriers failed to answer; retry")
	// ErrCarrierRejected: the carriers refused the shipment as given (422 carrier_rejected).
	ErrCarrierRejected = errors.New("the carriers refused this shipment")
	// ErrCarrierUnavailable: the carriers are rate limited or down (503 carrier_unavailable).
	ErrCarrierUnavailable = errors.New("the carriers are temporarily unavailable; retry after the Retry-After delay")
	// ErrCarrierUnreachable: this server reaches no carrier at all: its host
	// name does not resolve, no route leads there, or its certificate is
	// not trusted here (502 carrier_unreachable, without Retry-After). A
	// retry in 30 seconds meets the same network, so it is not told to.
	ErrCarrierUnreachable = errors.New("the shipd server could not reach the carrier's host: its DNS, network route or TLS trust failed on this server's network (egress), which is not a temporary state of the carrier; retrying does not help until the operator fixes the server's network")
)

// Kinds of CarrierFailure.
const (
	FailureRejected    = "rejected"
	FailureUnavailable = "unavailable"
	FailureFailed      = "failed"
)

// CarrierFailure is one carrier's failure to quote, with its own code and message.
type CarrierFailure struct {
	Carrier string `json:"carrier"`
	Kind    string `json:"kind"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// RetryAfter is the carrier's Retry-After, 0 when it gave none.
	RetryAfter time.Duration `json:"-"`
	// Unreachable: an unavailable carrier that this server cannot reach
	// at all (carriers.Error.Unreachable).
	Unreachable bool `json:"-"`
}

// CarriersError is a quote that no carrier could answer. Kind is
// ErrNoRates (every carrier priced in a currency shipd cannot convert),
// ErrCarrierUnavailable (every carrier rate limited or down),
// ErrCarrierUnreachable (every carrier unreachable from this server),
// ErrCarrierRejected (a carrier refused the shipment, none failed) or
// ErrCarrierFailed; errors.Is sees it.
type CarriersError struct {
	Kind       error
	RetryAfter time.Duration
	Failures   []CarrierFailure
}

func (e *CarriersError) Error() string {
	parts := make([]string, len(e.Failures))
	for i, f := range e.Failures {
		parts[i] = f.Message
	}
	if len(parts) == 0 {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + strings.Join(parts, "; ")
}

func (e *CarriersError) Unwrap() error { return e.Kind }

// Quote is every carrier's rates for a shipment, cheapest first, and the
// carriers that could not answer.
type Quote struct {
	Rates    []Rate
	Failures []CarrierFailure
	// blocked are the rates a purchase cannot buy because the shipment
	// breaks requirements (requirements.go): left out of Rates for a
	// create, offered by a quote (Offered); cheapest first.
	blocked []blockedRate
}

// NoMatchingServiceError: rates exist but none matches the selection (422).
type NoMatchingServiceError struct {
	Selection Selection
	Available []ServiceOption
}

func (e *NoMatchingServiceError) Error() string {
	var parts []string
	if e.Selection.Carrier != nil {
		parts = append(parts, "carrier "+*e.Selection.Carrier)
	}
	if e.Selection.Service != nil {
		parts = append(parts, "service "+*e.Selection.Service)
	}
	if e.Selection.ServiceCategory != nil {
		parts = append(parts, "serviceCategory "+*e.Selection.ServiceCategory)
	}
	if e.Selection.DeliverBy != nil {
		parts = append(parts, "deliverBy "+e.Selection.DeliverBy.Format(time.DateOnly))
	}
	if e.Selection.CarrierAccountID != nil {
		parts = append(parts, "carrierAccountId "+*e.Selection.CarrierAccountID)
	}
	return fmt.Sprintf("no rate matches %s; see availableServices", strings.Join(parts, ", "))
}

// LiveCarriers names the carriers live mode quotes and buys with, none when
// the operator configured none (quotes and creates then answer
// ErrCarrierNotConfigured).
func (s *Service) LiveCarriers() []string {
	cs, err := s.cfg.Carriers.For(false)
	if err != nil {
		return nil
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name()
	}
	return names
}

// Quote returns every carrier's rates for the input, cheapest first, and the
// carriers that failed while others answered; nothing is stored or charged.
func (s *Service) Quote(ctx context.Context, c accounts.Caller, in Input) (Quote, error) {
	return s.QuoteBy(ctx, c, in, nil)
}

// QuoteBy is Quote keeping only the rates that arrive by deliverBy (nil:
// every rate); when none does, a NoMatchingServiceError lists them all.
func (s *Service) QuoteBy(ctx context.Context, c accounts.Caller, in Input, deliverBy *time.Time) (Quote, error) {
	return s.QuoteReturn(ctx, c, in, deliverBy, Return{})
}

// QuoteReturn is QuoteBy for a label that may be a return (r, returns.go):
// a return is priced as Create would buy it, with its carriers' return
// services only.
func (s *Service) QuoteReturn(ctx context.Context, c accounts.Caller, in Input, deliverBy *time.Time, r Return) (Quote, error) {
	in, _, err := s.returnInput(ctx, c, in, r)
	if err != nil {
		return Quote{}, err
	}
	in = in.Normalized()
	if err := in.check(c.Mode); err != nil {
		return Quote{}, err
	}
	if err := s.checkDeliverBy(deliverBy); err != nil {
		return Quote{}, err
	}
	q, err := s.rates(ctx, c, in, r.is())
	// A quote offers the rates a purchase cannot buy yet too, each with
	// its missingFields (requirements.go): a quick quote has no street.
	q = q.Offered()
	if err != nil || deliverBy == nil {
		return q, err
	}
	all := q.Rates
	q.Rates = nil
	for _, r := range all {
		if arrivesBy(r, deliverBy) {
			q.Rates = append(q.Rates, r)
		}
	}
	if len(q.Rates) == 0 {
		return Quote{}, noMatch(all, Selection{DeliverBy: deliverBy})
	}
	return q, nil
}

// checkDeliverBy refuses a deliverBy before the ship date's day: no
// carrier can deliver in the past.
func (s *Service) checkDeliverBy(deliverBy *time.Time) error {
	if deliverBy != nil && deliverBy.Before(carriers.Date(s.now())) {
		return &InputError{Issues: []Issue{{Path: "deliverBy", Message: "is in the past"}}}
	}
	return nil
}

// arrivesBy reports whether the rate arrives on or before deliverBy (nil: any).
func arrivesBy(r Rate, deliverBy *time.Time) bool {
	return deliverBy == nil || !r.EstimatedDeliveryDate.After(carriers.Date(*deliverBy))
}

// DefaultCarrierTimeout bounds each carrier's answer to a quote.
const DefaultCarrierTimeout = 10 * time.Second

// rates asks every carrier of the mode for rates at once, each within its own
// deadline. One carrier failing does not fail the quote while others answer;
// its failure is reported beside the rates. For a return (ret), only the
// services a carrier can sell as return labels are quoted.
func (s *Service) rates(ctx context.Context, c accounts.Caller, in Input, ret bool) (Quote, error) {
	return s.ratesIn(ctx, c, in, ret, "")
}

// ratesIn is rates in currency, the caller's account's, which a caller that
// read the account passes ("": read it here).
func (s *Service) ratesIn(ctx context.Context, c accounts.Caller, in Input, ret bool, currency string) (Quote, error) {
	p, err := s.pricing(ctx, c, currency)
	if err != nil {
		return Quote{}, err
	}
	return s.ratesFrom(ctx, in, ret, p)
}

// ratesFrom asks p's carriers for rates, priced in p's currency.
func (s *Service) ratesFrom(ctx context.Context, in Input, ret bool, p *Pricing) (Quote, error) {
	cs, accountIDs, currency := p.carriers, p.accountIDs, p.currency
	shipment := in.CarrierShipment()
	shipment.ShipDate = carriers.ShipDate(s.now())
	shipment.Return = ret
	cs, accountIDs = s.serving(cs, accountIDs, shipment)
	type answer struct {
		rates []carriers.Rate
		err   error
	}
	answers := make([]answer, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, s.cfg.CarrierTimeout)
			defer cancel()
			rs, err := c.Rates(cctx, shipment)
			if err != nil && cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
				err = &carriers.Error{Carrier: c.Name(), Operation: "rate", Kind: carriers.ErrUnavailable,
					Message: fmt.Sprintf("%s did not answer within %s", c.Name(), s.cfg.CarrierTimeout)}
			}
			answers[i] = answer{rs, err}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Quote{}, err
	}
	var q Quote
	for i, a := range answers {
		if errors.Is(a.err, carriers.ErrCustomsRequired) {
			return Quote{}, errCustomsRequired
		}
		if a.err != nil {
			f := FailureOf(cs[i].Name(), a.err)
			s.log.WarnContext(ctx, "carrier rates failed", slog.String("carrier", f.Carrier), slog.String("kind", f.Kind), slog.String("code", f.Code), slog.String("message", f.Message))
			q.Failures = append(q.Failures, f)
			continue
		}
		unconverted := "" // the currency of a rate of the carrier that could not be converted
		converted := 0
		for _, r := range a.rates {
			if !dutiesQuoted(shipment, r) { // customs.go
				continue
			}
			if ret && !(cs[i].Capabilities().Has(carriers.CapReturns) && cs[i].ReturnService(r.Service)) {
				continue
			}
			if len(shipment.Pieces) > 1 && !(cs[i].Capabilities().Has(carriers.CapMultiPiece) && cs[i].MultiPieceService(r.Service)) {
				// Several boxes: only a service that ships them under one
				// shipment, priced as one (pieces.go).
				continue
			}
			if r.EstimatedDeliveryDate.IsZero() {
				// The carrier gave no date: estimate one, never guaranteed.
				r.EstimatedDeliveryDate = carriers.DeliveryDate(shipment.ShipDate, r.EstimatedDays, s.cfg.Catalog.DeliversSaturday(r.Carrier))
				r.Guaranteed = false
			}
			rate, err := s.inCurrency(r, currency)
			if errors.Is(err, exchangerates.ErrNoRate) {
				unconverted = cmp.Or(r.Currency, legacyCurrency)
				continue
			}
			if err != nil {
				return Quote{}, err
			}
			rate.CarrierAccountID = accountIDs[i]
			q.Rates = append(q.Rates, rate)
			converted++
		}
		if unconverted != "" && converted == 0 {
			q.Failures = append(q.Failures, noExchangeRate(cs[i].Name(), unconverted, currency))
		}
	}
	q = q.withMissingFields(s.cfg.Catalog, shipment)
	if len(q.Rates) == 0 && len(q.blocked) == 0 {
		if err := NoRatesError(q.Failures); err != nil {
			return Quote{}, err
		}
		return Quote{}, ErrNoRates
	}
	sort.SliceStable(q.Rates, func(i, j int) bool { return q.Rates[i].CustomerPriceCents < q.Rates[j].CustomerPriceCents })
	return q, nil
}

// NoRatesError is the error of a quote without rates: nil when no carrier
// failed (they simply offer nothing); ErrNoRates with the failures when
// every carrier's rates are in a currency shipd cannot convert or every
// carrier refused the parcel past its limits; unavailable when every
// failure is transient; rejected when a carrier refused the shipment and
// none failed; failed otherwise.
func NoRatesError(failures []CarrierFailure) error {
	if len(failures) == 0 {
		return nil
	}
	if !slices.ContainsFunc(failures, func(f CarrierFailure) bool { return f.Code != CodeNoExchangeRate && !limitRefusal(f) }) {
		// Every carrier quoted, in currencies shipd cannot convert, or
		// offers no service the parcel fits: no rate, saying why
		// (currency.go, carriers/limits.go).
		return &CarriersError{Failures: failures, Kind: ErrNoRates}
	}
	e := &CarriersError{Failures: failures, Kind: ErrCarrierUnavailable}
	unreachable := true
	for _, f := range failures {
		if limitRefusal(f) {
			// A carrier whose services all refuse the parcel used to
			// answer no rate at all; saying why must not turn a quote
			// another carrier could not answer into a refusal: the
			// others decide, as before.
			continue
		}
		unreachable = unreachable && f.Kind == FailureUnavailable && f.Unreachable
		switch f.Kind {
		case FailureFailed:
			e.Kind = ErrCarrierFailed
		case FailureRejected:
			if e.Kind != ErrCarrierFailed {
				e.Kind = ErrCarrierRejected
			}
		}
		e.RetryAfter = max(e.RetryAfter, f.RetryAfter)
	}
	switch {
	case e.Kind == ErrCarrierUnavailable && unreachable:
		// Only when every failure is: one carrier's own outage among them
		// is a state that passes, and a retry may find it answering.
		e.Kind, e.RetryAfter = ErrCarrierUnreachable, 0
	case e.Kind == ErrCarrierUnavailable && e.RetryAfter <= 0:
		e.RetryAfter = 30 * time.Second
	}
	return e
}

// limitRefusal reports whether f is a carrier's refusal of the parcel past
// its weight or size limits (carriers/limits.go).
func limitRefusal(f CarrierFailure) bool {
	return f.Kind == FailureRejected && carriers.IsLimitCode(f.Code)
}

// FailureOf classifies a carrier's error, keeping its own code and message.
func FailureOf(name string, err error) CarrierFailure {
	f := CarrierFailure{Carrier: name, Kind: FailureFailed, Message: err.Error()}
	var ce *carriers.Error
	if errors.As(err, &ce) {
		f.Code, f.Message, f.RetryAfter, f.Unreachable = ce.Code, ce.Error(), ce.RetryAfter, ce.Unreachable
	}
	switch {
	case errors.Is(err, carriers.ErrUnavailable):
		f.Kind = FailureUnavailable
	case errors.Is(err, carriers.ErrRejected), errors.Is(err, carriers.ErrInvalidShipment):
		f.Kind = FailureRejected
	}
	return f
}

// selectRate applies the spec's order: carrier and service together select
// that exact service; serviceCategory the cheapest in the tier; neither the
// cheapest overall; deliverBy keeps only the rates arriving by then. rates
// are sorted cheapest first.
func selectRate(rates []Rate, sel Selection) (Rate, error) {
	if sel.Service != nil && sel.Carrier == nil {
		return Rate{}, &InputError{Issues: []Issue{{Path: "carrier", Message: "is required with service", Missing: true}}}
	}
	for _, r := range rates {
		if sel.Carrier != nil && !strings.EqualFold(r.Carrier, *sel.Carrier) {
			continue
		}
		if sel.Service != nil && !strings.EqualFold(r.Service, *sel.Service) {
			continue
		}
		if sel.ServiceCategory != nil && r.ServiceCategory != *sel.ServiceCategory {
			continue
		}
		if !arrivesBy(r, sel.DeliverBy) {
			continue
		}
		if sel.CarrierAccountID != nil && r.CarrierAccountID != *sel.CarrierAccountID {
			continue
		}
		return r, nil
	}
	return Rate{}, noMatch(rates, sel)
}

// noMatch is the error of a selection no rate meets, listing every rate.
func noMatch(rates []Rate, sel Selection) *NoMatchingServiceError {
	e := &NoMatchingServiceError{Selection: sel, Available: make([]ServiceOption, len(rates))}
	for i, r := range rates {
		e.Available[i] = ServiceOption{Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory}
	}
	return e
}

// serving keeps the carriers (and their carrier accounts, by index) that
// serve the shipment's shipper: a carrier is not asked for a shipment from
// a country it does not ship from (carriers.Descriptor.Origins).
func (s *Service) serving(cs []carriers.Carrier, accountIDs []string, shipment carriers.Shipment) ([]carriers.Carrier, []string) {
	var keptC []carriers.Carrier
	var keptA []string
	for i, c := range cs {
		if d, ok := s.cfg.Catalog.Lookup(c.Name()); ok && !d.Serves(shipment) {
			continue
		}
		keptC = append(keptC, c)
		if i < len(accountIDs) {
			keptA = append(keptA, accountIDs[i])
		}
	}
	return keptC, keptA
}

// CarrierError is one carrier's failure (outside a quote: a pickup, a
// manifest) as a quote's would be answered: classified, with its code.
func CarrierError(name string, err error) *CarriersError {
	return NoRatesError([]CarrierFailure{FailureOf(name, err)}).(*CarriersError)
}
