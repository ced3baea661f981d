package contracttest

import (
	"fmt"
	"slices"
	"strings"
)

// QuickQuote is what a checkout page knows before the customer types a
// street: the postal codes (and US states) of both ends, and the parcel.
func QuickQuote() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4},
	}
}

// wantMissing checks that every rate of a quote has missingFields, each
// holding fields.
func wantMissing(fields ...string) func(x *Exchange) error {
	return func(x *Exchange) error {
		var q struct {
			Rates []struct {
				Carrier, Service string
				MissingFields    *[]string
			}
		}
		if err := x.JSON(&q); err != nil {
			return err
		}
		if len(q.Rates) == 0 {
			return fmt.Errorf("no rates")
		}
		for _, r := range q.Rates {
			if r.MissingFields == nil {
				return fmt.Errorf("%s %s has no missingFields", r.Carrier, r.Service)
			}
			for _, f := range fields {
				if !slices.Contains(*r.MissingFields, f) {
					return fmt.Errorf("%s %s: missingFields %v without %s", r.Carrier, r.Service, *r.MissingFields, f)
				}
			}
		}
		return nil
	}
}

// quickQuoteScenarios: quick quotes for checkout pages (issue 43) and a
// purchase of what they quoted, refused as before; a parcel past every
// carrier's limits.
func quickQuoteScenarios() []Scenario {
	// A checkout page that has everything but the recipient's street.
	noStreet := With(Shipment("Ada Lovelace"), "toAddress.street1", nil)
	return []Scenario{
		{Name: "a quick quote: postal codes and the parcel", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: QuickQuote()} },
			Check:   wantMissing("fromAddress.street1", "fromAddress.city", "toAddress.street1", "toAddress.city")},
		{Name: "a quote without the recipient's street", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: noStreet} },
			Check:   wantMissing("toAddress.street1")},
		{Name: "the same shipment bought without the recipient's street", Op: "createLabel", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: noStreet} },
			Check:   wantField("field", "toAddress.street1")},
		{Name: "a quick quote's body bought", Op: "createLabel", Status: 422, Code: "invalid_request",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: QuickQuote()} },
			Check: wantJSON(func(m map[string]any) error {
				issues, _ := m["issues"].([]any)
				var paths []string
				for _, is := range issues {
					if p, ok := is.(map[string]any)["path"].(string); ok {
						paths = append(paths, p)
					}
				}
				slices.Sort(paths)
				if want := []string{"fromAddress.city", "fromAddress.street1", "toAddress.city", "toAddress.street1"}; !slices.Equal(paths, want) {
					return fmt.Errorf("issues at %v, want %v", paths, want)
				}
				return nil
			})},
		{Name: "a parcel heavier than every carrier takes", Op: "quoteLabel", Status: 422, Code: "no_rates",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "parcel", map[string]any{"weightOz": 200 * 16})}
			},
			Check: wantJSON(func(m map[string]any) error {
				errs, _ := m["carrierErrors"].([]any)
				if len(errs) == 0 {
					return fmt.Errorf("no carrierErrors")
				}
				for _, ce := range errs {
					c := ce.(map[string]any)
					if c["code"] != "parcel_too_heavy" || c["kind"] != "rejected" || !strings.Contains(c["message"].(string), "at most") {
						return fmt.Errorf("carrier error %v, want rejected parcel_too_heavy naming the limit", c)
					}
				}
				return nil
			})},
	}
}
