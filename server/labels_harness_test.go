package server_test

// The harness of the labels tests: the documents the API answers decoded as
// a client would, the request bodies, the waits for asynchronous outcomes and
// the sandbox carriers held at a gate. Other tests of the package use it too.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// waitDeadline bounds every wait for an asynchronous outcome: generous, as
// a wait ends when the outcome comes, and under -race on a loaded machine a
// PNG label alone took over 10 s to draw (5.9 s on a quiet one).
const waitDeadline = 30 * time.Second

type rateDoc struct {
	Carrier            string `json:"carrier"`
	Service            string `json:"service"`
	ServiceCategory    string `json:"serviceCategory"`
	CarrierRateCents   int64  `json:"carrierRateCents"`
	PlatformFeeCents   int64  `json:"platformFeeCents"`
	CustomerPriceCents int64  `json:"customerPriceCents"`
	Currency           string `json:"currency"`
	EstimatedDays      int    `json:"estimatedDays"`
	CarrierCurrency    string `json:"carrierCurrency"`
	CarrierAmountCents int64  `json:"carrierAmountCents"`
	ExchangeRate       string `json:"exchangeRate"`
}

// quoteRateDoc is a quote's rate: a rate and what a purchase at it still
// needs ([]: nothing).
type quoteRateDoc struct {
	rateDoc
	MissingFields []string `json:"missingFields"`
}

// cheapestBuyable is the first rate a purchase can buy (rates cheapest first).
func cheapestBuyable(t *testing.T, rates []quoteRateDoc) quoteRateDoc {
	t.Helper()
	for _, r := range rates {
		if len(r.MissingFields) == 0 {
			return r
		}
	}
	t.Fatalf("no rate can be bought: %+v", rates)
	return quoteRateDoc{}
}

type serviceDoc struct {
	Carrier         string `json:"carrier"`
	Service         string `json:"service"`
	ServiceCategory string `json:"serviceCategory"`
}

type trackingEventDoc struct {
	Status     string    `json:"status"`
	Message    string    `json:"message"`
	Location   string    `json:"location"`
	OccurredAt time.Time `json:"occurredAt"`
}

type shipmentDoc struct {
	ID                  string              `json:"id"`
	Mode                string              `json:"mode"`
	Status              string              `json:"status"`
	Carrier             string              `json:"carrier"`
	Service             string              `json:"service"`
	ServiceCategory     string              `json:"serviceCategory"`
	CarrierRateCents    int64               `json:"carrierRateCents"`
	PlatformFeeCents    int64               `json:"platformFeeCents"`
	CustomerPriceCents  int64               `json:"customerPriceCents"`
	BalanceAppliedCents int64               `json:"balanceAppliedCents"`
	ChargeAmountCents   int64               `json:"chargeAmountCents"`
	Currency            string              `json:"currency"`
	CarrierCurrency     *string             `json:"carrierCurrency"`
	CarrierAmountCents  *int64              `json:"carrierAmountCents"`
	ExchangeRate        *string             `json:"exchangeRate"`
	EstimatedDays       *int                `json:"estimatedDays"`
	Source              string              `json:"source"`
	ToName              *string             `json:"toName"`
	ToStreet1           string              `json:"toStreet1"`
	FromAddress         map[string]any      `json:"fromAddress"`
	ToAddress           map[string]any      `json:"toAddress"`
	Parcel              map[string]any      `json:"parcel"`
	Options             map[string]any      `json:"options"`
	Customs             map[string]any      `json:"customs"`
	TrackingNumber      *string             `json:"trackingNumber"`
	LabelURL            *string             `json:"labelUrl"`
	TrackerID           *string             `json:"trackerId"`
	TrackingStatus      *string             `json:"trackingStatus"`
	ErrorMessage        *string             `json:"errorMessage"`
	PurchasedAt         *time.Time          `json:"purchasedAt"`
	VoidedAt            *time.Time          `json:"voidedAt"`
	TrackingEvents      *[]trackingEventDoc `json:"trackingEvents"`
}

type shipmentList struct {
	Data       []shipmentDoc `json:"data"`
	NextCursor *string       `json:"nextCursor"`
}

type trackerDoc struct {
	ID                  string             `json:"id"`
	Mode                string             `json:"mode"`
	ShipmentID          string             `json:"shipmentId"`
	Carrier             string             `json:"carrier"`
	TrackingNumber      string             `json:"trackingNumber"`
	Status              string             `json:"status"`
	EstimatedDeliveryAt *time.Time         `json:"estimatedDeliveryAt"`
	Events              []trackingEventDoc `json:"events"`
}

type eventDoc struct {
	ID         string         `json:"id"`
	Type       string         `json:"type"`
	APIVersion string         `json:"apiVersion"`
	Data       map[string]any `json:"data"`
}

func (s shipmentDoc) str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// labelBody is a valid domestic create/quote body, with the names and phone
// numbers every carrier needs (test mode applies their requirements too);
// mods change it.
func labelBody(mods ...func(m map[string]any)) map[string]any {
	from := validAddress()
	from["phone"] = "212 555 0100"
	to := map[string]any{"name": "Grace Hopper", "phone": "202 555 0111", "street1": "1600 Pennsylvania Ave NW", "city": "Washington", "state": "DC", "zip": "20500", "country": "US"}
	m := map[string]any{"fromAddress": from, "toAddress": to, "parcel": map[string]any{"weightOz": 16}}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

func withToName(name string) func(m map[string]any) {
	return func(m map[string]any) { m["toAddress"].(map[string]any)["name"] = name }
}

func withField(key string, v any) func(m map[string]any) {
	return func(m map[string]any) { m[key] = v }
}

// withInternational sends the parcel to Toronto; withCustoms adds a declaration.
func withInternational(withCustoms bool) func(m map[string]any) {
	return func(m map[string]any) {
		m["toAddress"] = map[string]any{"name": "Pierre Tremblay", "phone": "416 555 0123", "street1": "100 Queen St W", "city": "Toronto", "state": "ON", "zip": "M5H 2N2", "country": "CA"}
		if withCustoms {
			m["customs"] = map[string]any{
				"contentsType": "merchandise", "contentsExplanation": "T-shirts", "nonDeliveryOption": "return",
				"items": []any{map[string]any{"description": "Cotton T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 6, "hsTariffNumber": "6109.10", "originCountry": "US"}},
			}
		}
	}
}

func quoteRates(t *testing.T, b *bundle, token string, body any) []rateDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/quote", token, body)
	wantStatus(t, r, http.StatusOK)
	var out struct {
		Rates *[]rateDoc `json:"rates"`
	}
	r.Decode(t, &out)
	if out.Rates == nil {
		t.Fatalf("quote has no rates array: %s", r.Body)
	}
	return *out.Rates
}

func createLabel(t *testing.T, b *bundle, token string, body any) shipmentDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/create", token, body)
	wantStatus(t, r, http.StatusAccepted)
	var s shipmentDoc
	r.Decode(t, &s)
	if s.ID == "" {
		t.Fatalf("created shipment has no id: %s", r.Body)
	}
	return s
}

func getLabel(t *testing.T, b *bundle, token, id string) shipmentDoc {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels/"+id, token, nil)
	wantStatus(t, r, http.StatusOK)
	var s shipmentDoc
	r.Decode(t, &s)
	return s
}

// waitForLabel polls GET /labels/{id} until ok holds, and returns the shipment
// and every distinct status seen on the way, in order.
func waitForLabel(t *testing.T, b *bundle, token, id, what string, ok func(shipmentDoc) bool) (shipmentDoc, []string) {
	t.Helper()
	return waitForLabelWithin(t, b, token, id, what, waitDeadline, ok)
}

func waitForLabelWithin(t *testing.T, b *bundle, token, id, what string, within time.Duration, ok func(shipmentDoc) bool) (shipmentDoc, []string) {
	t.Helper()
	deadline := time.Now().Add(within)
	var seen []string
	for {
		s := getLabel(t, b, token, id)
		if len(seen) == 0 || seen[len(seen)-1] != s.Status {
			seen = append(seen, s.Status)
		}
		if ok(s) {
			return s, seen
		}
		if time.Now().After(deadline) {
			t.Fatalf("shipment %s: %s not reached within %s; statuses seen %v; last: status %s, trackingStatus %q, errorMessage %q, %d tracking events",
				id, what, within, seen, s.Status, s.str(s.TrackingStatus), s.str(s.ErrorMessage), len(deref(s.TrackingEvents)))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitForStatus waits for a status; reaching another final purchase outcome fails at once.
func waitForStatus(t *testing.T, b *bundle, token, id, want string) shipmentDoc {
	t.Helper()
	var wrong string
	s, _ := waitForLabel(t, b, token, id, "status "+want, func(s shipmentDoc) bool {
		if s.Status != want && (s.Status == "failed" || (s.Status == "purchased" && want == "failed")) {
			wrong = s.Status
			return true
		}
		return s.Status == want
	})
	if wrong != "" {
		t.Fatalf("shipment %s ended %s (errorMessage %q), want %s", id, wrong, s.str(s.ErrorMessage), want)
	}
	return s
}

func waitForTracking(t *testing.T, b *bundle, token, id, want string) shipmentDoc {
	t.Helper()
	s, _ := waitForLabel(t, b, token, id, "trackingStatus "+want, func(s shipmentDoc) bool {
		return s.TrackingStatus != nil && *s.TrackingStatus == want
	})
	return s
}

// listEvents reads the whole event history (newest first), optionally of one type.
func listEvents(t *testing.T, b *bundle, token, eventType string) []eventDoc {
	t.Helper()
	var all []eventDoc
	cursor := ""
	for page := 0; page < 50; page++ {
		q := url.Values{"limit": {"100"}}
		if eventType != "" {
			q.Set("type", eventType)
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := b.doT(t, "GET", "/api/v1/events?"+q.Encode(), token, nil)
		wantStatus(t, r, http.StatusOK)
		var out struct {
			Data       []eventDoc `json:"data"`
			NextCursor *string    `json:"nextCursor"`
		}
		r.Decode(t, &out)
		all = append(all, out.Data...)
		if out.NextCursor == nil {
			return all
		}
		cursor = *out.NextCursor
	}
	t.Fatal("event pagination does not end")
	return nil
}

// eventsOf keeps the events whose data is the given shipment.
func eventsOf(events []eventDoc, shipmentID string) []eventDoc {
	var out []eventDoc
	for _, e := range events {
		if e.Data["id"] == shipmentID {
			out = append(out, e)
		}
	}
	return out
}

func eventTypes(events []eventDoc) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Type
	}
	return out
}

// listLabels reads one page of GET /labels with the query.
func listLabels(t *testing.T, b *bundle, token, query string) shipmentList {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels?"+query, token, nil)
	wantStatus(t, r, http.StatusOK)
	var l shipmentList
	r.Decode(t, &l)
	if _, ok := r.JSON(t)["nextCursor"]; !ok {
		t.Fatalf("nextCursor absent (must be null on the last page): %s", r.Body)
	}
	return l
}

func shipmentIDs(list []shipmentDoc) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

// roundTrip gives v the types a JSON decode gives (numbers as float64).
func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func servicesOf(rates []rateDoc) []serviceDoc {
	out := make([]serviceDoc, len(rates))
	for i, r := range rates {
		out[i] = serviceDoc{Carrier: r.Carrier, Service: r.Service, ServiceCategory: r.ServiceCategory}
	}
	return out
}

func sortServices(s []serviceDoc) []serviceDoc {
	s = slices.Clone(s)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Carrier != s[j].Carrier {
			return s[i].Carrier < s[j].Carrier
		}
		return s[i].Service < s[j].Service
	})
	return s
}

// setupLabels is setup without rate limits: the test clock stands still, so a
// bucket would never refill, and these tests poll far more than a client would.
func setupLabels(t *testing.T, opts ...setupOption) *bundle {
	t.Helper()
	return setup(t, append([]setupOption{func(c *app.Config) { c.RateLimits.Disabled = true }}, opts...)...)
}

func withLabelDir(t testing.TB, dir string) setupOption {
	docs := openDocs(t, dir)
	return func(c *app.Config) { c.Documents = docs }
}

// gate holds carrier calls until it is opened; entered records who waits.
type gate struct {
	ch   chan struct{}
	once sync.Once

	mu      sync.Mutex
	entered map[string]int
}

func newGate() *gate {
	return &gate{ch: make(chan struct{}), entered: map[string]int{}}
}

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

func (g *gate) wait(ctx context.Context, key string) error {
	g.mu.Lock()
	g.entered[key]++
	g.mu.Unlock()
	select {
	case <-g.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) count(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.entered[key]
}

// awaitEntered waits until a call for key is held at the gate.
func (g *gate) awaitEntered(t *testing.T, key string) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for g.count(key) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no carrier call for %s reached the gate", key)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// gatedCarrier wraps a sandbox carrier: Buy and Void can be held at gates, and
// Void can be made to fail.
type gatedCarrier struct {
	carriers.Carrier
	buyGate  *gate
	voidGate *gate
	voidErr  error
	buys     *atomic.Int64
}

func (c *gatedCarrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	c.buys.Add(1)
	if c.buyGate != nil {
		if err := c.buyGate.wait(ctx, req.Reference); err != nil {
			return carriers.Label{}, err
		}
	}
	return c.Carrier.Buy(ctx, req)
}

func (c *gatedCarrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if c.voidGate != nil {
		if err := c.voidGate.wait(ctx, req.TrackingNumber); err != nil {
			return "", err
		}
	}
	if c.voidErr != nil {
		return "", c.voidErr
	}
	return c.Carrier.Void(ctx, req)
}

// unusedFor is a gated carrier whose labels stay unused (pre-transit) for
// d before the plan's first move, then keep the plan's pace.
type unusedFor struct {
	*gatedCarrier
	d time.Duration
}

func (c unusedFor) TrackingPlan(ctx context.Context, s carriers.Shipment, trackingNumber string) ([]carriers.TrackingScan, error) {
	plan, err := c.gatedCarrier.TrackingPlan(ctx, s, trackingNumber)
	for i := range plan {
		if plan[i].Status != carriers.StatusPreTransit {
			plan[i].After = c.d
			break
		}
	}
	return plan, err
}

// gatedSandbox returns the sandbox carriers behind gates, and how many Buy calls they got.
func gatedSandbox(scan time.Duration, buyGate, voidGate *gate, voidErr error) ([]carriers.Carrier, *atomic.Int64) {
	buys := &atomic.Int64{}
	var out []carriers.Carrier
	for _, c := range sandbox.New(sandbox.Config{ScanInterval: scan}) {
		out = append(out, &gatedCarrier{Carrier: c, buyGate: buyGate, voidGate: voidGate, voidErr: voidErr, buys: buys})
	}
	return out, buys
}

func withGated(scan time.Duration, buyGate, voidGate *gate, voidErr error) setupOption {
	cs, _ := gatedSandbox(scan, buyGate, voidGate, voidErr)
	return func(c *app.Config) { c.Carriers = carriers.NewRegistry(cs, nil) }
}
