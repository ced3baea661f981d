package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/gen"
)

// checkShipmentInput applies the rules the schema cannot express: US
// addresses need a state, international shipments need customs.
func checkShipmentInput(in shipmentInput) *apiError {
	issues := append(addressRuleIssues("fromAddress.", in.FromAddress.Country, in.FromAddress.State),
		addressRuleIssues("toAddress.", in.ToAddress.Country, in.ToAddress.State)...)
	if len(issues) > 0 {
		return issuesError(issues)
	}
	if !strings.EqualFold(in.FromAddress.Country, in.ToAddress.Country) && in.Customs == nil {
		return newAPIError(http.StatusUnprocessableEntity, "missing_field", "customs is required for an international shipment").withField("customs")
	}
	return nil
}

// rates asks every carrier of the mode for rates, cheapest first. One carrier
// failing does not fail the quote while others answer; all failing does.
func (s *Server) rates(ctx context.Context, testMode bool, shipment carriers.Shipment) ([]gen.Rate, *apiError) {
	cs, err := s.cfg.Carriers.For(testMode)
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, newAPIError(http.StatusInternalServerError, "carrier_not_configured",
			"no carrier connection is configured for live mode; ask the operator to configure one (retrying does not help)")
	}
	if err != nil {
		return nil, newAPIError(http.StatusInternalServerError, "internal_error", "internal server error")
	}
	var (
		out                 []gen.Rate
		unavailable, failed int
	)
	for _, c := range cs {
		rs, err := c.Rates(ctx, shipment)
		switch {
		case errors.Is(err, carriers.ErrCustomsRequired):
			return nil, newAPIError(http.StatusUnprocessableEntity, "missing_field", "customs is required for an international shipment").withField("customs")
		case errors.Is(err, carriers.ErrUnavailable):
			unavailable++
			s.log.WarnContext(ctx, "carrier unavailable", slog.String("carrier", c.Name()), slog.Any("error", err))
			continue
		case err != nil:
			failed++
			s.log.WarnContext(ctx, "carrier rates failed", slog.String("carrier", c.Name()), slog.Any("error", err))
			continue
		}
		for _, r := range rs {
			out = append(out, gen.Rate{
				Carrier: r.Carrier, Service: r.Service, ServiceCategory: gen.ServiceCategory(r.ServiceCategory),
				CarrierRateCents: r.CarrierRateCents, PlatformFeeCents: s.cfg.platformFee(),
				CustomerPriceCents: r.CarrierRateCents + s.cfg.platformFee(), Currency: r.Currency, EstimatedDays: r.EstimatedDays,
			})
		}
	}
	if len(out) == 0 && unavailable > 0 && failed == 0 {
		e := newAPIError(http.StatusServiceUnavailable, "carrier_unavailable", "the carriers are temporarily unavailable; retry after the Retry-After delay")
		e.RetryAfter = 30
		return nil, e
	}
	if len(out) == 0 && failed > 0 {
		return nil, newAPIError(http.StatusBadGateway, "carrier_error", "the carriers failed to answer; retry")
	}
	if len(out) == 0 {
		return nil, newAPIError(http.StatusUnprocessableEntity, "no_rates", "no carrier offers a rate for this shipment")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CustomerPriceCents < out[j].CustomerPriceCents })
	return out, nil
}

// selectRate applies the spec's order: carrier and service together select
// that exact service; serviceCategory the cheapest in the tier; neither the
// cheapest overall. rates are sorted cheapest first.
func selectRate(rates []gen.Rate, req gen.CreateLabelRequest) (gen.Rate, *apiError) {
	if req.Service != nil && req.Carrier == nil {
		return gen.Rate{}, newAPIError(http.StatusUnprocessableEntity, "missing_field", "carrier is required with service").withField("carrier")
	}
	for _, r := range rates {
		if req.Carrier != nil && !strings.EqualFold(r.Carrier, *req.Carrier) {
			continue
		}
		if req.Service != nil && !strings.EqualFold(r.Service, *req.Service) {
			continue
		}
		if req.ServiceCategory != nil && r.ServiceCategory != *req.ServiceCategory {
			continue
		}
		return r, nil
	}
	e := newAPIError(http.StatusUnprocessableEntity, "no_matching_service", fmt.Sprintf("no rate matches %s; see availableServices", describeHint(req)))
	avail := make([]gen.ServiceOption, len(rates))
	for i, r := range rates {
		avail[i] = gen.ServiceOption{Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory}
	}
	e.Body.AvailableServices = &avail
	return gen.Rate{}, e
}

func describeHint(req gen.CreateLabelRequest) string {
	var parts []string
	if req.Carrier != nil {
		parts = append(parts, "carrier "+*req.Carrier)
	}
	if req.Service != nil {
		parts = append(parts, "service "+*req.Service)
	}
	if req.ServiceCategory != nil {
		parts = append(parts, "serviceCategory "+string(*req.ServiceCategory))
	}
	return strings.Join(parts, ", ")
}
