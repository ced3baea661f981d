package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// allowedServicesRequest is ShipIT's AllowedServicesRequestParameter: the
// route (Source and Destination required) and the shipper's contact.
type allowedServicesRequest struct {
	Source      location `json:"Source"`
	Destination location `json:"Destination"`
	ContactID   string   `json:"ContactID,omitempty"`
}

// allowedServicesAnswer is ShipIT's AllowedServicesResponse.
type allowedServicesAnswer struct {
	AllowedServices []struct {
		ProductName string `json:"ProductName"`
		ServiceName string `json:"ServiceName"`
	} `json:"AllowedServices"`
}

// Rates answers the GLS products ShipIT allows on the shipment's route for
// the shipper's contact (POST /rs/shipments/allowedservices), unpriced:
// GLS has no rating API, and a rate sheet prices them (WithRateSheet). A
// product whose limits a piece exceeds is left out, as the sandbox twin
// leaves it out.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.Return {
		// No return product: the flow asks only CapReturns carriers.
		return nil, nil
	}
	a, err := c.do(ctx, request{op: opRate, method: http.MethodPost, path: shipitPath + "/shipments/allowedservices",
		body: allowedServicesRequest{Source: locationOf(s.From), Destination: locationOf(s.To), ContactID: c.contactID}})
	if err != nil {
		return nil, err
	}
	products, err := parseAllowedServices(a.body)
	if err != nil {
		return nil, malformed(opRate, a.status, "%v", err)
	}
	international := carriers.IsInternational(s.From, s.To)
	var out []carriers.Rate
	var refused []carriers.LimitRefusal
	for _, svc := range services {
		t, sold := termsOf(svc, international)
		if !sold || !products[svc.product] {
			continue
		}
		if r := t.refusal(svc.name, s); r != nil {
			refused = append(refused, *r)
			continue
		}
		out = append(out, carriers.Rate{Carrier: carrierName, Service: svc.name, ServiceCategory: svc.category,
			EstimatedDays: t.days, Guaranteed: t.guaranteed, ProductCode: svc.product, Unpriced: true})
	}
	if len(out) == 0 && len(refused) > 0 {
		// Every product GLS allows on the route refused the parcel past a
		// limit: say which, as the sandbox twin does.
		return nil, carriers.LimitsError(carrierName, opRate, s.AllPieces()[0].Metric != nil, refused)
	}
	return out, nil
}

// parseAllowedServices reads the products an allowed-services answer
// names (ProductName, upper case).
func parseAllowedServices(body []byte) (map[string]bool, error) {
	var a allowedServicesAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the allowed services answer is not the documented JSON: %w", err)
	}
	out := map[string]bool{}
	for _, s := range a.AllowedServices {
		if p := strings.ToUpper(strings.TrimSpace(s.ProductName)); p != "" {
			out[p] = true
		}
	}
	return out, nil
}
