package contracttest

import (
	"fmt"
	"strings"
)

// internationalShipment is Shipment to London with a customs declaration
// that uses the declaration's fields.
func internationalShipment(toName string) map[string]any {
	body := With(Shipment(toName), "toAddress", map[string]any{
		"name": toName, "phone": "20 7946 0018", "street1": "10 Downing St", "city": "London", "zip": "SW1A 2AA", "country": "GB"})
	body["customs"] = map[string]any{"contentsType": "merchandise", "incoterm": "DAP", "invoiceNumber": "INV-7",
		"importerTaxId": "GB123456789000", "exporterTaxId": "12-3456789",
		"items": []any{map[string]any{"description": "T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 6,
			"hsTariffNumber": "6109.10", "originCountry": "US"}}}
	return body
}

// customsScenarios: customs.pdf, and the declaration's rules and duties.
func customsScenarios() []Scenario {
	purchased := func(e *Env, tok string) map[string]any {
		return e.WaitStatus(tok, ID(e.CreateShipment(tok, internationalShipment("Ada Lovelace"))), "purchased")
	}
	return []Scenario{
		{Name: "the commercial invoice", Op: "getCustomsPDF", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": ID(purchased(e, tok))}}
			},
			Check: func(x *Exchange) error {
				if !strings.HasPrefix(string(x.Body), "%PDF-") {
					return fmt.Errorf("the body does not start with %%PDF-: %q", truncate(x.Body, 20))
				}
				return nil
			}},
		{Name: "Slow Carrier still paying", Op: "getCustomsPDF", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, internationalShipment("Slow Carrier"))
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test shipment with a live token", Op: "getCustomsPDF", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				sh := purchased(e, e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "a domestic shipment has none", Op: "getCustomsPDF", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": ID(e.Purchased(tok))}}
			}},
		{Name: "a batch's customs documents", Op: "getBatchCustomsPDF", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				id := completedBatch(e, tok, internationalShipment("Ada Lovelace"), Shipment("Grace Hopper"))
				return Request{Token: tok, Params: map[string]string{"id": id}}
			},
			Check: func(x *Exchange) error {
				if !strings.HasPrefix(string(x.Body), "%PDF-") {
					return fmt.Errorf("the body does not start with %%PDF-: %q", truncate(x.Body, 20))
				}
				return nil
			}},
		{Name: "Slow Carrier still paying", Op: "getBatchCustomsPDF", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				b := e.Want(e.Call("POST", "/batches", tok, Batch(internationalShipment("Slow Carrier"))), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(b)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test batch with a live token", Op: "getBatchCustomsPDF", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				b := e.Want(e.Call("POST", "/batches", e.Token("test"), Batch(internationalShipment("Ada Lovelace"))), 202)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "a batch of domestic labels has none", Op: "getBatchCustomsPDF", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatch(e, tok, Shipment("Ada Lovelace"))}}
			}},
		{Name: "no such batch", Op: "getBatchCustomsPDF", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: map[string]string{"id": "bat_contract0000000000000000"}}
			}},
		{Name: "DDP rates show the duties", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(internationalShipment("Ada Lovelace"), "customs.incoterm", "DDP")}
			},
			Check: wantJSON(func(m map[string]any) error {
				rates, _ := m["rates"].([]any)
				for _, r := range rates {
					if d, ok := r.(map[string]any)["dutiesCents"].(float64); ok && d > 0 {
						return nil
					}
				}
				return fmt.Errorf("no rate has dutiesCents: %v", m)
			})},
		{Name: "over $2,500 under one Schedule B number without the ITN", Op: "quoteLabel", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request {
				body := With(internationalShipment("Ada Lovelace"), "customs.items", []any{map[string]any{
					"description": "Watch", "quantity": 1, "valueCents": 300000, "weightOz": 4, "hsTariffNumber": "9102.11"}})
				return Request{Token: e.Token("test"), Body: body}
			},
			Check: wantField("field", "customs.eelPfc")},
		{Name: "HS number of 5 digits", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				body := With(internationalShipment("Ada Lovelace"), "customs.items", []any{map[string]any{
					"description": "Watch", "quantity": 1, "valueCents": 3000, "weightOz": 4, "hsTariffNumber": "91021"}})
				return Request{Token: e.Token("test"), Body: body}
			},
			Check: wantField("field", "customs.items.0.hsTariffNumber")},
	}
}
