package server_test

// Live mode end to end, through the API, against the three fake carriers
// (carriers/*/…fake), which speak each carrier's API as documented and check
// what shipd sends.

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/store"
)

type liveFakes struct {
	ups   *upsfake.Server
	fedex *fedexfake.Server
	usps  *uspsfake.Server
}

// setupLive is a bundle whose live mode reaches the three fakes, with a live
// token of every scope.
// setupLive serves live mode on the three carriers' fakes, tracking polled
// every 20 ms; opts apply after that.
func setupLive(t *testing.T, opts ...setupOption) (*bundle, *liveFakes, string) {
	t.Helper()
	f := &liveFakes{ups: upsfake.New(t), fedex: fedexfake.New(t), usps: uspsfake.New(t)}
	u, err := ups.New(ups.Config{ClientID: upsfake.ClientID, ClientSecret: upsfake.ClientSecret, AccountNumber: upsfake.AccountNumber, BaseURL: f.ups.URL()})
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fedex.New(fedex.Config{ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber, BaseURL: f.fedex.URL()})
	if err != nil {
		t.Fatal(err)
	}
	us, err := usps.New(usps.Config{ClientID: uspsfake.ClientID, ClientSecret: uspsfake.ClientSecret, CRID: uspsfake.CRID, MID: uspsfake.MID,
		AccountNumber: uspsfake.AccountNumber, AccountType: uspsfake.AccountType, BaseURL: f.usps.URL()})
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, append([]setupOption{withoutRateLimits(), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{u, fx, us}), func(c *app.Config) {
		c.LiveVerifier = us
		c.TrackingPollInterval = 20 * time.Millisecond
	}}, opts...)...)
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	return b, f, live
}

// unscanned polls live tracking once an hour: the labels of a test stay
// unused (a scanned label is not refundable).
func unscanned(c *app.Config) { c.TrackingPollInterval = time.Hour }

// liveBody is a domestic shipment with the phone numbers FedEx requires.
func liveBody(mods ...func(m map[string]any)) map[string]any {
	return labelBody(append([]func(m map[string]any){func(m map[string]any) {
		m["fromAddress"].(map[string]any)["phone"] = "4155550100"
		m["toAddress"].(map[string]any)["phone"] = "2125550199"
	}}, mods...)...)
}

func TestLiveQuoteAsksEveryCarrier(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	rates := quoteRates(t, b, live, liveBody())
	var got []string
	for _, r := range rates {
		if !slices.Contains(got, r.Carrier) {
			got = append(got, r.Carrier)
		}
		if r.CustomerPriceCents != r.CarrierRateCents+r.PlatformFeeCents || r.PlatformFeeCents != 8 || r.Currency != "USD" || r.EstimatedDays <= 0 {
			t.Errorf("rate %+v", r)
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff([]string{"FedEx", "UPS", "USPS"}, got); diff != "" {
		t.Fatalf("carriers quoted (-want +got):\n%s", diff)
	}
	for i := 1; i < len(rates); i++ {
		if rates[i].CustomerPriceCents < rates[i-1].CustomerPriceCents {
			t.Fatalf("rates are not cheapest first: %v", rates)
		}
	}

	// One carrier down: the others still quote, and its failure is reported.
	f.ups.FailNext(upsfake.OpRate, http.StatusServiceUnavailable, upsfake.ErrorBody("9999", "service unavailable"))
	r := b.do("POST", "/api/v1/labels/quote", live, liveBody())
	wantStatus(t, r, http.StatusOK)
	var q struct {
		Rates         []rateDoc
		CarrierErrors []struct{ Carrier, Kind, Code, Message string }
	}
	r.Decode(t, &q)
	if len(q.Rates) == 0 || len(q.CarrierErrors) != 1 || q.CarrierErrors[0].Carrier != "UPS" || q.CarrierErrors[0].Kind != "unavailable" {
		t.Fatalf("quote with UPS down: %s", r.Body)
	}
	for _, rate := range q.Rates {
		if rate.Carrier == "UPS" {
			t.Fatalf("a UPS rate while UPS was down: %+v", rate)
		}
	}

	// Every carrier down: 503 with Retry-After and each carrier's answer.
	f.ups.FailNext(upsfake.OpRate, http.StatusServiceUnavailable, upsfake.ErrorBody("9999", "down"))
	f.fedex.FailNext(fedexfake.OpRate, http.StatusServiceUnavailable, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "down"))
	f.usps.FailNext(uspsfake.OpRates, http.StatusServiceUnavailable, uspsfake.ErrorBody("3.0.0", 503, "down", "503", "down", ""))
	m := wantError(t, b.do("POST", "/api/v1/labels/quote", live, liveBody()), http.StatusServiceUnavailable, "carrier_unavailable")
	if errs, _ := m["carrierErrors"].([]any); len(errs) != 3 {
		t.Fatalf("carrierErrors %v", m["carrierErrors"])
	}
}

// A live label bought from each carrier: purchased with a tracking number and
// a PDF, charged to the card, tracked by polling to delivered.
func TestLivePurchaseAndTracking(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	for _, c := range []struct{ carrier, service string }{{"UPS", "Ground"}, {"FedEx", "Ground"}, {"USPS", "Priority"}} {
		t.Run(c.carrier, func(t *testing.T) {
			sh := createLabel(t, b, live, liveBody(withField("carrier", c.carrier), withField("service", c.service)))
			if sh.Status != "paying" || sh.Mode != "live" {
				t.Fatalf("created %+v", sh)
			}
			sh = waitForStatus(t, b, live, sh.ID, "purchased")
			if sh.str(sh.TrackingNumber) == "" || sh.str(sh.LabelURL) == "" || sh.ChargeAmountCents != sh.CustomerPriceCents {
				t.Fatalf("purchased %+v", sh)
			}
			r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
			if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF")) {
				t.Fatalf("label.pdf: %d %.20q", r.Status, r.Body)
			}

			// Tracking arrives by polling the carrier, until delivered.
			sh = waitForTracking(t, b, live, sh.ID, "delivered")
			types := eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID))
			for _, want := range []string{"shipment.purchased", "tracker.updated", "shipment.delivered"} {
				if !slices.Contains(types, want) {
					t.Errorf("events of the label %v lack %s", types, want)
				}
			}
			if n := countOf(types, "shipment.delivered"); n != 1 {
				t.Errorf("shipment.delivered recorded %d times", n)
			}
		})
	}

	// The card was charged for each live label; test mode never charges.
	entries, err := b.store.LedgerEntries(context.Background(), b.account.ID, "live")
	if err != nil {
		t.Fatal(err)
	}
	charges := 0
	for _, e := range entries {
		if e.Kind == store.LedgerCardCharge {
			charges++
		}
	}
	if charges != 3 {
		t.Fatalf("%d card charges for 3 live labels: %+v", charges, entries)
	}
}

func TestLiveRefundCreditsTheBalance(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t, unscanned)
	sh := createLabel(t, b, live, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	sh = waitForStatus(t, b, live, sh.ID, "voided")
	balance, err := b.store.Balance(context.Background(), b.account.ID, "live")
	if err != nil || balance != sh.CustomerPriceCents {
		t.Fatalf("balance %d (%v) after the refund, want %d", balance, err, sh.CustomerPriceCents)
	}
	// The next live label is paid from the balance first.
	next := createLabel(t, b, live, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	if next.BalanceAppliedCents != min(balance, next.CustomerPriceCents) {
		t.Fatalf("the next label applied %d of a balance of %d", next.BalanceAppliedCents, balance)
	}
}

// A carrier outage in the middle of a purchase leaves the label pending and
// retried, then purchased.
func TestLiveOutageMidPurchase(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	f.fedex.FailNext(fedexfake.OpShip, http.StatusServiceUnavailable, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable"))
	sh := createLabel(t, b, live, liveBody(withField("carrier", "FedEx"), withField("service", "Ground")))
	_, seen := waitForLabel(t, b, live, sh.ID, "the label purchased after the outage", func(s shipmentDoc) bool { return s.Status == "purchased" || s.Status == "failed" })
	if !slices.Contains(seen, "pending") || seen[len(seen)-1] != "purchased" {
		t.Fatalf("statuses seen: %v, want pending then purchased", seen)
	}
	if n := f.fedex.Requests(fedexfake.OpShip); n != 2 {
		t.Fatalf("FedEx ship calls: %d, want 2 (the failed one and the retry)", n)
	}
}

// A label the carrier refuses to void is purchased again, with the carrier's
// reason, and shipment.void_rejected is recorded.
func TestLiveVoidRefused(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	sh := createLabel(t, b, live, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	f.ups.FailNext(upsfake.OpVoid, http.StatusBadRequest, upsfake.ErrorBody("190102", "No shipment found within the allowed void period"))
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	sh, _ = waitForLabel(t, b, live, sh.ID, "the void refused", func(s shipmentDoc) bool { return s.Status == "purchased" && s.ErrorMessage != nil })
	if msg := sh.str(sh.ErrorMessage); !bytes.Contains([]byte(msg), []byte("190102")) {
		t.Fatalf("errorMessage %q lacks the carrier's code", msg)
	}
	if types := eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID)); !slices.Contains(types, "shipment.void_rejected") {
		t.Fatalf("events %v lack shipment.void_rejected", types)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// Live address verification asks USPS.
func TestLiveVerifyAddress(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	r := b.do("POST", "/api/v1/addresses/verify", live, map[string]any{"street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"})
	wantStatus(t, r, http.StatusCreated)
	var v struct {
		Status      string
		Deliverable bool
		Address     struct{ Zip string }
	}
	r.Decode(t, &v)
	if v.Status == "error" || !v.Deliverable || v.Address.Zip == "" {
		t.Fatalf("verification %s", r.Body)
	}
	if n := f.usps.Requests(uspsfake.OpAddress); n != 1 {
		t.Fatalf("USPS address calls: %d, want 1", n)
	}
}
