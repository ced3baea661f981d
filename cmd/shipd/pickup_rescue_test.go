package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// nearPickupWindow is a pickup window UPS lists among its pending pickups:
// tomorrow 09:00 to 17:00 in New York (the pickup address's zone), or the
// rest of today when tomorrow is a Sunday.
func nearPickupWindow(t *testing.T) (readyAt, closeAt time.Time) {
	t.Helper()
	est, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().In(est)
	if d := now.AddDate(0, 0, 1); d.Weekday() != time.Sunday {
		ready := time.Date(d.Year(), d.Month(), d.Day(), 9, 0, 0, 0, est)
		return ready, ready.Add(8 * time.Hour)
	}
	ready := now.Truncate(time.Minute).Add(time.Minute)
	closes := time.Date(now.Year(), now.Month(), now.Day(), 23, 59, 0, 0, est)
	if !closes.After(ready.Add(5 * time.Minute)) {
		t.Skip("too late on a Saturday for a pickup today, and none on Sundays")
	}
	return ready, closes
}

// A live UPS pickup killed (SIGKILL) with UPS's answer in flight: UPS
// booked it (a PRN) and shipd never read the answer, leaving the pickup
// 'requesting'. The retry with the same idempotency key, as the README
// advises, finds that pickup in UPS's pending pickups by its reference and
// adopts it: one PRN at UPS, none cancelled, the retry answered 201 with
// it, and the adoption logged and audited.
func TestKilledLiveUPSPickupBooksOnePickup(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Live")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments")
	fake := upsfake.New(t)
	flags := []string{"--ups-client-id", upsfake.ClientID, "--ups-client-secret", upsfake.ClientSecret,
		"--ups-account-number", upsfake.AccountNumber, "--ups-base-url", fake.URL()}

	readyAt, closeAt := nearPickupWindow(t)
	raw, err := json.Marshal(map[string]any{
		"carrier": "UPS", "idempotencyKey": "pickup-killed-1", "instructions": "Side door",
		"address": map[string]any{"name": "Ada Lovelace", "phone": "212 555 0100", "street1": "350 Fifth Avenue",
			"city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"readyAt": readyAt.Format(time.RFC3339), "closeAt": closeAt.Format(time.RFC3339),
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	first, _ := startLiveBinary(t, bin, db, addr, flags...)
	fake.HoldPickups()
	go func() {
		// Its answer never comes: the server is killed while UPS holds it.
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/v1/pickups", bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+tok.Token)
		req.Header.Set("Content-Type", "application/json")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	var requesting struct {
		Data []struct{ ID, Status string } `json:"data"`
	}
	waitFor(t, "UPS to book the pickup", func() bool {
		call(t, "GET", "http://"+addr+"/api/v1/pickups", tok.Token, "", &requesting)
		return len(requesting.Data) == 1 && len(fake.Pickups(requesting.Data[0].ID)) == 1
	})
	id := requesting.Data[0].ID
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	booked := fake.Pickups(id)[0].PRN

	_, logs := startLiveBinary(t, bin, db, addr, flags...)
	fake.ReleasePickups()
	var p struct {
		ID, Status         string
		ConfirmationNumber *string
	}
	if st := call(t, "POST", "http://"+addr+"/api/v1/pickups", tok.Token, string(raw), &p); st != http.StatusCreated {
		t.Fatalf("the retry: %d %+v", st, p)
	}
	if p.ID != id || p.Status != "scheduled" || p.ConfirmationNumber == nil || *p.ConfirmationNumber != booked {
		t.Errorf("the retry answered %+v, want %s scheduled with UPS's PRN %s", p, id, booked)
	}
	if diff := cmp.Diff([]upsfake.PickupRecord{{PRN: booked, Reference: id}}, fake.Pickups(id)); diff != "" {
		t.Errorf("UPS pickups of %s (-want +got):\n%s", id, diff)
	}
	waitFor(t, "the restarted server to log the adoption of "+booked, func() bool {
		return strings.Contains(logs.String(), `"confirmation_number":"`+booked+`"`)
	})
	// A later retry replays the same answer, and UPS still has one pickup.
	var again struct{ ID string }
	if st := call(t, "POST", "http://"+addr+"/api/v1/pickups", tok.Token, string(raw), &again); st != http.StatusCreated || again.ID != id {
		t.Errorf("a later retry: %d %+v", st, again)
	}
	if n := len(fake.Pickups(id)); n != 1 {
		t.Errorf("UPS has %d pickups of %s, want 1", n, id)
	}
}
