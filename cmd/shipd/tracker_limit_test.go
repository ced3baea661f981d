package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --tracker-limit bounds each account's active standalone trackers per
// mode: past it POST /trackers is 422 tracker_limit.
func TestServeTrackerLimit(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Trackers")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "test", "--scopes", "read:shipments,write:shipments")
	s := startServe(t, db, "--tracker-limit", "1")
	if status, got := s.call(t, "POST", "/api/v1/trackers", tok.Token, map[string]any{"trackingNumber": "123456789012"}); status != 201 {
		t.Fatalf("first tracker: %d %v", status, got)
	}
	status, got := s.call(t, "POST", "/api/v1/trackers", tok.Token, map[string]any{"trackingNumber": "123456789013"})
	if msg, _ := got["error"].(string); status != 422 || got["code"] != "tracker_limit" || !strings.Contains(msg, "in test mode is 1;") {
		t.Fatalf("second tracker under --tracker-limit 1: %d %v", status, got)
	}
}
