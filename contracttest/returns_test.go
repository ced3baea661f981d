package contracttest

import (
	"fmt"
)

// returnScenarios cover return labels (returnOf, isReturn) on quoteLabel and
// createLabel: each new (operation, status) pair and each new error.
func returnScenarios() []Scenario {
	returnOf := func(id string) map[string]any { return map[string]any{"returnOf": id} }
	isReturn := func(m map[string]any) error {
		if m["isReturn"] != true {
			return fmt.Errorf("isReturn %v, want true", m["isReturn"])
		}
		return nil
	}
	return []Scenario{
		{Name: "return of a purchased shipment is priced", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Body: returnOf(ID(e.Purchased(tok)))}
			},
			Check: wantJSON(func(m map[string]any) error {
				if rates, _ := m["rates"].([]any); len(rates) == 0 {
					return fmt.Errorf("no rates")
				}
				return nil
			})},
		{Name: "returnOf unknown", Op: "quoteLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: returnOf("shp_contract0000000000000000")}
			}},
		{Name: "returnOf a shipment not purchased", Op: "quoteLabel", Status: 409, Code: "not_purchased",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Body: returnOf(ID(e.CreateShipment(tok, Shipment("Slow Carrier"))))}
			}},
		{Name: "return label of a purchased shipment", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Body: returnOf(ID(e.Purchased(tok)))}
			},
			Check: wantJSON(func(m map[string]any) error {
				if err := isReturn(m); err != nil {
					return err
				}
				if m["returnOf"] == nil || m["chargeAmountCents"] != float64(0) {
					return fmt.Errorf("returnOf %v, chargeAmountCents %v, want the original and 0", m["returnOf"], m["chargeAmountCents"])
				}
				return nil
			})},
		{Name: "isReturn with addresses", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "isReturn", true)}
			},
			Check: wantJSON(isReturn)},
		{Name: "returnOf another account's shipment", Op: "createLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				_, other := e.TokenOn(e.NewAccount(true), "test", allScopes, 0)
				return Request{Token: e.Token("test"), Body: returnOf(ID(e.Purchased(other)))}
			}},
		{Name: "returnOf a shipment not purchased", Op: "createLabel", Status: 409, Code: "not_purchased",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Body: returnOf(ID(e.CreateShipment(tok, Shipment("Slow Carrier"))))}
			}},
		{Name: "return of a return", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				ret := e.CreateShipment(tok, returnOf(ID(e.Purchased(tok))))
				return Request{Token: tok, Body: returnOf(ID(ret))}
			},
			Check: wantField("field", "returnOf")},
		{Name: "isReturn without addresses", Op: "createLabel", Status: 422, Code: "invalid_request",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"isReturn": true}}
			}},
	}
}
