package contracttest

import "fmt"

// GermanShipment is a parcel from Berlin to Munich in grams and centimetres.
func GermanShipment() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"name": "Kiezladen GmbH", "phone": "+49 30 1234567", "street1": "Friedrichstraße 43", "city": "Berlin", "zip": "10117", "country": "DE"},
		"toAddress":   map[string]any{"name": "Erika Mustermann", "phone": "+49 89 7654321", "street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE"},
		"parcel":      map[string]any{"weightG": 2500, "lengthCm": 35, "widthCm": 25, "heightCm": 12},
	}
}

// tokenIn is a test token of every scope of a new account billed in currency.
func (e *Env) tokenIn(currency string) string {
	id, err := e.target.Fixtures.CreateAccountIn(e.ctx, "contract test "+randomHex(4), currency)
	e.must(err)
	_, secret := e.TokenOn(id, "test", allScopes, 0)
	return secret
}

// europeScenarios: a euro account's metric quote and A6 label, a parcel of
// both systems, and a currency no exchange rate reaches.
func europeScenarios() []Scenario {
	return []Scenario{
		{Name: "a euro account's metric parcel within Germany", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request { return Request{Token: e.tokenIn("EUR"), Body: GermanShipment()} },
			Check: func(x *Exchange) error {
				var q struct {
					Rates []struct{ Carrier, Currency string }
				}
				if err := x.JSON(&q); err != nil {
					return err
				}
				if len(q.Rates) == 0 {
					return fmt.Errorf("no rates within Germany")
				}
				for _, r := range q.Rates {
					if r.Currency != "EUR" {
						return fmt.Errorf("%s quoted in %s for a euro account", r.Carrier, r.Currency)
					}
				}
				return nil
			}},
		{Name: "an A6 DHL Paket label in grams", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request {
				body := With(With(GermanShipment(), "labelSize", "a6"), "carrier", "DHLParcelDE")
				return Request{Token: e.tokenIn("EUR"), Body: body}
			}},
		{Name: "a parcel in grams and ounces", Op: "quoteLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(GermanShipment(), "parcel.weightOz", 88)}
			}},
		// The ECB publishes no rate of the Argentine peso: every carrier is
		// left out, whatever exchange rates the deployment has.
		{Name: "an account in a currency no exchange rate reaches", Op: "quoteLabel", Status: 422, Code: "no_rates",
			Request: func(e *Env) Request { return Request{Token: e.tokenIn("ARS"), Body: GermanShipment()} },
			Check: func(x *Exchange) error {
				var body struct{ CarrierErrors []struct{ Code string } }
				if err := x.JSON(&body); err != nil {
					return err
				}
				if len(body.CarrierErrors) == 0 {
					return fmt.Errorf("no carrierErrors")
				}
				for _, c := range body.CarrierErrors {
					if c.Code != "no_exchange_rate" {
						return fmt.Errorf("carrier error code %q, want no_exchange_rate", c.Code)
					}
				}
				return nil
			}},
	}
}
