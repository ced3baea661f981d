package contracttest

import (
	"fmt"
	"net/url"
	"time"
)

// pickupDay is the first Monday at least two days from now, 09:00 in New
// York, the pickup address's zone (whose offset readyAt must carry): a
// pickup day every carrier takes.
func pickupDay() time.Time {
	est, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(err)
	}
	d := time.Now().In(est).AddDate(0, 0, 2)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, est)
}

// Pickup is a valid POST /pickups body; instructions may name a sandbox trigger.
func Pickup(instructions string) map[string]any {
	day := pickupDay()
	addr := Address()
	addr["phone"] = "212 555 0100"
	m := map[string]any{"carrier": "USPS", "address": addr,
		"readyAt": day.Format(time.RFC3339), "closeAt": day.Add(8 * time.Hour).Format(time.RFC3339)}
	if instructions != "" {
		m["instructions"] = instructions
	}
	return m
}

// pickupScenarios cover POST /pickups, GET /pickups, GET /pickups/{id} and
// POST /pickups/{id}/cancel: each documented status and code.
func pickupScenarios() []Scenario {
	scheduled := func(e *Env, tok, instructions string) string {
		return ID(e.Want(e.Call("POST", "/pickups", tok, Pickup(instructions)), 201))
	}
	withID := func(tok, id string) Request { return Request{Token: tok, Params: map[string]string{"id": id}} }
	return []Scenario{
		// createPickup
		{Name: "a pickup confirmed by the carrier", Op: "createPickup", Status: 201,
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Pickup("Side door")} },
			Check: wantJSON(func(m map[string]any) error {
				if m["status"] != "scheduled" || m["confirmationNumber"] == nil {
					return fmt.Errorf("status %v, confirmationNumber %v; want scheduled with a number", m["status"], m["confirmationNumber"])
				}
				return nil
			})},
		{Name: "retry with the same key is replayed", Op: "createPickup", Status: 201,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := With(Pickup(""), "idempotencyKey", "pck-1")
				e.Want(e.Call("POST", "/pickups", tok, body), 201)
				return Request{Token: tok, Body: body}
			},
			Check: wantHeaderValue("Idempotent-Replayed", "true")},
		{Name: "idempotency key reused with another body", Op: "createPickup", Status: 409, Code: "idempotency_key_collision",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				e.Want(e.Call("POST", "/pickups", tok, With(Pickup(""), "idempotencyKey", "pck-1")), 201)
				return Request{Token: tok, Body: With(Pickup("Front desk"), "idempotencyKey", "pck-1")}
			}},
		{Name: "a Sunday", Op: "createPickup", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				sunday := pickupDay().AddDate(0, 0, -1)
				body := With(With(Pickup(""), "readyAt", sunday.Format(time.RFC3339)), "closeAt", sunday.Add(time.Hour).Format(time.RFC3339))
				return Request{Token: e.Token("test"), Body: body}
			},
			Check: wantField("field", "readyAt")},
		{Name: "a carrier account in test mode", Op: "createPickup", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: With(Pickup(""), "carrierAccountId", "ca_4f3e2d1c0b9a8f7e6d5c4b3a")}
			},
			Check: wantField("field", "carrierAccountId")},
		{Name: "the carrier refuses", Op: "createPickup", Status: 422, Code: "carrier_rejected",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Pickup("Pickup Rejected")} }},
		{Name: "the carrier fails", Op: "createPickup", Status: 502, Code: "carrier_error",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Pickup("Pickup Error")} }},
		{Name: "the carrier is down", Op: "createPickup", Status: 503, Code: "carrier_unavailable",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: Pickup("Pickup Unavailable")} },
			Check:   wantHeaders("Retry-After")},

		// listPickups
		{Name: "a page of pickups", Op: "listPickups", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				scheduled(e, tok, "")
				scheduled(e, tok, "")
				return Request{Token: tok, Query: url.Values{"limit": {"1"}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if data, _ := m["data"].([]any); len(data) != 1 || m["nextCursor"] == nil {
					return fmt.Errorf("want one pickup and a nextCursor: %v", m)
				}
				return nil
			})},
		{Name: "a cursor of another list", Op: "listPickups", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Query: url.Values{"cursor": {"not-a-cursor"}}}
			},
			Check: wantField("field", "cursor")},

		// getPickup
		{Name: "a pickup", Op: "getPickup", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return withID(tok, scheduled(e, tok, ""))
			}},
		{Name: "no such pickup", Op: "getPickup", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return withID(e.Token("test"), "pck_contract0000000000000000") }},

		// cancelPickup
		{Name: "a scheduled pickup", Op: "cancelPickup", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return withID(tok, scheduled(e, tok, ""))
			},
			Check: wantField("status", "cancelled")},
		{Name: "no such pickup", Op: "cancelPickup", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return withID(e.Token("test"), "pck_contract0000000000000000") }},
		{Name: "cancelled before", Op: "cancelPickup", Status: 409, Code: "already_cancelled",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				id := scheduled(e, tok, "")
				e.Want(e.Call("POST", "/pickups/"+id+"/cancel", tok, nil), 200)
				return withID(tok, id)
			}},
		{Name: "the carrier refuses", Op: "cancelPickup", Status: 422, Code: "carrier_rejected",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return withID(tok, scheduled(e, tok, "Cancel Rejected"))
			}},
		{Name: "the carrier fails", Op: "cancelPickup", Status: 502, Code: "carrier_error",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return withID(tok, scheduled(e, tok, "Cancel Error"))
			}},
		{Name: "the carrier is down", Op: "cancelPickup", Status: 503, Code: "carrier_unavailable",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return withID(tok, scheduled(e, tok, "Cancel Unavailable"))
			},
			Check: wantHeaders("Retry-After")},
	}
}
