package server_test

// A purchase accepted before a restart completes after it, exactly once.

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/store/storetest"
)

func TestRestartPurchaseSurvives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dsn := storetest.NewDatabase(t)
	clock := fakeclock.New(time.Now().UTC())

	// First process: the carrier takes the purchase and never answers.
	gate := newGate() // never opened
	held, heldBuys := gatedSandbox(0, gate, nil, nil)
	first := start(t, dsn, dir, clock, withoutRateLimits(), withCarriers(held, nil))
	account := first.newAccount("Acme", true)
	_, token := first.newToken(account.ID, "test", allScopes...)

	c := createLabel(t, first, token, labelBody())
	gate.awaitEntered(t, c.ID)
	if s := getLabel(t, first, token, c.ID); s.Status != "paying" {
		t.Fatalf("status while the carrier holds the purchase: %s, want paying", s.Status)
	}
	stopAt := time.Now()
	err := first.stop(100 * time.Millisecond) // the running purchase is cancelled
	t.Logf("first instance stopped in %s (Stop: %v)", time.Since(stopAt).Round(time.Millisecond), err)

	// Second process on the same database, with a carrier that answers.
	normal, buys := gatedSandbox(0, nil, nil, nil)
	second := start(t, dsn, dir, clock, withoutRateLimits(), withCarriers(normal, nil))
	restartAt := time.Now()
	s, seen := waitForLabelWithin(t, second, token, c.ID, "status purchased after the restart", 20*time.Second,
		func(s shipmentDoc) bool { return s.Status == "purchased" || s.Status == "failed" })
	t.Logf("purchased %s after the restart", time.Since(restartAt).Round(time.Millisecond))
	if s.Status != "purchased" {
		t.Fatalf("after the restart the purchase ended %s (errorMessage %q), want purchased", s.Status, s.str(s.ErrorMessage))
	}
	for _, st := range seen {
		if !slices.Contains([]string{"paying", "purchased"}, st) {
			t.Errorf("statuses seen after the restart: %v", seen)
		}
	}
	if s.str(s.TrackingNumber) == "" || s.str(s.TrackerID) == "" || s.str(s.LabelURL) == "" {
		t.Errorf("purchased shipment lacks results: trackingNumber %q trackerId %q labelUrl %q", s.str(s.TrackingNumber), s.str(s.TrackerID), s.str(s.LabelURL))
	}

	events := eventsOf(listEvents(t, second, token, ""), c.ID)
	if got := eventTypes(events); !slices.Equal(got, []string{"shipment.purchased"}) {
		t.Errorf("events of the shipment: %v, want exactly one shipment.purchased", got)
	}
	var trackers []string
	if err := second.sql(t).SelectContext(context.Background(), &trackers, `SELECT id FROM trackers WHERE shipment_id = ?`, c.ID); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(trackers, []string{s.str(s.TrackerID)}) {
		t.Errorf("trackers of the shipment: %v, want exactly %s", trackers, s.str(s.TrackerID))
	}
	if n := heldBuys.Load(); n != 1 {
		t.Errorf("the first instance called Buy %d times, want 1", n)
	}
	if n := buys.Load(); n != 1 {
		t.Errorf("the second instance called Buy %d times, want 1", n)
	}
	r := second.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", token, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		t.Errorf("label PDF after the restart: status %d", r.Status)
	}
}
