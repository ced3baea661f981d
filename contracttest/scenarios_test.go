package contracttest

// The scenario table: every documented (operation, status) of the contract is
// provoked here, or is on the pending list (pending_test.go). Families that
// apply to every operation (authentication, scopes, token in the URL, body
// limits, internal errors, rate limits) are generated from the contract; the
// rest are written out per operation.

import (
	"fmt"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"net/url"
	"strings"
	"time"
)

// Dummy path parameters for requests refused before the handler looks them up.
var dummyParams = map[string]string{"id": "shp_contract0000000000000000", "deliveryId": "dlv_contract0000000000000000"}

// sampleBody is a valid body for each operation with one, so that the
// generated families send realistic requests.
func sampleBody(op string) any {
	switch op {
	case "quoteLabel", "createLabel":
		return Shipment("Ada Lovelace")
	case "verifyAddress", "createAddress":
		return Address()
	case "createWebhook":
		return map[string]any{"url": HookURL(), "events": []string{"*"}}
	case "updateWebhook":
		return map[string]any{"enabled": false}
	case "createBatch":
		return Batch(Shipment("Ada Lovelace"))
	case "createTracker":
		return map[string]any{"trackingNumber": "123456789012"}
	case "createManifest":
		return map[string]any{"carrier": "USPS"}
	case "createPickup":
		return Pickup("")
	case "createCarrierAccount":
		return CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)
	case "updateCarrierAccount":
		return map[string]any{"enabled": false}
	case "putCarrierAccountRateSheet":
		return RateSheet
	}
	return nil
}

// Batch is a POST /batches body of the given shipments.
func Batch(items ...map[string]any) map[string]any {
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	return map[string]any{"shipments": list}
}

// tooLarge is a JSON body of 2 MiB, twice the limit.
func tooLarge() []byte {
	pad := strings.Repeat("x", 2<<20)
	return []byte(`{"pad":"` + pad + `"}`)
}

// Scenarios returns the whole table.
func Scenarios(c *Contract) []Scenario {
	out := generatedScenarios(c)
	out = append(out, labelScenarios()...)
	out = append(out, returnScenarios()...)
	out = append(out, addressScenarios()...)
	out = append(out, standaloneTrackerScenarios()...)
	out = append(out, webhookScenarios()...)
	out = append(out, deliveryScenarios()...)
	out = append(out, eventAndMetaScenarios()...)
	out = append(out, labelFormatScenarios()...)
	out = append(out, customsScenarios()...)
	out = append(out, batchScenarios()...)
	out = append(out, manifestScenarios()...)
	out = append(out, pickupScenarios()...)
	out = append(out, carrierAccountScenarios()...)
	out = append(out, rateSheetScenarios()...)
	out = append(out, multiPieceScenarios()...)
	out = append(out, europeScenarios()...)
	out = append(out, quickQuoteScenarios()...)
	return out
}

func generatedScenarios(c *Contract) []Scenario {
	var out []Scenario
	for _, op := range c.Ops {
		base := func(e *Env) Request {
			r := Request{Params: dummyParams, Body: sampleBody(op.ID)}
			if op.Scope != "" {
				r.Token = e.Token("test")
			}
			return r
		}
		// Refused before authentication, wherever the contract documents them.
		if op.documents(400) {
			out = append(out, Scenario{Name: "token in the query", Op: op.ID, Status: 400, Code: "token_in_query",
				Request: func(e *Env) Request {
					r := base(e)
					r.Query = url.Values{"access_token": {"leaked"}}
					return r
				}})
			if op.JSONBody {
				out = append(out, Scenario{Name: "malformed JSON", Op: op.ID, Status: 400, Code: "invalid_json",
					Request: func(e *Env) Request {
						r := base(e)
						r.Body = `{"fromAddress": {`
						return r
					}})
			}
		}
		if op.documents(413) {
			out = append(out, Scenario{Name: "2 MiB body", Op: op.ID, Status: 413, Code: "payload_too_large",
				Request: func(e *Env) Request {
					r := base(e)
					r.Body = tooLarge()
					if op.ID == "createBatch" { // x-max-body-bytes: 8 MiB
						r.Body = []byte(`{"pad":"` + strings.Repeat("x", 9<<20) + `"}`)
					}
					return r
				}})
		}
		if op.Scope == "" {
			continue // public: the meta operations; see eventAndMetaScenarios
		}
		withToken := func(token string) Request {
			return Request{Token: token, Params: dummyParams, Body: sampleBody(op.ID)}
		}
		out = append(out,
			Scenario{Name: "no Authorization header", Op: op.ID, Status: 401, Code: "missing_authorization",
				Request: func(e *Env) Request { return withToken("") }},
			Scenario{Name: "unknown token", Op: op.ID, Status: 401, Code: "invalid_token",
				Request: func(e *Env) Request { return withToken(UnknownToken("test")) }},
			Scenario{Name: "revoked token", Op: op.ID, Status: 401, Code: "token_revoked",
				Request: func(e *Env) Request { return withToken(e.RevokedToken()) }},
			Scenario{Name: "token without " + op.Scope, Op: op.ID, Status: 403, Code: "insufficient_scope",
				Request: func(e *Env) Request { return withToken(e.Token("test", ScopesWithout(op.Scope)...)) },
				Check: func(x *Exchange) error {
					if x.Error.RequiredScope != op.Scope {
						return fmt.Errorf("requiredScope %q, want %q (x-required-scope)", x.Error.RequiredScope, op.Scope)
					}
					return nil
				}},
			Scenario{Name: "database closed", Op: op.ID, Status: 500, Code: "internal_error", Server: BrokenDBServer,
				Request: func(e *Env) Request { return withToken(UnknownToken("test")) }},
			Scenario{Name: "bucket empty", Op: op.ID, Status: 429, Code: "rate_limited", Server: RateLimitedServer,
				Request: func(e *Env) Request {
					first, err := e.target.send(e.ctx, &op, base(e)) // takes the only token of the bucket
					e.must(err)
					if first.Status == 429 {
						e.Failf("the first request was already rate limited")
					}
					return base(e)
				},
				Check: wantHeaders("Retry-After", "X-RateLimit-Reset", "X-RateLimit-Limit", "X-RateLimit-Remaining")},
		)
	}
	// An expired token, on a read and on a write.
	for _, op := range []string{"getLabel", "createWebhook"} {
		out = append(out, Scenario{Name: "expired token", Op: op, Status: 401, Code: "token_expired",
			Request: func(e *Env) Request {
				return Request{Token: e.ExpiredToken(), Params: dummyParams, Body: sampleBody(op)}
			}})
	}
	return out
}

func labelScenarios() []Scenario {
	return []Scenario{
		// listLabels
		{Name: "first page of two", Op: "listLabels", Status: 200, Request: func(e *Env) Request {
			tok := e.Token("test")
			e.CreateShipment(tok, Shipment("Ada Lovelace"))
			e.CreateShipment(tok, Shipment("Grace Hopper"))
			return Request{Token: tok, Query: url.Values{"limit": {"1"}}}
		}, Check: wantJSON(func(m map[string]any) error {
			if n := len(m["data"].([]any)); n != 1 {
				return fmt.Errorf("%d shipments on a page of 1", n)
			}
			if c, _ := m["nextCursor"].(string); c == "" {
				return fmt.Errorf("nextCursor %v on the first of two pages", m["nextCursor"])
			}
			return nil
		})},
		{Name: "last page, by status", Op: "listLabels", Status: 200, Request: func(e *Env) Request {
			tok := e.Token("test")
			e.CreateShipment(tok, Shipment("Ada Lovelace"))
			e.CreateShipment(tok, Shipment("Grace Hopper"))
			first := e.Want(e.Call("GET", "/labels?limit=1", tok, nil), 200)
			cursor, _ := first["nextCursor"].(string)
			return Request{Token: tok, Query: url.Values{"limit": {"1"}, "cursor": {cursor}}}
		}, Check: wantJSON(func(m map[string]any) error {
			if n := len(m["data"].([]any)); n != 1 || m["nextCursor"] != nil {
				return fmt.Errorf("%d shipments and nextCursor %v on the last page", n, m["nextCursor"])
			}
			return nil
		})},
		{Name: "Basic credentials", Op: "listLabels", Status: 401, Code: "invalid_token",
			Request: func(e *Env) Request { return Request{Auth: "Basic dXNlcjpwYXNzd29yZA=="} }},
		{Name: "limit 0", Op: "listLabels", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"limit": {"0"}}} }},
		{Name: "unknown status filter", Op: "listLabels", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"status": {"lost"}}} }},
		{Name: "cursor not from the API", Op: "listLabels", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Query: url.Values{"cursor": {"not-a-cursor"}}}
			}},

		// quoteLabel
		{Name: "rates from every carrier", Op: "quoteLabel", Status: 200,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Ada Lovelace")} },
			Check: wantJSON(func(m map[string]any) error {
				rates, _ := m["rates"].([]any)
				if len(rates) == 0 {
					return fmt.Errorf("no rates")
				}
				return nil
			})},
		{Name: "sandbox zip 00000", Op: "quoteLabel", Status: 422, Code: "no_rates",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "toAddress.zip", "00000")}
			}},
		{Name: "parcel missing", Op: "quoteLabel", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "parcel", nil)}
			}},
		{Name: "three-letter country", Op: "quoteLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "toAddress.country", "USA")}
			}},
		{Name: "live mode has no carriers", Op: "quoteLabel", Status: 500, Code: "carrier_not_configured",
			Request: func(e *Env) Request { return Request{Token: e.Token("live"), Body: Shipment("Ada Lovelace")} }},
		{Name: "sandbox Carrier Error", Op: "quoteLabel", Status: 502, Code: "carrier_error",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carrier Error")} }},
		{Name: "sandbox Carriers Unreachable", Op: "quoteLabel", Status: 502, Code: "carrier_unreachable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carriers Unreachable")} },
			Check:   wantNoHeader("Retry-After")},
		{Name: "sandbox Carriers Down", Op: "quoteLabel", Status: 503, Code: "carrier_unavailable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carriers Down")} },
			Check:   wantHeaders("Retry-After")},

		// createLabel
		{Name: "purchase accepted", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Ada Lovelace")} },
			Check:   wantField("status", "paying")},
		{Name: "international, with customs and options", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request {
				body := With(Shipment("Ada Lovelace"), "toAddress", map[string]any{
					"name": "Ada Lovelace", "street1": "10 Downing St", "city": "London", "zip": "SW1A 2AA", "country": "GB"})
				body["options"] = map[string]any{"signatureConfirmation": true}
				body["customs"] = map[string]any{"contentsType": "merchandise", "items": []any{map[string]any{
					"description": "T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 6, "originCountry": "US"}}}
				return Request{Token: e.Token("test"), Body: body}
			},
			Check: wantJSON(func(m map[string]any) error {
				if _, ok := m["customs"].(map[string]any); !ok {
					return fmt.Errorf("customs not returned")
				}
				return nil
			})},
		{Name: "retry with the same key is replayed", Op: "createLabel", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := With(Shipment("Ada Lovelace"), "idempotencyKey", "order-2")
				e.CreateShipment(tok, body)
				return Request{Token: tok, Body: body}
			},
			Check: wantHeaderValue("Idempotent-Replayed", "true")},
		{Name: "account without payment method", Op: "createLabel", Status: 402, Code: "no_payment_method",
			Request: func(e *Env) Request {
				_, tok := e.TokenOn(e.NewAccount(false), "test", allScopes, 0)
				return Request{Token: tok, Body: Shipment("Ada Lovelace")}
			}},
		{Name: "idempotency key reused with another body", Op: "createLabel", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.CreateShipment(tok, With(Shipment("Ada Lovelace"), "idempotencyKey", "order-1"))
				return Request{Token: tok, Body: With(Shipment("Grace Hopper"), "idempotencyKey", "order-1")}
			}},
		{Name: "no rate matches carrier and service", Op: "createLabel", Status: 422, Code: "no_matching_service",
			Request: func(e *Env) Request {
				body := With(With(Shipment("Ada Lovelace"), "carrier", "USPS"), "service", "Teleport")
				return Request{Token: e.Token("test"), Body: body}
			}},
		{Name: "misspelt serviceCategory", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "serviceCatgory", "overnight")}
			},
			Check: wantUnknownField("serviceCatgory", "serviceCategory")},
		{Name: "misspelt nested street1", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(With(Shipment("Ada Lovelace"), "toAddress.street1", nil), "toAddress.stret1", "1 Main St")}
			},
			Check: wantUnknownField("toAddress.stret1", "toAddress.street1")},
		{Name: "sandbox zip 00000", Op: "createLabel", Status: 422, Code: "no_rates",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Shipment("Ada Lovelace"), "toAddress.zip", "00000")}
			}},
		{Name: "live mode has no carriers", Op: "createLabel", Status: 500, Code: "carrier_not_configured",
			Request: func(e *Env) Request { return Request{Token: e.Token("live"), Body: Shipment("Ada Lovelace")} }},
		{Name: "sandbox Carrier Error", Op: "createLabel", Status: 502, Code: "carrier_error",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carrier Error")} }},
		{Name: "sandbox Carriers Unreachable", Op: "createLabel", Status: 502, Code: "carrier_unreachable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carriers Unreachable")} },
			Check:   wantNoHeader("Retry-After")},
		{Name: "sandbox Carriers Down", Op: "createLabel", Status: 503, Code: "carrier_unavailable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Shipment("Carriers Down")} },
			Check:   wantHeaders("Retry-After")},

		// getLabel
		{Name: "a purchased shipment", Op: "getLabel", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.Purchased(tok)
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantField("status", "purchased")},
		{Name: "with tracking events", Op: "getLabel", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.Purchased(tok)
				waitTracked(e, tok, ID(sh))
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if ev, _ := m["trackingEvents"].([]any); len(ev) == 0 {
					return fmt.Errorf("no trackingEvents")
				}
				return nil
			})},
		{Name: "test shipment with a live token", Op: "getLabel", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				sh := e.CreateShipment(e.Token("test"), Shipment("Ada Lovelace"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "no such shipment", Op: "getLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},
		{Name: "an id with NUL", Op: "getLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: map[string]string{"id": "shp_\x00"}}
			}},
		{Name: "another account's shipment", Op: "getLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				sh := e.CreateShipment(e.Token("test"), Shipment("Ada Lovelace"))
				_, other := e.TokenOn(e.NewAccount(true), "test", allScopes, 0)
				return Request{Token: other, Params: map[string]string{"id": ID(sh)}}
			}},

		// refundLabel
		{Name: "void requested", Op: "refundLabel", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": ID(e.Purchased(tok))}}
			},
			Check: wantField("status", "void_requested")},
		{Name: "test shipment with a live token", Op: "refundLabel", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				sh := e.Purchased(e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "no such shipment", Op: "refundLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},
		{Name: "an id with NUL", Op: "refundLabel", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: map[string]string{"id": "shp_\x00"}}
			}},
		{Name: "Slow Carrier still paying", Op: "refundLabel", Status: 409, Code: "not_purchased",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Slow Carrier"))
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "Slow Carrier void in flight", Op: "refundLabel", Status: 409, Code: "refund_in_progress",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Slow Carrier"))
				e.WaitStatus(tok, ID(sh), "purchased")
				e.Want(e.Call("POST", "/labels/"+ID(sh)+"/refund", tok, nil), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "already voided", Op: "refundLabel", Status: 409, Code: "already_voided",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.Purchased(tok)
				e.Want(e.Call("POST", "/labels/"+ID(sh)+"/refund", tok, nil), 202)
				e.WaitStatus(tok, ID(sh), "voided")
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "sandbox Fail Purchase", Op: "refundLabel", Status: 409, Code: "ineligible_state",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Fail Purchase"))
				e.WaitStatus(tok, ID(sh), "failed")
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "Carrier Unavailable still pending", Op: "refundLabel", Status: 409, Code: "ineligible_state",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Carrier Unavailable"))
				e.WaitStatus(tok, ID(sh), "pending")
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},
		// The body's only field is its key, so a key cannot come back with another
		// body: a field beside it is not a collision but an unknown field.
		{Name: "unknown field beside the key", Op: "refundLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.Purchased(tok)
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)},
					Body: map[string]any{"idempotencyKey": "void-1", "note": "another body"}}
			},
			Check: wantUnknownField("note", "")},
		{Name: "idempotencyKey not a string", Op: "refundLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: dummyParams, Body: map[string]any{"idempotencyKey": 7}}
			}},

		// getLabelPDF
		{Name: "the label document", Op: "getLabelPDF", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": ID(e.Purchased(tok))}}
			},
			Check: func(x *Exchange) error {
				if !strings.HasPrefix(string(x.Body), "%PDF-") {
					return fmt.Errorf("the body does not start with %%PDF-: %q", truncate(x.Body, 20))
				}
				return nil
			}},
		{Name: "Slow Carrier still paying", Op: "getLabelPDF", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Slow Carrier"))
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "Carrier Unavailable still pending", Op: "getLabelPDF", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Carrier Unavailable"))
				e.WaitStatus(tok, ID(sh), "pending")
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test shipment with a live token", Op: "getLabelPDF", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				sh := e.Purchased(e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(sh)}}
			}},
		{Name: "no such shipment", Op: "getLabelPDF", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},
		{Name: "sandbox Fail Purchase has no label", Op: "getLabelPDF", Status: 404, Code: "label_unavailable",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.CreateShipment(tok, Shipment("Fail Purchase"))
				e.WaitStatus(tok, ID(sh), "failed")
				return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
			}},

		// getTracker
		{Name: "the tracker of a purchased label", Op: "getTracker", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": trackerID(e, e.Purchased(tok))}}
			}},
		{Name: "with scans", Op: "getTracker", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				sh := e.Purchased(tok)
				waitTracked(e, tok, ID(sh))
				return Request{Token: tok, Params: map[string]string{"id": trackerID(e, sh)}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if ev, _ := m["events"].([]any); len(ev) == 0 {
					return fmt.Errorf("no events")
				}
				return nil
			})},
		{Name: "test tracker with a live token", Op: "getTracker", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				sh := e.Purchased(e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": trackerID(e, sh)}}
			}},
		{Name: "no such tracker", Op: "getTracker", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: map[string]string{"id": "trk_contract0000000000000000"}}
			}},
	}
}

// standaloneTrackerScenarios: trackers of any package (POST /trackers).
func standaloneTrackerScenarios() []Scenario {
	ups := map[string]any{"trackingNumber": "1Z999AA10123456784"}
	standalone := func(e *Env, tok string) string {
		return ID(e.Want(e.Call("POST", "/trackers", tok, ups), 201))
	}
	return []Scenario{
		// createTracker
		{Name: "a standalone tracker, carrier from the number", Op: "createTracker", Status: 201,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: ups} },
			Check: wantJSON(func(m map[string]any) error {
				if v, ok := m["shipmentId"]; !ok || v != nil || m["carrier"] != "UPS" {
					return fmt.Errorf("shipmentId %v (present %v), carrier %v; want null and UPS", v, ok, m["carrier"])
				}
				return nil
			})},
		{Name: "the same carrier and number again", Op: "createTracker", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				standalone(e, tok)
				return Request{Token: tok, Body: map[string]any{"trackingNumber": "1Z999AA10123456784", "carrier": "ups"}}
			}},
		{Name: "retry with the same key is replayed", Op: "createTracker", Status: 201,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := map[string]any{"trackingNumber": "123456789012", "idempotencyKey": "trk-1"}
				e.Want(e.Call("POST", "/trackers", tok, body), 201)
				return Request{Token: tok, Body: body}
			},
			Check: wantHeaderValue("Idempotent-Replayed", "true")},
		{Name: "idempotency key reused with another body", Op: "createTracker", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/trackers", tok, map[string]any{"trackingNumber": "123456789012", "idempotencyKey": "trk-1"}), 201)
				return Request{Token: tok, Body: map[string]any{"trackingNumber": "123456789013", "idempotencyKey": "trk-1"}}
			}},
		{Name: "a number of no carrier's form without carrier", Op: "createTracker", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"trackingNumber": "ABC123"}}
			},
			Check: wantField("field", "carrier")},
		{Name: "a number of two carriers' forms without carrier", Op: "createTracker", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"trackingNumber": "9611020987654312345672"}}
			},
			Check: wantField("field", "carrier")},
		{Name: "trackingNumber missing", Op: "createTracker", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: map[string]any{"carrier": "UPS"}} }},

		// listTrackers
		{Name: "standalone and labels' trackers", Op: "listTrackers", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Purchased(tok)
				standalone(e, tok)
				return Request{Token: tok, Query: url.Values{"limit": {"1"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if data, _ := m["data"].([]any); len(data) != 1 || m["nextCursor"] == nil {
					return fmt.Errorf("want one tracker and a nextCursor: %v", m)
				}
				return nil
			})},
		{Name: "in one status", Op: "listTrackers", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				standalone(e, tok)
				return Request{Token: tok, Query: url.Values{"status": {"UNKNOWN"}}}
			}},
		{Name: "an unknown status", Op: "listTrackers", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"status": {"lost"}}} },
			Check:   wantField("field", "status")},

		// getTracker of a standalone tracker
		{Name: "a standalone tracker", Op: "getTracker", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": standalone(e, tok)}}
			}},

		// deleteTracker
		{Name: "a standalone tracker stops", Op: "deleteTracker", Status: 204,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": standalone(e, tok)}}
			}},
		{Name: "a deleted tracker", Op: "deleteTracker", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				id := standalone(e, tok)
				e.Want(e.Call("DELETE", "/trackers/"+id, tok, nil), 204)
				return Request{Token: tok, Params: map[string]string{"id": id}}
			}},
		{Name: "test tracker with a live token", Op: "deleteTracker", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: map[string]string{"id": standalone(e, e.Token("test"))}}
			}},
		{Name: "a label's tracker", Op: "deleteTracker", Status: 409, Code: "tracker_of_shipment",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": trackerID(e, e.Purchased(tok))}}
			}},
	}
}

// waitTracked waits until the shipment has a tracking event.
func waitTracked(e *Env, token, id string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		sh := e.Want(e.Call("GET", "/labels/"+id, token, nil), 200)
		if ev, _ := sh["trackingEvents"].([]any); len(ev) > 0 {
			return
		}
		if time.Now().After(deadline) {
			e.Failf("shipment %s has no tracking event after 30 s", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func trackerID(e *Env, sh map[string]any) string {
	id, _ := sh["trackerId"].(string)
	if id == "" {
		e.Failf("purchased shipment %s has no trackerId", ID(sh))
	}
	return id
}

func addressScenarios() []Scenario {
	return []Scenario{
		// verifyAddress
		{Name: "verified", Op: "verifyAddress", Status: 201,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Address()} }},
		{Name: "deliverable with corrections (warning)", Op: "verifyAddress", Status: 201,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(With(Address(), "street1", "350 Fifth Avenue Apt 5"), "state", "New York")}
			},
			Check: wantField("status", "warning")},
		{Name: "not deliverable (error)", Op: "verifyAddress", Status: 201,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Address(), "street1", "Fifth Avenue")}
			},
			Check: wantField("status", "error")},
		{Name: "street1 missing", Op: "verifyAddress", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: With(Address(), "street1", nil)} }},
		{Name: "US address without state", Op: "verifyAddress", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: With(Address(), "state", nil)} }},
		{Name: "live mode has no verifier", Op: "verifyAddress", Status: 500, Code: "verifier_not_configured",
			Request: func(e *Env) Request { return Request{Token: e.Token("live"), Body: Address()} }},
		{Name: "sandbox Verifier Error", Op: "verifyAddress", Status: 502, Code: "verifier_error",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Address(), "street1", "Verifier Error")}
			}},
		{Name: "sandbox Verifier Down", Op: "verifyAddress", Status: 503, Code: "verifier_unavailable",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Address(), "street1", "Verifier Down")}
			},
			Check: wantHeaders("Retry-After")},

		// createAddress
		{Name: "saved", Op: "createAddress", Status: 201,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Address()} }},
		{Name: "retry with the same key is replayed", Op: "createAddress", Status: 201,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := With(Address(), "idempotencyKey", "addr-1")
				e.Want(e.Call("POST", "/addresses", tok, body), 201)
				return Request{Token: tok, Body: body}
			},
			Check: wantHeaderValue("Idempotent-Replayed", "true")},
		{Name: "idempotency key reused with another body", Op: "createAddress", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/addresses", tok, With(Address(), "idempotencyKey", "addr-1")), 201)
				return Request{Token: tok, Body: With(With(Address(), "city", "Brooklyn"), "idempotencyKey", "addr-1")}
			}},
		{Name: "a body that is not JSON", Op: "createAddress", Status: 400, Code: "invalid_json",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: "street1=350 Fifth Avenue", ContentType: "application/x-www-form-urlencoded"}
			}},
		{Name: "zip missing", Op: "createAddress", Status: 422, Code: "missing_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: With(Address(), "zip", nil)} }},
		{Name: "NUL in a string", Op: "createAddress", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Address(), "street1", "350 Fifth\x00Avenue")}
			},
			Check: wantField("field", "street1")},

		// listAddresses
		{Name: "the address book", Op: "listAddresses", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/addresses", tok, Address()), 201)
				return Request{Token: tok}
			}},
		{Name: "limit 101", Op: "listAddresses", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"limit": {"101"}}} }},
	}
}

func webhookScenarios() []Scenario {
	hook := func(e *Env) (token, id string) {
		token = e.Token("test")
		return token, ID(e.CreateWebhook(token))
	}
	return []Scenario{
		// createWebhook
		{Name: "subscribed, with the signing secret", Op: "createWebhook", Status: 201,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"url": HookURL(), "events": []string{"shipment.purchased"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if s, _ := m["signingSecret"].(string); s == "" {
					return fmt.Errorf("no signingSecret")
				}
				return nil
			})},
		{Name: "URL already subscribed", Op: "createWebhook", Status: 409, Code: "duplicate_endpoint",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				u := HookURL()
				e.Want(e.Call("POST", "/webhooks", tok, map[string]any{"url": u, "events": []string{"*"}}), 201)
				return Request{Token: tok, Body: map[string]any{"url": u, "events": []string{"*"}}}
			}},
		{Name: "idempotency key reused with another body", Op: "createWebhook", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/webhooks", tok, map[string]any{"url": HookURL(), "events": []string{"*"}, "idempotencyKey": "hook-1"}), 201)
				return Request{Token: tok, Body: map[string]any{"url": HookURL(), "events": []string{"*"}, "idempotencyKey": "hook-1"}}
			}},
		{Name: "unknown event type", Op: "createWebhook", Status: 422, Code: "invalid_event_type",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"url": HookURL(), "events": []string{"shipment.teleported"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if k, _ := m["knownEvents"].([]any); len(k) == 0 {
					return fmt.Errorf("no knownEvents")
				}
				return nil
			})},
		{Name: "not an http(s) URL", Op: "createWebhook", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"url": "ftp://hooks.example.com/x", "events": []string{"*"}}}
			}},
		{Name: "26th subscription", Op: "createWebhook", Status: 422, Code: "subscription_limit",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				for range 25 {
					e.CreateWebhook(tok)
				}
				return Request{Token: tok, Body: map[string]any{"url": HookURL(), "events": []string{"*"}}}
			}},

		// listWebhooks
		{Name: "a page of subscriptions", Op: "listWebhooks", Status: 200,
			Request: func(e *Env) Request {
				tok, _ := hook(e)
				return Request{Token: tok}
			}},
		{Name: "limit 0", Op: "listWebhooks", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"limit": {"0"}}} }},

		// getWebhook
		{Name: "a subscription, without its secret", Op: "getWebhook", Status: 200,
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if _, ok := m["signingSecret"]; ok {
					return fmt.Errorf("signingSecret returned again")
				}
				return nil
			})},
		{Name: "test subscription with a live token", Op: "getWebhook", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				_, id := hook(e)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": id}}
			}},
		{Name: "deleted subscription", Op: "getWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok, id := hook(e)
				e.Want(e.Call("DELETE", "/webhooks/"+id, tok, nil), 204)
				return Request{Token: tok, Params: map[string]string{"id": id}}
			}},
		{Name: "another account's subscription", Op: "getWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				_, id := hook(e)
				_, other := e.TokenOn(e.NewAccount(true), "test", allScopes, 0)
				return Request{Token: other, Params: map[string]string{"id": id}}
			}},

		// updateWebhook
		{Name: "paused", Op: "updateWebhook", Status: 200,
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}, Body: map[string]any{"enabled": false, "description": nil}}
			},
			Check: wantField("enabled", false)},
		{Name: "test subscription with a live token", Op: "updateWebhook", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				_, id := hook(e)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": id}, Body: map[string]any{"enabled": false}}
			}},
		{Name: "no such subscription", Op: "updateWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: dummyParams, Body: map[string]any{"enabled": false}}
			}},
		{Name: "an id with NUL", Op: "updateWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: map[string]string{"id": "whk_\x00"}, Body: map[string]any{"enabled": false}}
			}},
		{Name: "NUL in the description", Op: "updateWebhook", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}, Body: map[string]any{"description": "a\x00b"}}
			},
			Check: wantField("field", "description")},
		{Name: "url is immutable", Op: "updateWebhook", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}, Body: map[string]any{"url": HookURL()}}
			}},
		{Name: "unknown event type", Op: "updateWebhook", Status: 422, Code: "invalid_event_type",
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}, Body: map[string]any{"events": []string{"nope"}}}
			}},

		// deleteWebhook
		{Name: "deleted", Op: "deleteWebhook", Status: 204,
			Request: func(e *Env) Request {
				tok, id := hook(e)
				return Request{Token: tok, Params: map[string]string{"id": id}}
			}},
		{Name: "test subscription with a live token", Op: "deleteWebhook", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				_, id := hook(e)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": id}}
			}},
		{Name: "deleted twice", Op: "deleteWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok, id := hook(e)
				e.Want(e.Call("DELETE", "/webhooks/"+id, tok, nil), 204)
				return Request{Token: tok, Params: map[string]string{"id": id}}
			}},
	}
}

func deliveryScenarios() []Scenario {
	// tested is a subscription to the receiver at path with one test delivery.
	tested := func(e *Env, path string) (token, hookID, deliveryID string) {
		token = e.Token("test")
		hk := e.Want(e.Call("POST", "/webhooks", token, map[string]any{"url": receiverURL(path), "events": []string{"*"}}), 201)
		d := e.Want(e.Call("POST", "/webhooks/"+ID(hk)+"/test", token, nil), 202)
		return token, ID(hk), ID(d)
	}
	return []Scenario{
		// testWebhook
		{Name: "test event queued", Op: "testWebhook", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				hk := e.Want(e.Call("POST", "/webhooks", tok, map[string]any{"url": receiverURL("/ok"), "events": []string{"*"}}), 201)
				return Request{Token: tok, Params: map[string]string{"id": ID(hk)}}
			},
			Check: wantField("eventType", "webhook.test")},
		{Name: "test subscription with a live token", Op: "testWebhook", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				hk := e.CreateWebhook(e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(hk)}}
			}},
		{Name: "no such subscription", Op: "testWebhook", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},

		// listWebhookDeliveries
		{Name: "the delivery log", Op: "listWebhookDeliveries", Status: 200,
			Request: func(e *Env) Request {
				tok, hk, _ := tested(e, "/ok")
				return Request{Token: tok, Params: map[string]string{"id": hk}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if n := len(m["data"].([]any)); n != 1 {
					return fmt.Errorf("%d deliveries, want the test delivery", n)
				}
				return nil
			})},
		{Name: "test subscription with a live token", Op: "listWebhookDeliveries", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				hk := e.CreateWebhook(e.Token("test"))
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(hk)}}
			}},
		{Name: "no such subscription", Op: "listWebhookDeliveries", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},
		{Name: "limit 0", Op: "listWebhookDeliveries", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: dummyParams, Query: url.Values{"limit": {"0"}}}
			}},

		// retryWebhookDelivery
		{Name: "redelivery queued", Op: "retryWebhookDelivery", Status: 202,
			Request: func(e *Env) Request {
				tok, hk, d := tested(e, "/ok")
				waitDelivered(e, tok, hk, d)
				return Request{Token: tok, Params: map[string]string{"id": hk, "deliveryId": d}}
			}},
		{Name: "test subscription with a live token", Op: "retryWebhookDelivery", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				_, hk, d := tested(e, "/ok")
				return Request{Token: e.Token("live"), Params: map[string]string{"id": hk, "deliveryId": d}}
			}},
		{Name: "no such delivery", Op: "retryWebhookDelivery", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				hk := e.CreateWebhook(tok)
				return Request{Token: tok, Params: map[string]string{"id": ID(hk), "deliveryId": dummyParams["deliveryId"]}}
			}},
		{Name: "manual attempt still in flight", Op: "retryWebhookDelivery", Status: 409, Code: "delivery_in_progress",
			Request: func(e *Env) Request {
				tok, hk, d := tested(e, "/slow")
				return Request{Token: tok, Params: map[string]string{"id": hk, "deliveryId": d}}
			}},
	}
}

// waitDelivered polls the delivery log until the delivery has an attempt.
func waitDelivered(e *Env, token, hookID, deliveryID string) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		list := e.Want(e.Call("GET", "/webhooks/"+hookID+"/deliveries", token, nil), 200)
		for _, item := range list["data"].([]any) {
			d := item.(map[string]any)
			if ID(d) == deliveryID && d["status"] != "pending" {
				return
			}
		}
		if time.Now().After(deadline) {
			e.Failf("delivery %s still pending after 20 s", deliveryID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func eventAndMetaScenarios() []Scenario {
	return []Scenario{
		{Name: "the event history", Op: "listEvents", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Purchased(tok)
				return Request{Token: tok, Query: url.Values{"type": {"shipment.purchased"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if n := len(m["data"].([]any)); n != 1 {
					return fmt.Errorf("%d shipment.purchased events, want 1", n)
				}
				return nil
			})},
		{Name: "limit 0", Op: "listEvents", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Query: url.Values{"limit": {"0"}}} }},
		{Name: "unknown event type filter", Op: "listEvents", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Query: url.Values{"type": {"shipment.teleported"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if m["field"] != "type" {
					return fmt.Errorf("field %v, want type", m["field"])
				}
				if k, _ := m["knownEvents"].([]any); len(k) == 0 {
					return fmt.Errorf("no knownEvents")
				}
				return nil
			})},
		{Name: "the contract, no token needed", Op: "getOpenAPIYAML", Status: 200,
			Request: func(e *Env) Request { return Request{} }},
		{Name: "the contract, no token needed", Op: "getOpenAPIJSON", Status: 200,
			Request: func(e *Env) Request { return Request{} }},
	}
}

// wantHeaders checks that the response sends each header.
func wantHeaders(names ...string) func(*Exchange) error {
	return func(x *Exchange) error {
		var missing []string
		for _, n := range names {
			if x.Header.Get(n) == "" {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("missing headers %s", strings.Join(missing, ", "))
		}
		return nil
	}
}

// wantNoHeader checks that the response does not send a header (no
// Retry-After where waiting does not help).
func wantNoHeader(name string) func(*Exchange) error {
	return func(x *Exchange) error {
		if v := x.Header.Get(name); v != "" {
			return fmt.Errorf("%s = %q, want none", name, v)
		}
		return nil
	}
}

// wantHeaderValue checks one header's value.
func wantHeaderValue(name, want string) func(*Exchange) error {
	return func(x *Exchange) error {
		if got := x.Header.Get(name); got != want {
			return fmt.Errorf("%s = %q, want %q", name, got, want)
		}
		return nil
	}
}

// wantUnknownField checks the 422 invalid_field of a field the contract does
// not have: the field's path, and the closest documented one ("" for none).
func wantUnknownField(field, suggestion string) func(*Exchange) error {
	return wantJSON(func(m map[string]any) error {
		want := field + " is not a field of this request"
		if suggestion != "" {
			want += "; did you mean " + suggestion + "?"
		}
		if m["field"] != field || m["error"] != want {
			return fmt.Errorf("field %v, error %q; want field %s, error %q", m["field"], m["error"], field, want)
		}
		return nil
	})
}

// wantJSON applies check to the body decoded as an object.
func wantJSON(check func(map[string]any) error) func(*Exchange) error {
	return func(x *Exchange) error {
		m, err := x.Object()
		if err != nil {
			return err
		}
		return check(m)
	}
}

// wantField checks one top-level field of the body.
func wantField(name string, want any) func(*Exchange) error {
	return wantJSON(func(m map[string]any) error {
		if got := m[name]; got != want {
			return fmt.Errorf("%s = %v, want %v", name, got, want)
		}
		return nil
	})
}

// completedBatch creates a batch of the given shipments and waits until it completes.
func completedBatch(e *Env, tok string, items ...map[string]any) string {
	return completedBatchIn(e, tok, "pdf", items...)
}

// completedBatchIn is completedBatch of labels in format.
func completedBatchIn(e *Env, tok, format string, items ...map[string]any) string {
	body := Batch(items...)
	body["labelFormat"] = format
	b := e.Want(e.Call("POST", "/batches", tok, body), 202)
	id := ID(b)
	deadline := time.Now().Add(30 * time.Second)
	for e.Want(e.Call("GET", "/batches/"+id, tok, nil), 200)["status"] != "completed" {
		if time.Now().After(deadline) {
			e.Failf("batch %s did not complete", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return id
}

func batchScenarios() []Scenario {
	batchParams := map[string]string{"id": "bat_contract0000000000000000"}
	return []Scenario{
		// createBatch
		{Name: "batch accepted", Op: "createBatch", Status: 202,
			Request: func(e *Env) Request {
				body := Batch(Shipment("Ada Lovelace"), Shipment("Grace Hopper"))
				body["labelFormat"] = "zpl"
				return Request{Token: e.Token("test"), Body: body}
			},
			Check: wantField("status", "purchasing")},
		{Name: "retry with the same key is replayed", Op: "createBatch", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := With(Batch(Shipment("Ada Lovelace")), "idempotencyKey", "morning-1")
				e.Want(e.Call("POST", "/batches", tok, body), 202)
				return Request{Token: tok, Body: body}
			},
			Check: wantHeaderValue("Idempotent-Replayed", "true")},
		{Name: "account without payment method", Op: "createBatch", Status: 402, Code: "no_payment_method",
			Request: func(e *Env) Request {
				_, tok := e.TokenOn(e.NewAccount(false), "test", allScopes, 0)
				return Request{Token: tok, Body: Batch(Shipment("Ada Lovelace"))}
			}},
		{Name: "idempotency key reused with another body", Op: "createBatch", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/batches", tok, With(Batch(Shipment("Ada Lovelace")), "idempotencyKey", "morning-2")), 202)
				return Request{Token: tok, Body: With(Batch(Shipment("Grace Hopper")), "idempotencyKey", "morning-2")}
			}},
		{Name: "an item without rates", Op: "createBatch", Status: 422, Code: "invalid_request",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: Batch(Shipment("Ada Lovelace"), With(Shipment("Ada Lovelace"), "toAddress.zip", "00000"))}
			},
			Check: wantJSON(func(m map[string]any) error {
				issues, _ := m["issues"].([]any)
				if len(issues) != 1 || issues[0].(map[string]any)["path"] != "shipments.1" {
					return fmt.Errorf("issues %v, want one at shipments.1", issues)
				}
				return nil
			})},
		{Name: "live mode has no carriers", Op: "createBatch", Status: 500, Code: "carrier_not_configured",
			Request: func(e *Env) Request { return Request{Token: e.Token("live"), Body: Batch(Shipment("Ada Lovelace"))} }},
		{Name: "sandbox Carrier Error", Op: "createBatch", Status: 502, Code: "carrier_error",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Batch(Shipment("Carrier Error"))} }},
		{Name: "sandbox Carriers Unreachable", Op: "createBatch", Status: 502, Code: "carrier_unreachable",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: Batch(Shipment("Carriers Unreachable"))}
			},
			Check: wantNoHeader("Retry-After")},
		{Name: "sandbox Carriers Down", Op: "createBatch", Status: 503, Code: "carrier_unavailable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Batch(Shipment("Carriers Down"))} },
			Check:   wantHeaders("Retry-After")},

		// listBatches
		{Name: "a page of batches", Op: "listBatches", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/batches", tok, Batch(Shipment("Ada Lovelace"))), 202)
				return Request{Token: tok}
			}},
		{Name: "limit 0", Op: "listBatches", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Query: url.Values{"limit": {"0"}}}
			}},

		// getBatch
		{Name: "a completed batch", Op: "getBatch", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatch(e, tok, Shipment("Ada Lovelace"), Shipment("Fail Purchase"))}}
			},
			Check: wantField("status", "completed")},
		{Name: "test batch with a live token", Op: "getBatch", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				b := e.Want(e.Call("POST", "/batches", e.Token("test"), Batch(Shipment("Ada Lovelace"))), 202)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "no such batch", Op: "getBatch", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: batchParams} }},

		// listBatchShipments
		{Name: "the batch's shipments", Op: "listBatchShipments", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				b := e.Want(e.Call("POST", "/batches", tok, Batch(Shipment("Ada Lovelace"), Shipment("Grace Hopper"))), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "test batch with a live token", Op: "listBatchShipments", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				b := e.Want(e.Call("POST", "/batches", e.Token("test"), Batch(Shipment("Ada Lovelace"))), 202)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "no such batch", Op: "listBatchShipments", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: batchParams} }},
		{Name: "limit 0", Op: "listBatchShipments", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Params: batchParams, Query: url.Values{"limit": {"0"}}}
			}},

		// getBatchLabelsPDF
		{Name: "the merged labels", Op: "getBatchLabelsPDF", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatch(e, tok, Shipment("Ada Lovelace"), Shipment("Grace Hopper"))}}
			},
			Check: func(x *Exchange) error {
				if !strings.HasPrefix(string(x.Body), "%PDF-") || strings.Count(string(x.Body), "/Type /Page ") != 2 {
					return fmt.Errorf("not a PDF of two pages: %q", truncate(x.Body, 40))
				}
				return nil
			}},
		{Name: "Slow Carrier still paying", Op: "getBatchLabelsPDF", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				b := e.Want(e.Call("POST", "/batches", tok, Batch(Shipment("Slow Carrier"))), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(b)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test batch with a live token", Op: "getBatchLabelsPDF", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				b := e.Want(e.Call("POST", "/batches", e.Token("test"), Batch(Shipment("Ada Lovelace"))), 202)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "no such batch", Op: "getBatchLabelsPDF", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: batchParams} }},
		{Name: "a ZPL batch's labels as one PDF", Op: "getBatchLabelsPDF", Status: 409, Code: "label_format_mismatch",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatchIn(e, tok, "zpl", Shipment("Ada Lovelace"))}}
			}},
		{Name: "every item failed", Op: "getBatchLabelsPDF", Status: 409, Code: "batch_has_no_labels",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatch(e, tok, Shipment("Fail Purchase"))}}
			}},

		// getBatchLabelsZPL
		{Name: "the labels as one ZPL stream", Op: "getBatchLabelsZPL", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatchIn(e, tok, "zpl", Shipment("Ada Lovelace"), Shipment("Grace Hopper"))}}
			},
			Check: func(x *Exchange) error {
				if n := strings.Count(string(x.Body), "^XA"); n != 2 {
					return fmt.Errorf("%d ZPL labels, want 2: %q", n, truncate(x.Body, 40))
				}
				return nil
			}},
		{Name: "Slow Carrier still paying", Op: "getBatchLabelsZPL", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := Batch(Shipment("Slow Carrier"))
				body["labelFormat"] = "zpl"
				b := e.Want(e.Call("POST", "/batches", tok, body), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(b)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test batch with a live token", Op: "getBatchLabelsZPL", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				b := e.Want(e.Call("POST", "/batches", e.Token("test"), Batch(Shipment("Ada Lovelace"))), 202)
				return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(b)}}
			}},
		{Name: "no such batch", Op: "getBatchLabelsZPL", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: batchParams} }},
		{Name: "a PDF batch's labels as ZPL", Op: "getBatchLabelsZPL", Status: 409, Code: "label_format_mismatch",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatch(e, tok, Shipment("Ada Lovelace"))}}
			}},
		{Name: "every item failed", Op: "getBatchLabelsZPL", Status: 409, Code: "batch_has_no_labels",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": completedBatchIn(e, tok, "zpl", Shipment("Fail Purchase"))}}
			}},
	}
}
