package contracttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/webhooks"
)

// eventKind is an event's type and the kind of resource its data is.
type eventKind struct{ Type, Object string }

func (k eventKind) String() string {
	if k.Object == "" {
		return k.Type
	}
	return k.Type + " (" + k.Object + ")"
}

// TestEveryEventMatchesTheContract makes the server emit every event type
// from the flows that emit them (a purchase tracked to delivery, a refund,
// a failed purchase, a refused void, a tracking exception, a return to
// sender, a batch, a manifest made and one refused, a standalone tracker,
// a test event), then checks each event twice against the contract: as
// GET /events lists it (EventRecord, one member per type) and as its
// webhook delivery's body (Event, the callback's request body). Every type
// of webhooks.EventTypes must be seen, and tracker.updated with both kinds
// of data.
func TestEveryEventMatchesTheContract(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	doc, err := loadContract("")
	if err != nil {
		t.Fatal(err)
	}
	eventSchema := doc.Components.Schemas["Event"].Value

	want := []eventKind{{webhooks.EventTest, ""}}
	for _, typ := range webhooks.EventTypes() {
		switch {
		case typ == webhooks.EventTrackerUpdated:
			want = append(want, eventKind{typ, "shipment"}, eventKind{typ, "tracker"})
		case strings.HasPrefix(typ, "shipment."):
			want = append(want, eventKind{typ, "shipment"})
		case typ == webhooks.EventBatchCompleted:
			want = append(want, eventKind{typ, "batch"})
		case strings.HasPrefix(typ, "manifest."):
			want = append(want, eventKind{typ, "manifest"})
		default:
			t.Fatalf("event type %s: this test does not know what its data is; add it and a flow that emits it", typ)
		}
	}

	env := newEnv(ctx, suite.target)
	hook := receiverURL("/capture")
	var tok string
	setup(t, func() {
		tok = env.Token("test")
		sub := env.Want(env.Call("POST", "/webhooks", tok, map[string]any{"url": hook, "events": []string{"*"}}), 201)
		env.Want(env.Call("POST", "/webhooks/"+ID(sub)+"/test", tok, nil), 202)
		emitEveryEvent(env, tok)
	})

	// The history, page by page, until every kind is there.
	var listed map[eventKind]bool
	deadline := time.Now().Add(90 * time.Second)
	for {
		listed = map[eventKind]bool{}
		cursor := ""
		for {
			x := env.Call("GET", "/events?limit=100"+cursor, tok, nil)
			if problems := suite.target.checker.check(ctx, "listEvents", x.Request, x.Status, x.Header, x.Body); len(problems) > 0 {
				t.Fatalf("GET /events: %s", strings.Join(problems, "; "))
			}
			var page struct {
				Data       []eventEnvelope `json:"data"`
				NextCursor *string         `json:"nextCursor"`
			}
			if err := x.JSON(&page); err != nil {
				t.Fatal(err)
			}
			for _, ev := range page.Data {
				listed[ev.kind()] = true
			}
			if page.NextCursor == nil {
				break
			}
			cursor = "&cursor=" + url.QueryEscape(*page.NextCursor)
		}
		if missing := missingKinds(want, listed, webhooks.EventTest); len(missing) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("GET /events never listed %v", missing)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The deliveries, each body against the contract's Event.
	var seen map[eventKind]bool
	for {
		seen = map[eventKind]bool{}
		for _, d := range deliveriesTo(hook) {
			var ev eventEnvelope
			if err := json.Unmarshal(d.Body, &ev); err != nil {
				t.Fatalf("a delivery is not JSON: %v: %s", err, truncate(d.Body, 300))
			}
			var value any
			if err := json.Unmarshal(d.Body, &value); err != nil {
				t.Fatal(err)
			}
			if err := eventSchema.VisitJSON(value, openapi3.MultiErrors()); err != nil {
				t.Errorf("the delivery of %s %s does not match Event: %s", ev.kind(), ev.ID, describeValidation(err))
			}
			if got := d.Header.Get("X-Service-Event"); got != ev.Type {
				t.Errorf("X-Service-Event %q on a %s delivery", got, ev.Type)
			}
			seen[ev.kind()] = true
		}
		if missing := missingKinds(want, seen, ""); len(missing) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no delivery of %v", missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventEnvelope is what the test reads of an event to know its kind.
type eventEnvelope struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Object string `json:"object"`
	} `json:"data"`
}

func (ev eventEnvelope) kind() eventKind { return eventKind{ev.Type, ev.Data.Object} }

// missingKinds are the kinds of want not in got, but for the types skipped.
func missingKinds(want []eventKind, got map[eventKind]bool, skipped string) []string {
	var out []string
	for _, k := range want {
		if k.Type != skipped && !got[k] {
			out = append(out, k.String())
		}
	}
	sort.Strings(out)
	return out
}

// setup runs Env helpers outside a scenario: a setup failure fails t.
func setup(t *testing.T, fn func()) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			sf, ok := v.(setupFailure)
			if !ok {
				panic(v)
			}
			t.Fatalf("setup: %v", sf.err)
		}
	}()
	fn()
}

// emitEveryEvent runs the flows that emit every event type of the
// account: the events come as the jobs and the sandbox's scans run.
func emitEveryEvent(e *Env, tok string) {
	// shipment.purchased, then tracker.updated (the shipment) to
	// shipment.delivered.
	e.Purchased(tok)
	// shipment.failed
	e.CreateShipment(tok, Shipment("Fail Purchase"))
	// shipment.exception and shipment.return_to_sender, as tracking ends.
	e.CreateShipment(tok, Shipment("Tracking Exception"))
	e.CreateShipment(tok, Shipment("Return To Sender"))
	// shipment.voided and shipment.void_rejected: a refund before the
	// carrier's first scan (200 ms after the purchase in process; a label
	// scanned first is bought again).
	for _, toName := range []string{"Ada Lovelace", "Void Rejected"} {
		for try := 1; ; try++ {
			sh := e.WaitStatus(tok, ID(e.CreateShipment(tok, Shipment(toName))), "purchased")
			x := e.Call("POST", "/labels/"+ID(sh)+"/refund", tok, nil)
			if x.Status == 202 {
				break
			}
			if try == 5 {
				e.Failf("refund of a label to %s: %d %s", toName, x.Status, truncate(x.Body, 300))
			}
		}
	}
	// batch.completed
	e.Want(e.Call("POST", "/batches", tok, map[string]any{"shipments": []any{Shipment("Ada Lovelace")}}), 202)
	// manifest.created, then manifest.failed (the carrier refuses the
	// origin named Manifest Rejected).
	for _, fromName := range []string{"Shop", "Manifest Rejected"} {
		body := With(With(With(Shipment("Ada Lovelace"), "carrier", "USPS"), "service", "Priority"), "fromAddress.name", fromName)
		id := ID(e.WaitStatus(tok, ID(e.CreateShipment(tok, body)), "purchased"))
		e.Want(e.Call("POST", "/manifests", tok, map[string]any{"carrier": "USPS", "shipmentIds": []string{id}}), 202)
	}
	// tracker.updated (the tracker)
	e.Want(e.Call("POST", "/trackers", tok, map[string]any{"trackingNumber": fmt.Sprintf("1Z999AA1%010d", time.Now().UnixNano()%1e10)}), 201)
}

// TestEventTypesAreTheContracts: the contract names every event type the
// server has, in EventType's known values and in the discriminator
// mappings of Event (deliveries, webhook.test too) and EventRecord (the
// history), and no other.
func TestEventTypesAreTheContracts(t *testing.T) {
	t.Parallel()
	doc, err := loadContract("")
	if err != nil {
		t.Fatal(err)
	}
	delivered := append(webhooks.EventTypes(), webhooks.EventTest)
	sort.Strings(delivered)
	listed := webhooks.EventTypes()
	sort.Strings(listed)
	mapped := func(schema string) []string {
		var out []string
		for typ := range doc.Components.Schemas[schema].Value.Discriminator.Mapping {
			out = append(out, typ)
		}
		sort.Strings(out)
		return out
	}
	var known []string
	for _, v := range doc.Components.Schemas["EventType"].Value.Extensions["x-extensible-enum"].([]any) {
		known = append(known, v.(string))
	}
	sort.Strings(known)
	for _, c := range []struct {
		what      string
		want, got []string
	}{
		{"EventType's x-extensible-enum", delivered, known},
		{"Event's discriminator mapping", delivered, mapped("Event")},
		{"EventRecord's discriminator mapping", listed, mapped("EventRecord")},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-server +contract):\n%s", c.what, diff)
		}
	}
}
