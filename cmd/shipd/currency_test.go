package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An account billed in euros from the command line: created with
// --currency, quoted and charged in euros through the API, and its
// currency fixed once it has a label.
func TestCLIAccountInEuros(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var a struct{ ID, Name, Currency string }
	cliOK(t, &a, "accounts", "create", "--db", db, "--name", "Kiezladen", "--currency", "gbp")
	if a.Currency != "GBP" {
		t.Fatalf("accounts create --currency gbp: %+v", a)
	}
	if code, _, stderr := cli(t, "accounts", "create", "--db", db, "--name", "Typo", "--currency", "EURO"); code != 2 || !strings.Contains(stderr, `--currency "EURO" is not an ISO 4217 currency code`) {
		t.Errorf("--currency EURO: exit %d, %s", code, stderr)
	}
	// No label yet: the currency may still change.
	var upd map[string]any
	cliOK(t, &upd, "accounts", "update", "--db", db, "--account", a.ID, "--currency", "EUR")
	if upd["currency"] != "EUR" {
		t.Fatalf("accounts update --currency EUR: %v", upd)
	}
	var listed struct {
		Data []struct{ ID, Currency string }
	}
	cliOK(t, &listed, "accounts", "list", "--db", db)
	if len(listed.Data) != 1 || listed.Data[0].Currency != "EUR" {
		t.Fatalf("accounts list: %+v", listed)
	}
	var tok createdToken
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", a.ID, "--mode", "test", "--scopes", "read:shipments,write:shipments")

	s := startServe(t, db, "--platform-fee", "EUR=12", "--platform-fee", "5")
	body := map[string]any{
		"fromAddress": map[string]any{"name": "Kiezladen GmbH", "phone": "+49 30 1234567", "street1": "Friedrichstraße 43", "city": "Berlin", "zip": "10117", "country": "DE"},
		"toAddress":   map[string]any{"name": "Erika Mustermann", "phone": "+49 89 7654321", "street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE"},
		"parcel":      map[string]any{"weightG": 2500},
	}
	status, q := s.call(t, "POST", "/api/v1/labels/quote", tok.Token, body)
	rates, _ := q["rates"].([]any)
	if status != http.StatusOK || len(rates) == 0 {
		t.Fatalf("quote: %d %v", status, q)
	}
	for _, r := range rates {
		if r := r.(map[string]any); r["currency"] != "EUR" || r["platformFeeCents"] != 12.0 {
			t.Errorf("a rate not in euros or without the euro fee of 12: %v", r)
		}
	}
	status, sh := s.call(t, "POST", "/api/v1/labels/create", tok.Token, body)
	if status != http.StatusAccepted || sh["currency"] != "EUR" {
		t.Fatalf("create: %d %v", status, sh)
	}
	deadline := time.Now().Add(20 * time.Second)
	for sh["status"] != "purchased" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		_, sh = s.call(t, "GET", "/api/v1/labels/"+sh["id"].(string), tok.Token, nil)
	}
	if sh["status"] != "purchased" || sh["currency"] != "EUR" {
		raw, _ := json.Marshal(sh)
		t.Fatalf("label: %s", raw)
	}

	code, _, stderr := cli(t, "accounts", "update", "--db", db, "--account", a.ID, "--currency", "USD")
	if code == 0 || !strings.Contains(stderr, "the account's currency cannot change: it has shipments or ledger entries in it") {
		t.Errorf("a change of currency after a label: exit %d, %s", code, stderr)
	}
}

// --platform-fee takes N or CUR=N, whole minor units; anything else
// refuses the start, naming the value.
func TestServePlatformFeeFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, v := range []string{"EUR=ten", "EURO=10", "-1", "EUR=1.50", "2000000"} {
		code, _, stderr := cli(t, "serve", "--db", filepath.Join(dir, "shipd.db"), "--platform-fee", v)
		if code != 2 || !strings.Contains(stderr, v) {
			t.Errorf("--platform-fee %s: exit %d, %s", v, code, stderr)
		}
	}
}
