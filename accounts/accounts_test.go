package accounts_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/store"
)

func setup(t *testing.T) (*accounts.Service, *store.Store, *fakeclock.Clock) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	return accounts.New(st, accounts.Config{Now: c.Now}), st, c
}

func TestCreateTokenRules(t *testing.T) {
	t.Parallel()
	svc, st, c := setup(t)
	ctx := context.Background()
	a, err := svc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	past, now := c.Now().Add(-time.Second), c.Now()
	for name, tc := range map[string]struct {
		in   accounts.NewToken
		want error
	}{
		"unknown mode":       {accounts.NewToken{AccountID: a.ID, Mode: "prod", Scopes: []string{accounts.ReadShipments}}, accounts.ErrInvalidMode},
		"unknown scope":      {accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{"admin"}}, accounts.ErrInvalidScope},
		"no scope":           {accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{" "}}, accounts.ErrNoScopes},
		"expiry in the past": {accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{accounts.ReadShipments}, ExpiresAt: &past}, accounts.ErrExpiryPast},
		"expiry now":         {accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{accounts.ReadShipments}, ExpiresAt: &now}, accounts.ErrExpiryPast},
		"missing account":    {accounts.NewToken{AccountID: "acct_nope", Mode: accounts.Test, Scopes: []string{accounts.ReadShipments}}, accounts.ErrNotFound},
	} {
		if _, _, err := svc.CreateToken(ctx, tc.in); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}

	tok, secret, err := svc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Live,
		Scopes: []string{accounts.WriteWebhooks, accounts.ReadShipments, accounts.WriteWebhooks}})
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^svc_live_[A-Za-z0-9]{64}$`).MatchString(secret) || !strings.HasPrefix(secret, tok.Prefix) || len(tok.Prefix) != len("svc_live_")+6 {
		t.Fatalf("secret %q, prefix %q", secret, tok.Prefix)
	}
	if diff := cmp.Diff([]string{accounts.WriteWebhooks, accounts.ReadShipments}, tok.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	// Only the hash is stored.
	stored, err := st.Token(ctx, tok.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored.SecretHash), secret[len(tok.Prefix):]) || len(stored.SecretHash) != 32 {
		t.Fatalf("stored secret_hash %x", stored.SecretHash)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	svc, _, c := setup(t)
	ctx := context.Background()
	a, _ := svc.CreateAccount(ctx, "Acme", true)
	expires := c.Now().Add(time.Hour)
	tok, secret, err := svc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{accounts.WriteShipments}, ExpiresAt: &expires})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := svc.Authenticate(ctx, secret, "203.0.113.9")
	if err != nil {
		t.Fatal(err)
	}
	want := accounts.Caller{AccountID: a.ID, Mode: accounts.Test, TokenID: tok.ID, TokenPrefix: tok.Prefix, Scopes: []string{accounts.WriteShipments}, ClientIP: "203.0.113.9"}
	if diff := cmp.Diff(want, caller); diff != "" {
		t.Fatalf("caller (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "svc_test_short", strings.Replace(secret, "svc_test_", "svc_live_", 1), "svc_test_" + strings.Repeat("A", 64)} {
		if _, err := svc.Authenticate(ctx, bad, ""); !errors.Is(err, accounts.ErrTokenInvalid) {
			t.Errorf("Authenticate(%.20q) = %v, want ErrTokenInvalid", bad, err)
		}
	}
	// Last use is recorded by the batch flush, not by the request.
	svc.FlushUsage(ctx)
	list, _ := svc.ListTokens(ctx, a.ID)
	if list[0].LastUsedAt == nil || list[0].LastIP == nil || *list[0].LastIP != "203.0.113.9" {
		t.Errorf("last use after the flush: %v %v", list[0].LastUsedAt, list[0].LastIP)
	}
	c.Advance(time.Hour)
	if _, err := svc.Authenticate(ctx, secret, ""); !errors.Is(err, accounts.ErrTokenExpired) {
		t.Errorf("at expiry: %v, want ErrTokenExpired", err)
	}
	_, other, _ := svc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Test, Scopes: []string{accounts.ReadShipments}})
	list, _ = svc.ListTokens(ctx, a.ID)
	if err := svc.RevokeToken(ctx, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, other, ""); !errors.Is(err, accounts.ErrTokenRevoked) {
		t.Errorf("revoked: %v, want ErrTokenRevoked", err)
	}
}

func TestCallerRules(t *testing.T) {
	t.Parallel()
	c := accounts.Caller{AccountID: "acct_a", Mode: accounts.Test, Scopes: []string{accounts.WriteShipments, accounts.ReadWebhooks}}
	for scope, want := range map[string]bool{
		accounts.WriteShipments: true, accounts.ReadShipments: true, // write implies read
		accounts.ReadWebhooks: true, accounts.WriteWebhooks: false, accounts.ReadAddresses: false,
	} {
		if c.Can(scope) != want {
			t.Errorf("Can(%s) = %v, want %v", scope, !want, want)
		}
	}
	for _, tc := range []struct {
		account, mode string
		want          error
	}{
		{"acct_a", "test", nil},
		{"acct_a", "live", accounts.ErrWrongMode},
		{"acct_b", "test", accounts.ErrNotFound},
		{"acct_b", "live", accounts.ErrNotFound}, // another account's resource does not exist, whatever its mode
	} {
		if err := c.Reach(tc.account, tc.mode); !errors.Is(err, tc.want) {
			t.Errorf("Reach(%s, %s) = %v, want %v", tc.account, tc.mode, err, tc.want)
		}
	}
}
