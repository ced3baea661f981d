package server

// A purchase accepted before a restart completes after it, exactly once.

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

// restartInstance is one server process on a shared database file.
type restartInstance struct {
	b       *bundle
	stopped bool
}

func startRestartInstance(t *testing.T, dbPath, labelDir string, clock *testClock, cs []carriers.Carrier) *restartInstance {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: st, WebhookCipher: cipher, Now: clock.Now, UsageFlushInterval: time.Hour,
		Labels: store.FileBlobs{Dir: labelDir}, Carriers: carriers.NewRegistry(cs, nil),
		PurchaseRetryBase: 20 * time.Millisecond, JobPollInterval: 10 * time.Millisecond,
		RateLimits: RateLimitConfig{Disabled: true}}
	e, srv, err := Setup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	in := &restartInstance{b: &bundle{t: t, store: st, server: srv, http: httptest.NewServer(e), clock: clock}}
	t.Cleanup(func() { in.stop(t, 10*time.Second) })
	return in
}

// stop shuts the instance down as the process would: HTTP first, then the
// jobs, which get grace to finish and are cancelled after it.
func (in *restartInstance) stop(t *testing.T, grace time.Duration) error {
	if in.stopped {
		return nil
	}
	in.stopped = true
	in.b.http.Close()
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := in.b.server.Stop(ctx)
	if cerr := in.b.store.Close(); cerr != nil {
		t.Errorf("close store: %v", cerr)
	}
	return err
}

func TestRestartPurchaseSurvives(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dbPath, labelDir := filepath.Join(dir, "shipd.db"), filepath.Join(dir, "labels")
	clock := &testClock{now: time.Now().UTC()}

	// First process: the carrier takes the purchase and never answers.
	gate := newLblGate() // never opened
	held, heldBuys := lblWrapped(0, gate, nil, nil)
	first := startRestartInstance(t, dbPath, labelDir, clock, held)
	account := first.b.newAccount("Acme", true)
	_, token := first.b.newToken(account.ID, "test", allScopes...)

	c := lblCreate(t, first.b, token, lblBody())
	gate.awaitEntered(t, c.ID)
	if s := lblGet(t, first.b, token, c.ID); s.Status != "paying" {
		t.Fatalf("status while the carrier holds the purchase: %s, want paying", s.Status)
	}
	stopAt := time.Now()
	err := first.stop(t, 100*time.Millisecond) // the running purchase is cancelled
	t.Logf("first instance stopped in %s (Stop: %v)", time.Since(stopAt).Round(time.Millisecond), err)

	// Second process on the same database, with a carrier that answers.
	normal, buys := lblWrapped(0, nil, nil, nil)
	second := startRestartInstance(t, dbPath, labelDir, clock, normal)
	restartAt := time.Now()
	s, seen := lblWaitWithin(t, second.b, token, c.ID, "status purchased after the restart", 20*time.Second,
		func(s lblShipment) bool { return s.Status == "purchased" || s.Status == "failed" })
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

	events := lblEventsOf(lblEvents(t, second.b, token, ""), c.ID)
	if got := lblEventTypes(events); !slices.Equal(got, []string{"shipment.purchased"}) {
		t.Errorf("events of the shipment: %v, want exactly one shipment.purchased", got)
	}
	var trackers []string
	if err := second.b.store.R.SelectContext(context.Background(), &trackers, `SELECT id FROM trackers WHERE shipment_id = ?`, c.ID); err != nil {
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
	r := second.b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", token, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		t.Errorf("label PDF after the restart: status %d", r.Status)
	}
}
