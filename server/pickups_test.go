package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/internal/fakeclock"
)

type pickupDoc struct {
	ID                 string         `json:"id"`
	Mode               string         `json:"mode"`
	Carrier            string         `json:"carrier"`
	Status             string         `json:"status"`
	ConfirmationNumber *string        `json:"confirmationNumber"`
	Address            map[string]any `json:"address"`
	ReadyAt            string         `json:"readyAt"`
	CloseAt            string         `json:"closeAt"`
	PackageCount       int            `json:"packageCount"`
	ShipmentIDs        []string       `json:"shipmentIds"`
	Instructions       string         `json:"instructions"`
	CancelledAt        *time.Time     `json:"cancelledAt"`
	CarrierAccountID   *string        `json:"carrierAccountId"`
}

// pickupDay is the first Monday at least two days after now, at 09:00 in
// New York (the pickup address's zone, whose offset readyAt must carry): a
// day every carrier picks up, in the future.
func pickupDay(now time.Time) time.Time {
	ny := newYork()
	d := now.In(ny).AddDate(0, 0, 2)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, ny)
}

// newYork is the zone of the pickup address of pickupBody (the binary
// embeds the zone database, so it loads everywhere).
func newYork() *time.Location {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(err)
	}
	return ny
}

// pickupBody is a valid POST /pickups body on day; mods change it.
func pickupBody(day time.Time, mods ...func(m map[string]any)) map[string]any {
	addr := validAddress()
	addr["phone"] = "212 555 0100"
	m := map[string]any{"carrier": "USPS", "address": addr,
		"readyAt": day.Format(time.RFC3339), "closeAt": day.Add(8 * time.Hour).Format(time.RFC3339)}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

func TestPickupScheduleAndCancel(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	sh := createLabel(t, b, b.token, labelBody(withField("carrier", "USPS")))
	waitForStatus(t, b, b.token, sh.ID, "purchased")

	r := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("shipmentIds", []string{sh.ID}),
		withField("instructions", "Side door"), withField("idempotencyKey", "pickup-1")))
	wantStatus(t, r, http.StatusCreated)
	var p pickupDoc
	r.Decode(t, &p)
	if !strings.HasPrefix(p.ID, "pck_") || p.ConfirmationNumber == nil || !strings.HasPrefix(*p.ConfirmationNumber, "WTC") {
		t.Fatalf("pickup %+v: want a pck_ id and a USPS-style confirmation number", p)
	}
	want := pickupDoc{ID: p.ID, Mode: "test", Carrier: "USPS", Status: "scheduled", ConfirmationNumber: p.ConfirmationNumber,
		Address: p.Address, ReadyAt: day.Format(time.RFC3339), CloseAt: day.Add(8 * time.Hour).Format(time.RFC3339),
		PackageCount: 1, ShipmentIDs: []string{sh.ID}, Instructions: "Side door"}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("created pickup (-want +got):\n%s", diff)
	}

	// The same key and body: the original answer, replayed.
	again := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("shipmentIds", []string{sh.ID}),
		withField("instructions", "Side door"), withField("idempotencyKey", "pickup-1")))
	wantStatus(t, again, http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(r.Body) {
		t.Errorf("retry: replayed %q, body %s; want the original", again.Header.Get("Idempotent-Replayed"), again.Body)
	}

	var got pickupDoc
	b.do("GET", "/api/v1/pickups/"+p.ID, b.token, nil).Decode(t, &got)
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("GET (-created +got):\n%s", diff)
	}
	var list struct {
		Data       []pickupDoc `json:"data"`
		NextCursor *string     `json:"nextCursor"`
	}
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != p.ID || list.NextCursor != nil {
		t.Errorf("list: %+v, want the one pickup", list)
	}

	_, live := b.newToken(b.account.ID, "live", allScopes...)
	wantError(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusForbidden, "wrong_mode")

	c := b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", b.token, nil)
	wantStatus(t, c, http.StatusOK)
	var cancelled pickupDoc
	c.Decode(t, &cancelled)
	if cancelled.Status != "cancelled" || cancelled.CancelledAt == nil {
		t.Errorf("cancelled: %+v", cancelled)
	}
	wantError(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", b.token, nil), http.StatusConflict, "already_cancelled")
	wantError(t, b.do("GET", "/api/v1/pickups/pck_missing", b.token, nil), http.StatusNotFound, "not_found")
}

func TestPickupRules(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	other := createLabel(t, b, b.token, labelBody(withField("carrier", "UPS")))
	waitForStatus(t, b, b.token, other.ID, "purchased")
	sunday := day.AddDate(0, 0, -1)
	for _, tc := range []struct {
		name, field, message string
		body                 map[string]any
	}{
		{"a Sunday", "readyAt", "is a Sunday", pickupBody(sunday, withField("closeAt", sunday.Add(time.Hour).Format(time.RFC3339)))},
		{"closeAt before readyAt", "closeAt", "must be after readyAt", pickupBody(day, withField("closeAt", day.Add(-time.Hour).Format(time.RFC3339)))},
		{"closeAt another day", "closeAt", "same day", pickupBody(day, withField("closeAt", day.Add(26*time.Hour).Format(time.RFC3339)))},
		{"in the past", "closeAt", "in the past", pickupBody(day.AddDate(0, 0, -14))},
		{"too far ahead", "readyAt", "days ahead", pickupBody(day.AddDate(0, 0, 21))},
		{"no phone", "address.phone", "phone", pickupBody(day, func(m map[string]any) { delete(m["address"].(map[string]any), "phone") })},
		{"another carrier's label", "shipmentIds.0", "is a UPS label", pickupBody(day, withField("shipmentIds", []string{other.ID}))},
		{"no such label", "shipmentIds.0", "not a label of this account", pickupBody(day, withField("shipmentIds", []string{"shp_nope"}))},
		{"an unknown carrier", "carrier", "not a carrier", pickupBody(day, withField("carrier", "DHL"))},
		{"packageCount over the bound", "packageCount", "", pickupBody(day, withField("packageCount", 1000))},
		{"readyAt not RFC 3339", "readyAt", "", pickupBody(day, withField("readyAt", "tomorrow 9am"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.doT(t, "POST", "/api/v1/pickups", b.token, tc.body)
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422: %s", r.Status, r.Body)
			}
			m := r.JSON(t)
			if m["field"] != tc.field || !strings.Contains(m["error"].(string), tc.message) {
				t.Errorf("body %s; want field %s and a message with %q", r.Body, tc.field, tc.message)
			}
		})
	}
	// Nothing was scheduled by any of them.
	var list struct{ Data []pickupDoc }
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("pickups after refusals: %+v", list.Data)
	}
}

func TestPickupCarrierFailures(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	day := pickupDay(b.clock.Now())
	m := wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("instructions", "Pickup Rejected"))),
		http.StatusUnprocessableEntity, "carrier_rejected")
	if !strings.Contains(m["error"].(string), "no pickup service at this address") || m["carrierErrors"] == nil {
		t.Errorf("carrier_rejected without the carrier's message: %v", m)
	}
	r := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("instructions", "Pickup Unavailable"), withField("idempotencyKey", "k")))
	wantError(t, r, http.StatusServiceUnavailable, "carrier_unavailable")
	if r.Header.Get("Retry-After") != "30" {
		t.Errorf("Retry-After %q, want 30", r.Header.Get("Retry-After"))
	}
	var list struct{ Data []pickupDoc }
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("a refused or unavailable pickup is kept: %+v", list.Data)
	}

	// A failure of unknown outcome keeps the row, visible as requesting.
	wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("instructions", "Pickup Error"))), http.StatusBadGateway, "carrier_error")
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].Status != "requesting" || list.Data[0].ConfirmationNumber != nil {
		t.Fatalf("after a carrier error: %+v, want one requesting pickup", list.Data)
	}
	wantError(t, b.do("POST", "/api/v1/pickups/"+list.Data[0].ID+"/cancel", b.token, nil), http.StatusConflict, "ineligible_state")

	p := b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("instructions", "Cancel Unavailable")))
	wantStatus(t, p, http.StatusCreated)
	var doc pickupDoc
	p.Decode(t, &doc)
	wantError(t, b.do("POST", "/api/v1/pickups/"+doc.ID+"/cancel", b.token, nil), http.StatusServiceUnavailable, "carrier_unavailable")
	var still pickupDoc
	b.do("GET", "/api/v1/pickups/"+doc.ID, b.token, nil).Decode(t, &still)
	if still.Status != "scheduled" {
		t.Errorf("after an unavailable cancel: %s, want scheduled", still.Status)
	}
}

// lostAnswer schedules pickups with the carrier it wraps but reports the
// first call as failed, as when the answer is lost on its way (a time-out,
// the server stopping): the carrier has the pickup, shipd has no answer.
type lostAnswer struct {
	carriers.Carrier
	// first is the first call's error; nil: a failure without a status.
	first      error
	calls      atomic.Int32
	references []string
	mu         sync.Mutex
}

func (l *lostAnswer) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	pc, err := l.Carrier.SchedulePickup(ctx, req)
	l.mu.Lock()
	l.references = append(l.references, req.Reference)
	l.mu.Unlock()
	if l.calls.Add(1) == 1 {
		if l.first != nil {
			return carriers.PickupConfirmation{}, l.first
		}
		return carriers.PickupConfirmation{}, &carriers.Error{Carrier: l.Name(), Operation: "schedule_pickup", Message: "answer lost", Kind: carriers.ErrFailed}
	}
	return pc, err
}

// A pickup whose carrier answer was lost stays visible as requesting. USPS
// cannot be asked whether it booked it (no search of pickups), so a retry
// under the same idempotency key does not ask it again, which could send a
// second driver: 409 ineligible_state saying so, the pickup still
// requesting, the carrier called once.
func TestPickupLostAnswerNotAskedAgain(t *testing.T) {
	t.Parallel()
	cs := sandbox.New(sandbox.Config{})
	lost := &lostAnswer{Carrier: cs[0]} // USPS
	b := setupLabels(t, withCarriers([]carriers.Carrier{lost, cs[1], cs[2]}, nil))
	body := pickupBody(pickupDay(b.clock.Now()), withField("idempotencyKey", "lost-1"))

	wantError(t, b.do("POST", "/api/v1/pickups", b.token, body), http.StatusBadGateway, "carrier_error")
	var list struct{ Data []pickupDoc }
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].Status != "requesting" {
		t.Fatalf("after the lost answer: %+v, want one requesting pickup", list.Data)
	}
	first := list.Data[0].ID

	m := wantError(t, b.do("POST", "/api/v1/pickups", b.token, body), http.StatusConflict, "ineligible_state")
	if msg := m["error"].(string); !strings.Contains(msg, first) || !strings.Contains(msg, "no search of pickups") {
		t.Errorf("the refusal does not say why: %s", msg)
	}
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != first || list.Data[0].Status != "requesting" {
		t.Errorf("pickups after the retry: %+v, want %s still requesting", list.Data, first)
	}
	lost.mu.Lock()
	defer lost.mu.Unlock()
	if diff := cmp.Diff([]string{first}, lost.references); diff != "" {
		t.Errorf("references sent to the carrier (-want +got):\n%s", diff)
	}
}

// nearPickupClocks is a clock for the server and one for the sandbox
// carriers, both at now or, when tomorrow is a Sunday, a day later, and
// the day after them at 09:00 in New York: a day the carriers pick up,
// which UPS's pending pickups list.
func nearPickupClocks() (*fakeclock.Clock, *fakeclock.Clock, time.Time) {
	est := newYork()
	now := time.Now().UTC()
	if now.In(est).AddDate(0, 0, 1).Weekday() == time.Sunday {
		now = now.AddDate(0, 0, 1)
	}
	d := now.In(est).AddDate(0, 0, 1)
	return fakeclock.New(now), fakeclock.New(now), time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, est)
}

// UPS lists its pending pickups: a retry under the same key finds the one
// the lost request booked, by its reference, and adopts it (201, the
// carrier's confirmation, the adoption audited) instead of booking a
// second; a pickup it cannot list (after tomorrow) is refused as USPS's.
func TestPickupLostAnswerAdoptedWhereTheCarrierLists(t *testing.T) {
	t.Parallel()
	serverClock, carrierClock, day := nearPickupClocks()
	cs := sandbox.New(sandbox.Config{Now: carrierClock.Now})
	lost := &lostAnswer{Carrier: cs[1]} // UPS
	b := setupLabels(t, withCarriers([]carriers.Carrier{cs[0], lost, cs[2]}, nil), func(c *app.Config) { c.Now = serverClock.Now })
	body := pickupBody(day, withField("carrier", "UPS"), withField("idempotencyKey", "lost-ups"))

	wantError(t, b.do("POST", "/api/v1/pickups", b.token, body), http.StatusBadGateway, "carrier_error")
	var list struct{ Data []pickupDoc }
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].Status != "requesting" {
		t.Fatalf("after the lost answer: %+v, want one requesting pickup", list.Data)
	}
	first := list.Data[0].ID

	r := b.do("POST", "/api/v1/pickups", b.token, body)
	wantStatus(t, r, http.StatusCreated)
	var p pickupDoc
	r.Decode(t, &p)
	booked, _ := cs[1].SchedulePickup(context.Background(), carriers.PickupRequest{Reference: first, ReadyAt: day, CloseAt: day.Add(8 * time.Hour)})
	if p.ID != first || p.Status != "scheduled" || p.ConfirmationNumber == nil || *p.ConfirmationNumber != booked.ConfirmationNumber {
		t.Errorf("retry: %+v, want %s scheduled with the confirmation the lost answer carried, %s", p, first, booked.ConfirmationNumber)
	}
	lost.mu.Lock()
	if diff := cmp.Diff([]string{first}, lost.references); diff != "" {
		t.Errorf("schedules sent to the carrier (-want +got):\n%s", diff)
	}
	lost.mu.Unlock()
	entries, _, err := b.store.ListAudit(context.Background(), b.account.ID, "test", 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var audited []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "pickup.") {
			audited = append(audited, e.Actor+" "+e.Action+" "+e.Target)
		}
	}
	if diff := cmp.Diff([]string{"shipd pickup.adopted " + first + " " + booked.ConfirmationNumber}, audited); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}

	// The day after tomorrow is not listed: not asked again.
	later := pickupBody(day.AddDate(0, 0, 1), withField("carrier", "UPS"), withField("idempotencyKey", "lost-ups-later"))
	if day.AddDate(0, 0, 1).Weekday() == time.Sunday {
		later = pickupBody(day.AddDate(0, 0, 2), withField("carrier", "UPS"), withField("idempotencyKey", "lost-ups-later"))
	}
	lost.calls.Store(0)
	wantError(t, b.do("POST", "/api/v1/pickups", b.token, later), http.StatusBadGateway, "carrier_error")
	m := wantError(t, b.do("POST", "/api/v1/pickups", b.token, later), http.StatusConflict, "ineligible_state")
	if msg := m["error"].(string); !strings.Contains(msg, "today and tomorrow only") {
		t.Errorf("the refusal does not say why: %s", msg)
	}
}

// A time-out is unavailable (503) yet may have reached the carrier: unlike
// a carrier's own 503, it keeps the pickup as requesting.
func TestPickupTimeoutKeepsRequesting(t *testing.T) {
	t.Parallel()
	cs := sandbox.New(sandbox.Config{})
	timeout := &carriers.Error{Carrier: "USPS", Operation: "schedule_pickup", Message: "no answer within 10 s", Kind: carriers.ErrUnavailable}
	lost := &lostAnswer{Carrier: cs[0], first: timeout}
	b := setupLabels(t, withCarriers([]carriers.Carrier{lost, cs[1], cs[2]}, nil))
	body := pickupBody(pickupDay(b.clock.Now()), withField("idempotencyKey", "timeout-1"))
	wantError(t, b.do("POST", "/api/v1/pickups", b.token, body), http.StatusServiceUnavailable, "carrier_unavailable")
	var list struct{ Data []pickupDoc }
	b.do("GET", "/api/v1/pickups", b.token, nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].Status != "requesting" {
		t.Fatalf("after a time-out: %+v, want one requesting pickup", list.Data)
	}
	// USPS cannot say whether the time-out booked it: not asked again.
	wantError(t, b.do("POST", "/api/v1/pickups", b.token, body), http.StatusConflict, "ineligible_state")
}
