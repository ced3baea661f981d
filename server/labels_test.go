package server_test

// HTTP-level tests of the labels feature: quotes, creation and service
// selection, the asynchronous purchase, the label PDF, tracking, refunds,
// billing and the shipment list. Their harness is labels_harness_test.go;
// the rules beneath (rate selection, the workers) are tested in shipping.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/store"
)

// ---------------------------------------------------------------------------
// 1. quote

func TestQuoteRates(t *testing.T) {
	t.Parallel()

	t.Run("rates from every carrier, cheapest first, nothing stored", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		rates := quoteRates(t, b, b.token, labelBody())
		if len(rates) == 0 {
			t.Fatal("no rates")
		}
		carrierSet := map[string]bool{}
		for i, r := range rates {
			carrierSet[r.Carrier] = true
			if r.PlatformFeeCents != 8 {
				t.Errorf("rate %d (%s %s): platformFeeCents = %d, want 8", i, r.Carrier, r.Service, r.PlatformFeeCents)
			}
			if r.CustomerPriceCents != r.CarrierRateCents+r.PlatformFeeCents {
				t.Errorf("rate %d (%s %s): customerPriceCents %d != carrierRateCents %d + platformFeeCents %d",
					i, r.Carrier, r.Service, r.CustomerPriceCents, r.CarrierRateCents, r.PlatformFeeCents)
			}
			if r.CarrierRateCents <= 0 || r.Currency != "USD" || r.EstimatedDays <= 0 || r.Service == "" {
				t.Errorf("rate %d is implausible: %+v", i, r)
			}
			if !slices.Contains(carriers.Categories(), r.ServiceCategory) {
				t.Errorf("rate %d: serviceCategory %q is not a category", i, r.ServiceCategory)
			}
			if i > 0 && rates[i-1].CustomerPriceCents > r.CustomerPriceCents {
				t.Errorf("rates not cheapest first: %d (%d) before %d (%d)", i-1, rates[i-1].CustomerPriceCents, i, r.CustomerPriceCents)
			}
		}
		if len(carrierSet) < 3 {
			t.Errorf("rates from %d carriers (%v), want at least 3", len(carrierSet), carrierSet)
		}

		again := quoteRates(t, b, b.token, labelBody())
		if diff := cmp.Diff(rates, again); diff != "" {
			t.Errorf("two quotes of the same shipment differ (-first +second):\n%s", diff)
		}

		if l := listLabels(t, b, b.token, ""); len(l.Data) != 0 {
			t.Errorf("GET /labels after quotes has %d shipments, want 0", len(l.Data))
		}
		if ev := listEvents(t, b, b.token, ""); len(ev) != 0 {
			t.Errorf("GET /events after quotes has %d events, want 0: %v", len(ev), eventTypes(ev))
		}
		for _, mode := range []string{"test", "live"} {
			bal, err := b.store.Balance(context.Background(), b.account.ID, mode)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := b.store.LedgerEntries(context.Background(), b.account.ID, mode)
			if err != nil {
				t.Fatal(err)
			}
			if bal != 0 || len(entries) != 0 {
				t.Errorf("%s mode after quotes: balance %d, %d ledger entries; want nothing", mode, bal, len(entries))
			}
		}
	})

	t.Run("platform fee is configurable", func(t *testing.T) {
		t.Parallel()
		def := setupLabels(t)
		base := quoteRates(t, def, def.token, labelBody())
		for _, fee := range []int64{0, 25} {
			b := setupLabels(t, func(c *app.Config) { c.PlatformFeeCents = &fee })
			rates := quoteRates(t, b, b.token, labelBody())
			var want []rateDoc
			for _, r := range base {
				r.PlatformFeeCents = fee
				r.CustomerPriceCents = r.CarrierRateCents + fee
				want = append(want, r)
			}
			// The fee is the same on every rate, so the order cannot change.
			if diff := cmp.Diff(want, rates); diff != "" {
				t.Errorf("fee %d: rates (-want +got):\n%s", fee, diff)
			}
			s := createLabel(t, b, b.token, labelBody())
			if s.PlatformFeeCents != fee || s.CustomerPriceCents != s.CarrierRateCents+fee {
				t.Errorf("fee %d: created shipment has platformFeeCents %d, customerPriceCents %d, carrierRateCents %d",
					fee, s.PlatformFeeCents, s.CustomerPriceCents, s.CarrierRateCents)
			}
			if d := getLabel(t, b, b.token, s.ID); d.PlatformFeeCents != fee {
				t.Errorf("fee %d: GET detail platformFeeCents = %d", fee, d.PlatformFeeCents)
			}
		}
	})

	t.Run("no rates", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(func(m map[string]any) { m["toAddress"].(map[string]any)["zip"] = "00000" }))
		wantError(t, r, http.StatusUnprocessableEntity, "no_rates")
	})

	t.Run("international needs customs", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(withInternational(false)))
		m := wantError(t, r, http.StatusUnprocessableEntity, "missing_field")
		if m["field"] != "customs" {
			t.Errorf("field = %v, want customs", m["field"])
		}
	})

	t.Run("international with customs quotes only international services", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		intl := quoteRates(t, b, b.token, labelBody(withInternational(true)))
		// The US carriers' international services (the sandbox's other
		// carriers are tested with their own services).
		var us []serviceDoc
		for _, s := range servicesOf(intl) {
			if slices.Contains([]string{"UPS", "FedEx", "USPS"}, s.Carrier) {
				us = append(us, s)
			}
		}
		want := []serviceDoc{
			{"FedEx", "InternationalEconomy", "standard"},
			{"FedEx", "InternationalPriority", "express"},
			{"UPS", "WorldwideExpedited", "standard"},
			{"UPS", "WorldwideSaver", "express"},
			{"USPS", "FirstClassPackageInternational", "economy"},
			{"USPS", "PriorityMailExpressInternational", "express"},
			{"USPS", "PriorityMailInternational", "standard"},
		}
		if diff := cmp.Diff(want, sortServices(us)); diff != "" {
			t.Errorf("international services (-want +got):\n%s", diff)
		}
		domestic := map[serviceDoc]bool{}
		for _, s := range servicesOf(quoteRates(t, b, b.token, labelBody())) {
			domestic[s] = true
		}
		for _, s := range servicesOf(intl) {
			if domestic[s] {
				t.Errorf("domestic service %+v offered for an international shipment", s)
			}
		}
	})

	t.Run("US address without state", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		r := b.doT(t, "POST", "/api/v1/labels/quote", b.token, labelBody(func(m map[string]any) { delete(m["toAddress"].(map[string]any), "state") }))
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != "toAddress.state" {
			t.Errorf("field = %v, want toAddress.state", m["field"])
		}
	})

	t.Run("live mode has no carriers", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		_, live := b.newToken(b.account.ID, "live", "write:shipments")
		r := b.doT(t, "POST", "/api/v1/labels/quote", live, labelBody())
		wantError(t, r, http.StatusInternalServerError, "carrier_not_configured")
		r = b.doT(t, "POST", "/api/v1/labels/create", live, labelBody())
		m := wantError(t, r, http.StatusInternalServerError, "carrier_not_configured")
		// The answer says what the operator must do; the metrics keep the
		// configuration gap apart from the server's failures.
		if msg, _ := m["error"].(string); !strings.Contains(msg, `"Going live"`) || !strings.Contains(msg, "SHIPD_UPS_CLIENT_ID") {
			t.Errorf("error %q does not point at README \"Going live\" and the variables", msg)
		}
		s := scrapeMetrics(t, b)
		if got := s.value("shipd_configuration_errors_total", map[string]string{"code": "carrier_not_configured"}); got != 2 {
			t.Errorf("shipd_configuration_errors_total{carrier_not_configured} = %v, want 2", got)
		}
		fives := s.value("shipd_http_requests_total", map[string]string{"operation": "quoteLabel", "method": "POST", "status_class": "5xx"}) +
			s.value("shipd_http_requests_total", map[string]string{"operation": "createLabel", "method": "POST", "status_class": "5xx"})
		if fives != 2 {
			t.Errorf("5xx of quote and create = %v, want 2 (still counted as 5xx)", fives)
		}
	})
}

// ---------------------------------------------------------------------------
// 2. create: service selection

// The selection rule itself is shipping's TestSelectRate; this test checks
// that a create buys from the quote's rates and how each outcome is answered.
func TestLabelCreateSelection(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	rates := quoteRates(t, b, b.token, labelBody())
	created := 0

	// wantRate checks a 202 body against the quoted rate it must have selected.
	wantRate := func(t *testing.T, s shipmentDoc, r rateDoc) {
		t.Helper()
		got := rateDoc{Carrier: s.Carrier, Service: s.Service, ServiceCategory: s.ServiceCategory, CarrierRateCents: s.CarrierRateCents,
			PlatformFeeCents: s.PlatformFeeCents, CustomerPriceCents: s.CustomerPriceCents, Currency: s.Currency}
		if s.EstimatedDays != nil {
			got.EstimatedDays = *s.EstimatedDays
		}
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("selected rate (-want +got):\n%s", diff)
		}
		if s.Status != "paying" || s.Mode != "test" || s.Source != "api" {
			t.Errorf("status %q, mode %q, source %q; want paying, test, api", s.Status, s.Mode, s.Source)
		}
		if s.BalanceAppliedCents != 0 || s.ChargeAmountCents != r.CustomerPriceCents {
			t.Errorf("balanceAppliedCents %d, chargeAmountCents %d; want 0 and %d", s.BalanceAppliedCents, s.ChargeAmountCents, r.CustomerPriceCents)
		}
		if s.TrackingNumber != nil || s.LabelURL != nil || s.TrackerID != nil {
			t.Errorf("a paying shipment has purchase results: %+v", s)
		}
		created++
	}

	t.Run("carrier and service select that exact service", func(t *testing.T) {
		// The most expensive rate: never what a cheapest-first rule would pick.
		r := rates[len(rates)-1]
		s := createLabel(t, b, b.token, labelBody(withField("carrier", r.Carrier), withField("service", r.Service)))
		wantRate(t, s, r)
	})

	t.Run("nothing selects the cheapest overall", func(t *testing.T) {
		s := createLabel(t, b, b.token, labelBody())
		wantRate(t, s, rates[0])
	})

	t.Run("no matching service lists the available ones", func(t *testing.T) {
		// Which selections match nothing is shipping's TestSelectRate; here, the answer.
		for name, body := range map[string]map[string]any{
			"unknown service": labelBody(withField("carrier", "USPS"), withField("service", "NextDayAir")),
		} {
			r := b.doT(t, "POST", "/api/v1/labels/create", b.token, body)
			wantError(t, r, http.StatusUnprocessableEntity, "no_matching_service")
			var e struct {
				AvailableServices []serviceDoc `json:"availableServices"`
			}
			r.Decode(t, &e)
			if len(e.AvailableServices) == 0 {
				t.Errorf("%s: availableServices is empty: %s", name, r.Body)
			}
			if diff := cmp.Diff(sortServices(servicesOf(rates)), sortServices(e.AvailableServices)); diff != "" {
				t.Errorf("%s: availableServices are not the quote's services (-quote +got):\n%s", name, diff)
			}
		}
	})

	t.Run("service without carrier", func(t *testing.T) {
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withField("service", "Priority")))
		if m := wantError(t, r, http.StatusUnprocessableEntity, "missing_field"); m["field"] != "carrier" {
			t.Errorf("field = %v, want carrier", m["field"])
		}
	})

	t.Run("no rates", func(t *testing.T) {
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(func(m map[string]any) { m["toAddress"].(map[string]any)["zip"] = "00000" }))
		wantError(t, r, http.StatusUnprocessableEntity, "no_rates")
	})

	t.Run("international without customs", func(t *testing.T) {
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(withInternational(false)))
		if m := wantError(t, r, http.StatusUnprocessableEntity, "missing_field"); m["field"] != "customs" {
			t.Errorf("field = %v, want customs", m["field"])
		}
	})

	t.Run("only accepted creates are stored", func(t *testing.T) {
		l := listLabels(t, b, b.token, "limit=100")
		if len(l.Data) != created {
			t.Errorf("GET /labels has %d shipments, want the %d accepted ones", len(l.Data), created)
		}
	})
}

// ---------------------------------------------------------------------------
// 3. payment method

func TestLabelCreateNoPaymentMethod(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	poor := b.newAccount("Poor", false)
	_, token := b.newToken(poor.ID, "test", allScopes...)

	// Validation and rates come before the payment method.
	r := b.doT(t, "POST", "/api/v1/labels/create", token, labelBody(func(m map[string]any) { m["toAddress"].(map[string]any)["zip"] = "00000" }))
	wantError(t, r, http.StatusUnprocessableEntity, "no_rates")
	r = b.doT(t, "POST", "/api/v1/labels/create", token, labelBody(withField("carrier", "DHL")))
	wantError(t, r, http.StatusUnprocessableEntity, "no_matching_service")

	// The spec: retry with the same idempotency key after adding a card.
	body := labelBody(withField("serviceCategory", "express"), withField("idempotencyKey", "order-1"))
	r = b.doT(t, "POST", "/api/v1/labels/create", token, body)
	wantError(t, r, http.StatusPaymentRequired, "no_payment_method")
	if l := listLabels(t, b, token, ""); len(l.Data) != 0 {
		t.Fatalf("a 402 stored %d shipments", len(l.Data))
	}
	if ev := listEvents(t, b, token, ""); len(ev) != 0 {
		t.Fatalf("a 402 recorded events: %v", eventTypes(ev))
	}

	if err := b.app.Accounts.SetPaymentMethod(context.Background(), poor.ID, true); err != nil {
		t.Fatal(err)
	}
	s := createLabel(t, b, token, body)
	if s.Status != "paying" || s.ServiceCategory != "express" {
		t.Fatalf("after adding a payment method: status %q, category %q", s.Status, s.ServiceCategory)
	}
	waitForStatus(t, b, token, s.ID, "purchased")
	if again := createLabel(t, b, token, body); again.ID != s.ID {
		t.Errorf("the same key again created %s, want the replay of %s", again.ID, s.ID)
	}
	if l := listLabels(t, b, token, ""); !slices.Equal(shipmentIDs(l.Data), []string{s.ID}) {
		t.Errorf("shipments %v, want just %s", shipmentIDs(l.Data), s.ID)
	}
}

// ---------------------------------------------------------------------------
// 4. purchase

func TestLabelPurchase(t *testing.T) {
	t.Parallel()

	t.Run("purchased", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody())
		s := waitForStatus(t, b, b.token, c.ID, "purchased")
		if s.str(s.TrackingNumber) == "" || s.str(s.TrackerID) == "" || s.PurchasedAt == nil {
			t.Errorf("purchased shipment lacks trackingNumber, trackerId or purchasedAt: %+v", s)
		}
		if u := s.str(s.LabelURL); !strings.HasSuffix(u, "/api/v1/labels/"+s.ID+"/label.pdf") {
			t.Errorf("labelUrl = %q, want it to end with /api/v1/labels/%s/label.pdf", u, s.ID)
		}
		if s.ErrorMessage != nil {
			t.Errorf("purchased shipment has errorMessage %q", *s.ErrorMessage)
		}
		// The purchase changes nothing about the selection or the money.
		if s.Carrier != c.Carrier || s.Service != c.Service || s.CustomerPriceCents != c.CustomerPriceCents || s.ChargeAmountCents != c.ChargeAmountCents {
			t.Errorf("purchase changed the shipment: created %+v, purchased %+v", c, s)
		}

		events := eventsOf(listEvents(t, b, b.token, ""), s.ID)
		if diff := cmp.Diff([]string{"shipment.purchased"}, eventTypes(events)); diff != "" {
			t.Fatalf("events of the shipment (-want +got):\n%s", diff)
		}
		d := events[0].Data
		if d["id"] != s.ID || d["status"] != "purchased" || d["trackingNumber"] != s.str(s.TrackingNumber) || d["labelUrl"] != s.str(s.LabelURL) {
			t.Errorf("shipment.purchased data: %v", d)
		}
		if events[0].APIVersion != "v1" {
			t.Errorf("apiVersion = %q", events[0].APIVersion)
		}
	})

	t.Run("fail purchase", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody(withToName("Fail Purchase")))
		s := waitForStatus(t, b, b.token, c.ID, "failed")
		if s.str(s.ErrorMessage) == "" {
			t.Errorf("failed shipment has no errorMessage: %+v", s)
		}
		if s.TrackingNumber != nil || s.LabelURL != nil || s.TrackerID != nil || s.PurchasedAt != nil {
			t.Errorf("failed shipment has purchase results: %+v", s)
		}
		events := eventsOf(listEvents(t, b, b.token, ""), s.ID)
		if diff := cmp.Diff([]string{"shipment.failed"}, eventTypes(events)); diff != "" {
			t.Fatalf("events of the shipment (-want +got):\n%s", diff)
		}
		d := events[0].Data
		if d["id"] != s.ID || d["status"] != "failed" || d["errorMessage"] != s.str(s.ErrorMessage) {
			t.Errorf("shipment.failed data: %v", d)
		}
	})

	t.Run("carrier unavailable is pending, then purchased", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t, func(c *app.Config) { c.PurchaseRetryBase = 100 * time.Millisecond })
		c := createLabel(t, b, b.token, labelBody(withToName("Carrier Unavailable")))
		s, seen := waitForLabel(t, b, b.token, c.ID, "status purchased", func(s shipmentDoc) bool { return s.Status == "purchased" || s.Status == "failed" })
		if s.Status != "purchased" {
			t.Fatalf("ended %s (%s), want purchased", s.Status, s.str(s.ErrorMessage))
		}
		if !slices.Contains(seen, "pending") {
			t.Errorf("statuses seen %v; want pending on the way", seen)
		}
		for _, st := range seen {
			if st != "paying" && st != "pending" && st != "purchased" {
				t.Errorf("unexpected status %s on the way: %v", st, seen)
			}
		}
		events := eventsOf(listEvents(t, b, b.token, ""), s.ID)
		if diff := cmp.Diff([]string{"shipment.purchased"}, eventTypes(events)); diff != "" {
			t.Errorf("events of the shipment (-want +got):\n%s", diff)
		}
	})

	t.Run("carrier unavailable for every attempt fails", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t, func(c *app.Config) { c.PurchaseAttempts = 2 })
		c := createLabel(t, b, b.token, labelBody(withToName("Carrier Unavailable")))
		s := waitForStatus(t, b, b.token, c.ID, "failed")
		if s.str(s.ErrorMessage) == "" {
			t.Errorf("no errorMessage: %+v", s)
		}
		events := eventsOf(listEvents(t, b, b.token, ""), s.ID)
		if diff := cmp.Diff([]string{"shipment.failed"}, eventTypes(events)); diff != "" {
			t.Errorf("events of the shipment (-want +got):\n%s", diff)
		}
	})
}

// ---------------------------------------------------------------------------
// 5. label PDF

func TestLabelPDF(t *testing.T) {
	t.Parallel()

	wantPDF := func(t *testing.T, b *bundle, id string) []byte {
		t.Helper()
		r := b.doT(t, "GET", "/api/v1/labels/"+id+"/label.pdf", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
			t.Errorf("Content-Type = %q, want application/pdf", ct)
		}
		if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Errorf("body does not start with %%PDF-: %q", r.Body[:min(len(r.Body), 20)])
		}
		return r.Body
	}

	t.Run("pending while paying, then the PDF", func(t *testing.T) {
		t.Parallel()
		gate := newGate()
		b := setupLabels(t, withGated(0, gate, nil, nil))
		t.Cleanup(gate.open)
		c := createLabel(t, b, b.token, labelBody())
		gate.awaitEntered(t, c.ID)
		if s := getLabel(t, b, b.token, c.ID); s.Status != "paying" {
			t.Fatalf("status %s while the carrier holds the purchase, want paying", s.Status)
		}
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantError(t, r, http.StatusAccepted, "label_pending")
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n <= 0 {
			t.Errorf("Retry-After = %q, want a positive number of seconds", r.Header.Get("Retry-After"))
		}
		gate.open()
		waitForStatus(t, b, b.token, c.ID, "purchased")
		wantPDF(t, b, c.ID)
	})

	t.Run("failed shipment has no label", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody(withToName("Fail Purchase")))
		waitForStatus(t, b, b.token, c.ID, "failed")
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantError(t, r, http.StatusNotFound, "label_unavailable")
	})

	t.Run("stored file missing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		b := setupLabels(t, withLabelDir(t, dir))
		c := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, c.ID, "purchased")
		stored := wantPDF(t, b, c.ID)
		removed := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Equal(data, stored) {
				removed++
				return os.Remove(p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if removed != 1 {
			t.Fatalf("found %d stored copies of the label in %s, want 1", removed, dir)
		}
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantError(t, r, http.StatusNotFound, "label_unavailable")
	})

	t.Run("unknown shipment", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		r := b.doT(t, "GET", "/api/v1/labels/shp_doesnotexist/label.pdf", b.token, nil)
		wantError(t, r, http.StatusNotFound, "not_found")
	})
}

// ---------------------------------------------------------------------------
// 6. tracking

func TestLabelTracking(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(20*time.Millisecond))

	cases := []struct {
		name, toName, final, event, notEvent string
	}{
		{"delivered", "Grace Hopper", "delivered", "shipment.delivered", ""},
		{"tracking exception", "Tracking Exception", "failure", "shipment.exception", "shipment.delivered"},
		{"return to sender", "Return To Sender", "return_to_sender", "shipment.return_to_sender", "shipment.delivered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := createLabel(t, b, b.token, labelBody(withToName(tc.toName)))
			waitForStatus(t, b, b.token, c.ID, "purchased")
			s := waitForTracking(t, b, b.token, c.ID, tc.final)

			wantStatuses := []string{tc.final, "out_for_delivery", "in_transit", "in_transit", "pre_transit"}
			if s.TrackingEvents == nil {
				t.Fatal("GET detail has no trackingEvents")
			}
			var got []string
			for i, e := range *s.TrackingEvents {
				got = append(got, e.Status)
				if e.Message == "" || e.OccurredAt.IsZero() {
					t.Errorf("tracking event %d is incomplete: %+v", i, e)
				}
				if i > 0 && e.OccurredAt.After((*s.TrackingEvents)[i-1].OccurredAt) {
					t.Errorf("tracking events not newest first at %d", i)
				}
			}
			if diff := cmp.Diff(wantStatuses, got); diff != "" {
				t.Errorf("trackingEvents statuses, newest first (-want +got):\n%s", diff)
			}

			r := b.doT(t, "GET", "/api/v1/trackers/"+s.str(s.TrackerID), b.token, nil)
			wantStatus(t, r, http.StatusOK)
			var tr trackerDoc
			r.Decode(t, &tr)
			wantTr := trackerDoc{ID: s.str(s.TrackerID), Mode: "test", ShipmentID: s.ID, Carrier: s.Carrier,
				TrackingNumber: s.str(s.TrackingNumber), Status: tc.final, Events: *s.TrackingEvents}
			if diff := cmp.Diff(wantTr, tr, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "EstimatedDeliveryAt" }, cmp.Ignore())); diff != "" {
				t.Errorf("tracker (-want +got):\n%s", diff)
			}
			if tr.EstimatedDeliveryAt == nil {
				t.Error("tracker has no estimatedDeliveryAt")
			}

			events := eventsOf(listEvents(t, b, b.token, ""), s.ID)
			var updates []string
			count := map[string]int{}
			for _, e := range events {
				count[e.Type]++
				if e.Type != "tracker.updated" {
					continue
				}
				te, _ := e.Data["trackingEvents"].([]any)
				if len(te) == 0 {
					t.Errorf("tracker.updated %s has no trackingEvents", e.ID)
					continue
				}
				newest, _ := te[0].(map[string]any)
				if newest["status"] != e.Data["trackingStatus"] {
					t.Errorf("tracker.updated: trackingEvents[0].status %v != trackingStatus %v", newest["status"], e.Data["trackingStatus"])
				}
				updates = append(updates, fmt.Sprint(e.Data["trackingStatus"]))
			}
			if diff := cmp.Diff(wantStatuses, updates); diff != "" {
				t.Errorf("tracker.updated statuses, newest first, one per scan (-want +got):\n%s", diff)
			}
			if count[tc.event] != 1 {
				t.Errorf("%d %s events, want exactly 1 (events %v)", count[tc.event], tc.event, eventTypes(events))
			}
			if tc.notEvent != "" && count[tc.notEvent] != 0 {
				t.Errorf("%d %s events, want none", count[tc.notEvent], tc.notEvent)
			}
			for _, e := range events {
				if e.Type == tc.event && e.Data["trackingStatus"] != tc.final {
					t.Errorf("%s data.trackingStatus = %v, want %s", tc.event, e.Data["trackingStatus"], tc.final)
				}
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 7. refund

func TestLabelRefund(t *testing.T) {
	t.Parallel()

	refund := func(t *testing.T, b *bundle, id string) response {
		t.Helper()
		return b.doT(t, "POST", "/api/v1/labels/"+id+"/refund", b.token, nil)
	}

	t.Run("void requested, then voided, once", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, c.ID, "purchased")
		r := refund(t, b, c.ID)
		wantStatus(t, r, http.StatusAccepted)
		var accepted shipmentDoc
		r.Decode(t, &accepted)
		if accepted.ID != c.ID || accepted.Status != "void_requested" {
			t.Fatalf("refund 202: id %s status %s, want %s void_requested", accepted.ID, accepted.Status, c.ID)
		}
		s := waitForStatus(t, b, b.token, c.ID, "voided")
		if s.VoidedAt == nil || s.str(s.TrackingNumber) == "" {
			t.Errorf("voided shipment: voidedAt %v, trackingNumber %v", s.VoidedAt, s.TrackingNumber)
		}
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "already_voided")

		events := eventsOf(listEvents(t, b, b.token, ""), c.ID)
		if diff := cmp.Diff([]string{"shipment.voided", "shipment.purchased"}, eventTypes(events)); diff != "" {
			t.Errorf("events of the shipment, newest first (-want +got):\n%s", diff)
		}
		// Event data is the shipment exactly as GET /labels/{id} shows it.
		detail := b.doT(t, "GET", "/api/v1/labels/"+c.ID, b.token, nil).JSON(t)
		if diff := cmp.Diff(detail, events[0].Data); diff != "" {
			t.Errorf("shipment.voided data differs from GET detail (-get +event):\n%s", diff)
		}
		// A voided label's PDF is still served, for records.
		if r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil); r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Errorf("voided label PDF: status %d", r.Status)
		}
	})

	t.Run("not purchased while paying, refund in progress while void requested", func(t *testing.T) {
		t.Parallel()
		buy, void := newGate(), newGate()
		b := setupLabels(t, withGated(0, buy, void, nil))
		t.Cleanup(buy.open)
		t.Cleanup(void.open)
		c := createLabel(t, b, b.token, labelBody())
		buy.awaitEntered(t, c.ID)
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "not_purchased")
		buy.open()
		s := waitForStatus(t, b, b.token, c.ID, "purchased")

		wantStatus(t, refund(t, b, c.ID), http.StatusAccepted)
		void.awaitEntered(t, s.str(s.TrackingNumber))
		if s := getLabel(t, b, b.token, c.ID); s.Status != "void_requested" {
			t.Fatalf("status %s while the carrier holds the void, want void_requested", s.Status)
		}
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "refund_in_progress")
		void.open()
		waitForStatus(t, b, b.token, c.ID, "voided")
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "already_voided")
		if n := len(eventsOf(listEvents(t, b, b.token, "shipment.voided"), c.ID)); n != 1 {
			t.Errorf("%d shipment.voided events, want 1", n)
		}
	})

	t.Run("failed is ineligible", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody(withToName("Fail Purchase")))
		waitForStatus(t, b, b.token, c.ID, "failed")
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "ineligible_state")
	})

	t.Run("pending is ineligible", func(t *testing.T) {
		t.Parallel()
		// The retry is an hour away, so the shipment stays pending.
		b := setupLabels(t, func(c *app.Config) { c.PurchaseRetryBase = time.Hour })
		c := createLabel(t, b, b.token, labelBody(withToName("Carrier Unavailable")))
		waitForStatus(t, b, b.token, c.ID, "pending")
		wantError(t, refund(t, b, c.ID), http.StatusConflict, "ineligible_state")
		r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", b.token, nil)
		wantError(t, r, http.StatusAccepted, "label_pending")
		if s := getLabel(t, b, b.token, c.ID); s.Status != "pending" {
			t.Errorf("status after the refused refund: %s, want pending", s.Status)
		}
	})

	t.Run("unknown shipment", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		wantError(t, refund(t, b, "shp_doesnotexist"), http.StatusNotFound, "not_found")
	})

	// A void the carrier rejects returns the label to purchased; a purchased
	// label keeps being tracked.
	t.Run("rejected void keeps tracking", func(t *testing.T) {
		t.Parallel()
		const scan = 20 * time.Millisecond
		// A scanned label is not refundable: the plan's first move past
		// pre-transit waits a second, time for the refund to be asked.
		const unused = time.Second
		void := newGate()
		cs, _ := gatedSandbox(scan, nil, void, fmt.Errorf("test carrier refuses: %w", carriers.ErrRejected))
		for i, c := range cs {
			cs[i] = unusedFor{c.(*gatedCarrier), unused}
		}
		b := setupLabels(t, withCarriers(cs, nil))
		t.Cleanup(void.open)
		c := createLabel(t, b, b.token, labelBody())
		s := waitForStatus(t, b, b.token, c.ID, "purchased")
		wantStatus(t, refund(t, b, c.ID), http.StatusAccepted)
		void.awaitEntered(t, s.str(s.TrackingNumber))
		// Hold the void until scans have fallen due while void_requested.
		time.Sleep(unused + 10*scan)
		void.open()
		s, _ = waitForLabel(t, b, b.token, c.ID, "status purchased after the rejected void", func(s shipmentDoc) bool { return s.Status != "void_requested" })
		if s.Status != "purchased" || s.str(s.ErrorMessage) == "" {
			t.Fatalf("after a rejected void: status %s, errorMessage %q; want purchased with the reason", s.Status, s.str(s.ErrorMessage))
		}
		// Scans 20 ms apart; one held back while void_requested may wait about a second.
		waitForLabelWithin(t, b, b.token, c.ID, "trackingStatus delivered after the rejected void", 5*time.Second, func(s shipmentDoc) bool {
			return s.TrackingStatus != nil && *s.TrackingStatus == "delivered"
		})
	})
}

// ---------------------------------------------------------------------------
// 8. billing and ledger

func TestLabelLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	balance := func(t *testing.T, b *bundle, mode string) int64 {
		t.Helper()
		n, err := b.store.Balance(ctx, b.account.ID, mode)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	type entry struct {
		Shipment, Kind string
		Amount         int64
	}
	entries := func(t *testing.T, b *bundle, mode string) []entry {
		t.Helper()
		es, err := b.store.LedgerEntries(ctx, b.account.ID, mode)
		if err != nil {
			t.Fatal(err)
		}
		var out []entry
		for _, e := range es {
			out = append(out, entry{e.ShipmentID, e.Kind, e.AmountCents})
		}
		return out
	}
	moving := func(es []entry) int64 {
		var sum int64
		for _, e := range es {
			if e.Kind != store.LedgerCardCharge {
				sum += e.Amount
			}
		}
		return sum
	}
	refundAndWait := func(t *testing.T, b *bundle, token, id string) {
		t.Helper()
		wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+id+"/refund", token, nil), http.StatusAccepted)
		waitForStatus(t, b, token, id, "voided")
	}
	wantMoney := func(t *testing.T, s shipmentDoc, applied int64) {
		t.Helper()
		if s.BalanceAppliedCents != applied || s.ChargeAmountCents != s.CustomerPriceCents-applied {
			t.Errorf("%s: balanceAppliedCents %d, chargeAmountCents %d (price %d); want applied %d, charge %d",
				s.ID, s.BalanceAppliedCents, s.ChargeAmountCents, s.CustomerPriceCents, applied, s.CustomerPriceCents-applied)
		}
	}
	express := labelBody(withField("carrier", "UPS"), withField("service", "NextDayAir"))
	cheap := labelBody(withField("carrier", "USPS"), withField("service", "GroundAdvantage"))
	failing := labelBody(withField("carrier", "USPS"), withField("service", "Priority"), withToName("Fail Purchase"))

	t.Run("test mode", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)

		a := createLabel(t, b, b.token, express)
		wantMoney(t, a, 0)
		waitForStatus(t, b, b.token, a.ID, "purchased")
		if n := balance(t, b, "test"); n != 0 {
			t.Fatalf("balance after a purchase without credit = %d, want 0", n)
		}
		refundAndWait(t, b, b.token, a.ID)
		if n := balance(t, b, "test"); n != a.CustomerPriceCents {
			t.Fatalf("balance after the refund = %d, want customerPriceCents %d", n, a.CustomerPriceCents)
		}

		// Cheaper than the balance: all of it paid by the credit.
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, cheap)
		if r.Status != http.StatusAccepted {
			t.Fatalf("create with a positive balance (%d): status %d, want 202; body %s", a.CustomerPriceCents, r.Status, r.Body)
		}
		var bb shipmentDoc
		r.Decode(t, &bb)
		if bb.CustomerPriceCents >= a.CustomerPriceCents {
			t.Fatalf("the test needs %d < %d", bb.CustomerPriceCents, a.CustomerPriceCents)
		}
		wantMoney(t, bb, bb.CustomerPriceCents)
		waitForStatus(t, b, b.token, bb.ID, "purchased")
		left := a.CustomerPriceCents - bb.CustomerPriceCents
		if n := balance(t, b, "test"); n != left {
			t.Fatalf("balance = %d, want %d", n, left)
		}

		// A failed purchase reserves credit, then releases it.
		d := createLabel(t, b, b.token, failing)
		wantMoney(t, d, min(left, d.CustomerPriceCents))
		waitForStatus(t, b, b.token, d.ID, "failed")
		if n := balance(t, b, "test"); n != left {
			t.Fatalf("balance after the failed purchase = %d, want the credit back: %d", n, left)
		}

		// Dearer than the balance: the credit covers part, the rest is charged.
		c := createLabel(t, b, b.token, express)
		if c.CustomerPriceCents <= left {
			t.Fatalf("the test needs %d > %d", c.CustomerPriceCents, left)
		}
		wantMoney(t, c, left)
		waitForStatus(t, b, b.token, c.ID, "purchased")
		if n := balance(t, b, "test"); n != 0 {
			t.Fatalf("balance = %d, want 0", n)
		}

		// No credit left: nothing applied.
		e := createLabel(t, b, b.token, cheap)
		wantMoney(t, e, 0)
		waitForStatus(t, b, b.token, e.ID, "purchased")

		want := []entry{
			{a.ID, store.LedgerRefundCredit, a.CustomerPriceCents},
			{bb.ID, store.LedgerBalanceApplied, -bb.CustomerPriceCents},
			{d.ID, store.LedgerBalanceApplied, -d.BalanceAppliedCents},
			{d.ID, store.LedgerBalanceReleased, d.BalanceAppliedCents},
			{c.ID, store.LedgerBalanceApplied, -left},
		}
		got := entries(t, b, "test")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ledger (-want +got):\n%s", diff)
		}
		if bal := balance(t, b, "test"); bal != moving(got) {
			t.Errorf("balance %d != sum of balance-moving entries %d", bal, moving(got))
		}
		for _, e := range got {
			if e.Kind == store.LedgerCardCharge {
				t.Errorf("test mode recorded a card charge: %+v", e)
			}
		}
		l := listLabels(t, b, b.token, "limit=100")
		if len(l.Data) != 5 {
			t.Fatalf("%d shipments, want 5", len(l.Data))
		}
		for _, s := range l.Data {
			if s.ChargeAmountCents+s.BalanceAppliedCents != s.CustomerPriceCents {
				t.Errorf("%s: chargeAmountCents %d + balanceAppliedCents %d != customerPriceCents %d",
					s.ID, s.ChargeAmountCents, s.BalanceAppliedCents, s.CustomerPriceCents)
			}
		}
		if n := balance(t, b, "live"); n != 0 || len(entries(t, b, "live")) != 0 {
			t.Errorf("test-mode activity moved the live balance (%d) or ledger", n)
		}
	})

	t.Run("live mode charges the card for the rest", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t, func(c *app.Config) {
			c.Carriers = carriers.NewRegistry(sandbox.New(sandbox.Config{}), sandbox.New(sandbox.Config{}))
		})
		_, live := b.newToken(b.account.ID, "live", allScopes...)

		a := createLabel(t, b, live, express)
		if a.Mode != "live" {
			t.Fatalf("mode = %s", a.Mode)
		}
		waitForStatus(t, b, live, a.ID, "purchased")
		if diff := cmp.Diff([]entry{{a.ID, store.LedgerCardCharge, a.ChargeAmountCents}}, entries(t, b, "live")); diff != "" {
			t.Errorf("live ledger after a purchase (-want +got):\n%s", diff)
		}
		if n := balance(t, b, "live"); n != 0 {
			t.Errorf("a card charge moved the balance to %d", n)
		}
		refundAndWait(t, b, live, a.ID)
		if n := balance(t, b, "live"); n != a.CustomerPriceCents {
			t.Errorf("live balance after the refund = %d, want %d", n, a.CustomerPriceCents)
		}
		r := b.doT(t, "POST", "/api/v1/labels/create", live, cheap)
		if r.Status != http.StatusAccepted {
			t.Fatalf("create with a positive balance (%d): status %d, want 202; body %s", a.CustomerPriceCents, r.Status, r.Body)
		}
		var c shipmentDoc
		r.Decode(t, &c)
		wantMoney(t, c, c.CustomerPriceCents)
		waitForStatus(t, b, live, c.ID, "purchased")
		want := []entry{
			{a.ID, store.LedgerCardCharge, a.ChargeAmountCents},
			{a.ID, store.LedgerRefundCredit, a.CustomerPriceCents},
			{c.ID, store.LedgerBalanceApplied, -c.CustomerPriceCents},
		}
		got := entries(t, b, "live")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("live ledger (-want +got):\n%s", diff)
		}
		if bal := balance(t, b, "live"); bal != moving(got) {
			t.Errorf("balance %d != sum of balance-moving entries %d", bal, moving(got))
		}
		if n := balance(t, b, "test"); n != 0 || len(entries(t, b, "test")) != 0 {
			t.Errorf("live activity moved the test balance (%d) or ledger", n)
		}
	})
}

// ---------------------------------------------------------------------------
// 9. reading

func TestLabelList(t *testing.T) {
	t.Parallel()

	t.Run("pages newest first with concurrent inserts", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		var older []string // oldest first
		for range 30 {
			older = append(older, createLabel(t, b, b.token, labelBody()).ID)
		}
		newestFirst := slices.Clone(older)
		slices.Reverse(newestFirst)

		def := listLabels(t, b, b.token, "")
		if diff := cmp.Diff(newestFirst[:25], shipmentIDs(def.Data)); diff != "" {
			t.Errorf("default page: want the 25 newest, newest first (-want +got):\n%s", diff)
		}
		if def.NextCursor == nil {
			t.Error("default page of 30: nextCursor is null")
		}
		for _, s := range def.Data {
			if s.TrackingEvents != nil {
				t.Errorf("list item %s has trackingEvents", s.ID)
				break
			}
		}
		for _, q := range []string{"limit=0", "limit=101", "limit=x"} {
			r := b.doT(t, "GET", "/api/v1/labels?"+q, b.token, nil)
			if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "limit" {
				t.Errorf("%s: field %v, want limit", q, m["field"])
			}
		}
		if l := listLabels(t, b, b.token, "limit=100"); len(l.Data) != 30 || l.NextCursor != nil {
			t.Errorf("limit=100: %d items, nextCursor %v; want 30, null", len(l.Data), l.NextCursor)
		}
		if l := listLabels(t, b, b.token, "limit=1"); len(l.Data) != 1 || l.NextCursor == nil {
			t.Errorf("limit=1: %d items, nextCursor %v; want 1 and a cursor", len(l.Data), l.NextCursor)
		}

		// Page with limit 7 while 10 more are created.
		first := listLabels(t, b, b.token, "limit=7")
		got := shipmentIDs(first.Data)
		newer := make(chan string, 10)
		errs := make(chan error, 1)
		go func() {
			defer close(newer)
			for range 10 {
				r, err := b.send("POST", "/api/v1/labels/create", b.token, labelBody())
				if err == nil && r.Status != http.StatusAccepted {
					err = fmt.Errorf("concurrent create: status %d: %s", r.Status, r.Body)
				}
				if err != nil {
					errs <- err
					return
				}
				var s shipmentDoc
				if err := json.Unmarshal(r.Body, &s); err != nil {
					errs <- err
					return
				}
				newer <- s.ID
			}
		}()
		<-newer // at least one insert lands between the first and second page
		cursor, sizes := first.NextCursor, []int{len(first.Data)}
		for page := 0; cursor != nil; page++ {
			if page > 10 {
				t.Fatal("pagination does not end")
			}
			l := listLabels(t, b, b.token, "limit=7&cursor="+url.QueryEscape(*cursor))
			got = append(got, shipmentIDs(l.Data)...)
			sizes = append(sizes, len(l.Data))
			if l.NextCursor != nil && len(l.Data) != 7 {
				t.Errorf("a non-last page has %d items", len(l.Data))
			}
			cursor = l.NextCursor
		}
		for range newer {
		}
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		if diff := cmp.Diff(newestFirst, got); diff != "" {
			t.Errorf("paging the 30 older shipments while inserting: duplicates or gaps (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{7, 7, 7, 7, 2}, sizes); diff != "" {
			t.Errorf("page sizes (-want +got):\n%s", diff)
		}
		all := listLabels(t, b, b.token, "limit=100")
		if len(all.Data) != 40 || all.NextCursor != nil {
			t.Fatalf("after the inserts: %d shipments, nextCursor %v; want 40, null", len(all.Data), all.NextCursor)
		}
		if diff := cmp.Diff(newestFirst, shipmentIDs(all.Data[10:])); diff != "" {
			t.Errorf("the 30 older ones are not last (-want +got):\n%s", diff)
		}
	})

	t.Run("status filter", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		ok1 := createLabel(t, b, b.token, labelBody())
		bad := createLabel(t, b, b.token, labelBody(withToName("Fail Purchase")))
		ok2 := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, ok1.ID, "purchased")
		waitForStatus(t, b, b.token, bad.ID, "failed")
		waitForStatus(t, b, b.token, ok2.ID, "purchased")
		for status, want := range map[string][]string{
			"failed":    {bad.ID},
			"purchased": {ok2.ID, ok1.ID},
			"paying":    {},
			"voided":    {},
		} {
			l := listLabels(t, b, b.token, "status="+status)
			if diff := cmp.Diff(want, shipmentIDs(l.Data)); diff != "" {
				t.Errorf("status=%s (-want +got):\n%s", status, diff)
			}
			for _, s := range l.Data {
				if s.Status != status {
					t.Errorf("status=%s returned a %s shipment", status, s.Status)
				}
			}
		}
		r := b.doT(t, "GET", "/api/v1/labels?status=lost", b.token, nil)
		if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "status" {
			t.Errorf("field = %v, want status", m["field"])
		}
	})

	t.Run("detail", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		body := labelBody(withInternational(true), withField("options", map[string]any{"signatureConfirmation": true}),
			withField("parcel", map[string]any{"weightOz": 20.5, "lengthIn": 10, "widthIn": 8, "heightIn": 4}))
		c := createLabel(t, b, b.token, body)
		s := waitForStatus(t, b, b.token, c.ID, "purchased")
		if s.PlatformFeeCents != 8 || s.Source != "api" || s.Mode != "test" {
			t.Errorf("platformFeeCents %d, source %q, mode %q; want 8, api, test", s.PlatformFeeCents, s.Source, s.Mode)
		}
		want := roundTrip(t, body)
		got := roundTrip(t, map[string]any{"fromAddress": s.FromAddress, "toAddress": s.ToAddress, "parcel": s.Parcel, "options": s.Options, "customs": s.Customs})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("detail input fields (-request +detail):\n%s", diff)
		}
		if s.str(s.ToName) != "Pierre Tremblay" || s.ToStreet1 != "100 Queen St W" {
			t.Errorf("toName %q, toStreet1 %q", s.str(s.ToName), s.ToStreet1)
		}
		if s.TrackingEvents == nil {
			t.Error("detail has no trackingEvents array")
		}
		if !strings.Contains(s.Service, "International") && !strings.HasPrefix(s.Service, "Worldwide") {
			t.Errorf("international shipment bought domestic service %s", s.Service)
		}
	})

	t.Run("wrong mode and other account", func(t *testing.T) {
		t.Parallel()
		b := setupLabels(t)
		c := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, c.ID, "purchased")

		_, live := b.newToken(b.account.ID, "live", allScopes...)
		for _, p := range []string{"/api/v1/labels/" + c.ID, "/api/v1/labels/" + c.ID + "/label.pdf"} {
			wantError(t, b.doT(t, "GET", p, live, nil), http.StatusForbidden, "wrong_mode")
		}
		wantError(t, b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", live, nil), http.StatusForbidden, "wrong_mode")
		if l := listLabels(t, b, live, ""); len(l.Data) != 0 {
			t.Errorf("live list shows %d test shipments", len(l.Data))
		}

		other := b.newAccount("Other", true)
		_, tok := b.newToken(other.ID, "test", allScopes...)
		for _, p := range []string{"/api/v1/labels/" + c.ID, "/api/v1/labels/" + c.ID + "/label.pdf"} {
			wantError(t, b.doT(t, "GET", p, tok, nil), http.StatusNotFound, "not_found")
		}
		wantError(t, b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", tok, nil), http.StatusNotFound, "not_found")
		s := getLabel(t, b, b.token, c.ID)
		wantError(t, b.doT(t, "GET", "/api/v1/trackers/"+s.str(s.TrackerID), tok, nil), http.StatusNotFound, "not_found")
		wantError(t, b.doT(t, "GET", "/api/v1/trackers/"+s.str(s.TrackerID), live, nil), http.StatusForbidden, "wrong_mode")
		if l := listLabels(t, b, tok, ""); len(l.Data) != 0 {
			t.Errorf("another account's list shows %d shipments", len(l.Data))
		}
		// Nothing changed for the owner.
		if s := getLabel(t, b, b.token, c.ID); s.Status != "purchased" {
			t.Errorf("status after foreign refund attempts: %s", s.Status)
		}
	})
}
