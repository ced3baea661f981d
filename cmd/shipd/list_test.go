package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A lost first-start output is recoverable from the CLI: accounts list shows
// every account (with its tokens not revoked), users list every user or an
// account's, never a password hash.
func TestAccountsAndUsersList(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	type account struct {
		ID            string
		Name          string
		PaymentMethod bool
		CreatedAt     time.Time
		Tokens        int
	}
	var acme, globex account
	cliOK(t, &acme, "accounts", "create", "--db", db, "--name", "Acme")
	cliOK(t, &globex, "accounts", "create", "--db", db, "--name", "Globex", "--payment-method=false")
	var tok struct{ ID string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acme.ID, "--mode", "test", "--scopes", "read:shipments")
	cliOK(t, nil, "tokens", "create", "--db", db, "--account", acme.ID, "--mode", "live", "--scopes", "read:shipments")
	cliOK(t, nil, "tokens", "revoke", "--db", db, "--id", tok.ID)
	out, err := users(t, "correct horse battery\n", "create", "--db", db, "--account", globex.ID, "--email", "Ada@Example.com", "--password-stdin")
	if err != nil {
		t.Fatal(err)
	}

	var accts struct{ Data []account }
	raw := cliOK(t, &accts, "accounts", "list", "--db", db)
	want := []account{
		{ID: acme.ID, Name: "Acme", PaymentMethod: true, Tokens: 1},
		{ID: globex.ID, Name: "Globex", PaymentMethod: false, Tokens: 0},
	}
	if diff := cmp.Diff(want, accts.Data, cmpopts.IgnoreFields(account{}, "CreatedAt")); diff != "" {
		t.Errorf("accounts list (-want +got):\n%s\n%s", diff, raw)
	}
	for _, a := range accts.Data {
		if a.CreatedAt.IsZero() || time.Since(a.CreatedAt) > time.Hour {
			t.Errorf("account %s createdAt %v, want the time it was created", a.ID, a.CreatedAt)
		}
	}

	type user struct {
		ID        string
		AccountID string
		Email     string
	}
	var created user
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--account", globex.ID}} {
		var us struct{ Data []user }
		raw := cliOK(t, &us, append([]string{"users", "list", "--db", db}, args...)...)
		if diff := cmp.Diff([]user{{ID: created.ID, AccountID: globex.ID, Email: "ada@example.com"}}, us.Data); diff != "" {
			t.Errorf("users list %v (-want +got):\n%s", args, diff)
		}
		if strings.Contains(raw, "$2") || strings.Contains(strings.ToLower(raw), "password") {
			t.Errorf("users list %v shows a password hash:\n%s", args, raw)
		}
	}
	var none struct{ Data []user }
	cliOK(t, &none, "users", "list", "--db", db, "--account", acme.ID)
	if len(none.Data) != 0 {
		t.Errorf("users list --account %s: %v, want none", acme.ID, none.Data)
	}
}
