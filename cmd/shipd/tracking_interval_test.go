package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// startLiveFedEx runs serve with live FedEx at a fake FedEx and returns it
// with a live token of the account it made (before serve, so no demo seed).
func startLiveFedEx(t *testing.T, fake *fedexfake.Server, flags ...string) (*serveProc, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Live")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments")
	s := startServe(t, db, append([]string{"--job-poll-interval", "10ms",
		"--fedex-client-id", fedexfake.ClientID, "--fedex-client-secret", fedexfake.ClientSecret,
		"--fedex-account-number", fedexfake.AccountNumber, "--fedex-base-url", fake.URL()}, flags...)...)
	return s, tok.Token
}

// liveFedExBody is a domestic FedEx Ground label with the phones FedEx requires.
func liveFedExBody() map[string]any {
	b := labelBody()
	from, to := b["fromAddress"].(map[string]any), b["toAddress"].(map[string]any)
	from["phone"], from["name"] = "4155550100", "Sender"
	to["phone"], to["name"] = "2125550199", "Recipient"
	b["carrier"], b["service"] = "FedEx", "Ground"
	return b
}

// A live label's tracking, polled every second with --live-tracking-interval,
// reaches delivered within seconds (the fake FedEx moves a label one stage
// per Track call). On the schedule the first poll would come 15 min after
// the purchase.
func TestServeLiveTrackingInterval(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	s, token := startLiveFedEx(t, fake, "--live-tracking-interval", "1s")
	status, created := s.call(t, "POST", "/api/v1/labels/create", token, liveFedExBody())
	if status != 202 {
		t.Fatalf("create: %d %v", status, created)
	}
	id, _ := created["id"].(string)
	waitDelivered(t, s, token, id, fake, "of 1 s polls")
}

// waitDelivered waits up to 30 s for the label id to be tracked to
// delivered; why says what should have made it so.
func waitDelivered(t *testing.T, s *serveProc, token, id string, fake *fedexfake.Server, why string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil)
		if got["trackingStatus"] == "delivered" {
			return
		}
		if got["status"] == "failed" {
			t.Fatalf("label failed: %v", got["errorMessage"])
		}
		if time.Now().After(deadline) {
			t.Fatalf("label %s not delivered after 30 s %s: %v (FedEx tracked %d times)", id, why, got, fake.Requests(fedexfake.OpTrack))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Bad intervals, from the flag or the environment's value, are a usage
// error that says what is wrong.
func TestServeLiveTrackingIntervalRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ value, want string }{
		{"0", "too short"},
		{"-5s", "too short"},
		{"10ms", "at least 1s"},
		{"soon", "not a duration"},
	} {
		db := filepath.Join(t.TempDir(), "shipd.db")
		code, _, stderr := cli(t, "serve", "--db", db, "--live-tracking-interval", c.value)
		if code != 2 || !strings.Contains(stderr, "live-tracking-interval") || !strings.Contains(stderr, c.want) {
			t.Errorf("--live-tracking-interval %s: exit %d, stderr %s; want 2 and %q", c.value, code, stderr, c.want)
		}
		var d liveTrackingInterval
		if err := d.Set(c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SHIPD_LIVE_TRACKING_INTERVAL=%s: %v, want %q", c.value, err, c.want)
		}
	}
}
