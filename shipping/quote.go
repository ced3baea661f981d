package shipping

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
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
}

// Errors of quoting and selection; the API maps each to its code.
var (
	// ErrNoRates: no carrier offers a rate for the shipment (422 no_rates).
	ErrNoRates = errors.New("no carrier offers a rate for this shipment")
	// ErrCarrierNotConfigured: the mode has no carrier (live mode before any is configured).
	ErrCarrierNotConfigured = errors.New("no carrier connection is configured for live mode; ask the operator to configure one (retrying does not help)")
	// ErrCarrierFailed: every carrier failed to answer (502 carrier_error).
	ErrCarrierFailed = errors.New("the carriers failed to answer; retry")
)

// CarrierUnavailableError: every carrier that answered is temporarily
// unavailable (503 carrier_unavailable with Retry-After).
type CarrierUnavailableError struct{ RetryAfter time.Duration }

func (e *CarrierUnavailableError) Error() string {
	return "the carriers are temporarily unavailable; retry after the Retry-After delay"
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
	return fmt.Sprintf("no rate matches %s; see availableServices", strings.Join(parts, ", "))
}

// Quote returns every carrier's rates for the input, cheapest first; nothing
// is stored or charged.
func (s *Service) Quote(ctx context.Context, c accounts.Caller, in Input) ([]Rate, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	return s.rates(ctx, c.Mode, in)
}

// rates asks every carrier of the mode for rates, cheapest first. One carrier
// failing does not fail the quote while others answer; all failing does.
func (s *Service) rates(ctx context.Context, mode accounts.Mode, in Input) ([]Rate, error) {
	cs, err := s.cfg.Carriers.For(mode == accounts.Test)
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, ErrCarrierNotConfigured
	}
	if err != nil {
		return nil, err
	}
	shipment := in.carrierShipment()
	var (
		out                 []Rate
		unavailable, failed int
		retryAfter          time.Duration
	)
	for _, c := range cs {
		rs, err := c.Rates(ctx, shipment)
		var ce *carriers.Error
		switch {
		case errors.Is(err, carriers.ErrCustomsRequired):
			return nil, errCustomsRequired
		case errors.Is(err, carriers.ErrUnavailable):
			unavailable++
			if errors.As(err, &ce) {
				retryAfter = max(retryAfter, ce.RetryAfter)
			}
			s.log.WarnContext(ctx, "carrier unavailable", slog.String("carrier", c.Name()), slog.Any("error", err))
			continue
		case err != nil:
			failed++
			s.log.WarnContext(ctx, "carrier rates failed", slog.String("carrier", c.Name()), slog.Any("error", err))
			continue
		}
		fee := s.platformFee()
		for _, r := range rs {
			out = append(out, Rate{
				Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory,
				CarrierRateCents: r.CarrierRateCents, PlatformFeeCents: fee, CustomerPriceCents: r.CarrierRateCents + fee,
				Currency: r.Currency, EstimatedDays: r.EstimatedDays,
			})
		}
	}
	switch {
	case len(out) > 0:
	case unavailable > 0 && failed == 0:
		if retryAfter <= 0 {
			retryAfter = 30 * time.Second
		}
		return nil, &CarrierUnavailableError{RetryAfter: retryAfter}
	case failed > 0:
		return nil, ErrCarrierFailed
	default:
		return nil, ErrNoRates
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CustomerPriceCents < out[j].CustomerPriceCents })
	return out, nil
}

// selectRate applies the spec's order: carrier and service together select
// that exact service; serviceCategory the cheapest in the tier; neither the
// cheapest overall. rates are sorted cheapest first.
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
		return r, nil
	}
	e := &NoMatchingServiceError{Selection: sel, Available: make([]ServiceOption, len(rates))}
	for i, r := range rates {
		e.Available[i] = ServiceOption{Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory}
	}
	return Rate{}, e
}
