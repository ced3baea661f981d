package contracttest

import (
	"fmt"
)

// multiPieceScenarios cover multi-piece shipments (parcels): the schemas of
// a quote and a create with several parcels, a purchased shipment's
// packages and its pieces' scans, and the parcel/parcels errors.
func multiPieceScenarios() []Scenario {
	pieces := func(m map[string]any) map[string]any {
		m = With(m, "parcel", nil)
		m["parcels"] = []any{map[string]any{"weightOz": 16}, map[string]any{"weightOz": 24}, map[string]any{"weightOz": 40}}
		return m
	}
	return []Scenario{
		{Name: "several parcels are quoted by UPS and FedEx", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: pieces(Shipment("Ada Lovelace"))} },
			Check: wantJSON(func(m map[string]any) error {
				rates, _ := m["rates"].([]any)
				for _, r := range rates {
					if c := r.(map[string]any)["carrier"]; c != "UPS" && c != "FedEx" {
						return fmt.Errorf("a %v rate for several parcels", c)
					}
				}
				if len(rates) == 0 {
					return fmt.Errorf("no rates")
				}
				return nil
			})},
		{Name: "several parcels are bought", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: pieces(Shipment("Ada Lovelace"))} },
			Check: wantJSON(func(m map[string]any) error {
				if ps, _ := m["parcels"].([]any); len(ps) != 3 {
					return fmt.Errorf("parcels %v, want 3", m["parcels"])
				}
				return nil
			})},
		{Name: "a multi-piece shipment with its packages and scans", Op: "getLabel", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, pieces(Shipment("Ada Lovelace")))
				e.WaitStatus(tok, ID(sh), "purchased")
				waitTracked(e, tok, ID(sh))
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if ps, _ := m["packages"].([]any); len(ps) != 3 {
					return fmt.Errorf("packages %v, want 3", m["packages"])
				}
				return nil
			})},
		{Name: "parcel and parcels", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(pieces(Shipment("Ada Lovelace")), "parcel", map[string]any{"weightOz": 16})}
			},
			Check: wantField("field", "parcels")},
		{Name: "neither parcel nor parcels", Op: "quoteLabel", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "parcel", nil)}
			},
			Check: wantField("field", "parcel")},
		{Name: "a batch item of several parcels", Op: "createBatch", Status: 202,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"shipments": []any{pieces(Shipment("Ada Lovelace"))}}}
			}},
	}
}
