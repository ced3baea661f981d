package accounts_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/store"
)

// setupUsers is setup with the cheapest bcrypt cost, so that tests signing
// in many times stay fast; the cost changes nothing else.
func setupUsers(t *testing.T) (*accounts.Service, *store.Store, *fakeclock.Clock) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "shipd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := fakeclock.New(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	return accounts.New(st, accounts.Config{Now: c.Now, PasswordCost: bcrypt.MinCost}), st, c
}

const goodPassword = "correct horse battery"

func TestCreateUserRules(t *testing.T) {
	t.Parallel()
	svc, st, _ := setupUsers(t)
	ctx := t.Context()
	a, err := svc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.CreateUser(ctx, a.ID, "  Ada@Example.COM ", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ada@example.com" || u.AccountID != a.ID || !strings.HasPrefix(u.ID, "usr_") {
		t.Fatalf("user %+v", u)
	}
	stored, err := st.User(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored.PasswordHash, goodPassword) || bcrypt.CompareHashAndPassword([]byte(stored.PasswordHash), []byte(goodPassword)) != nil {
		t.Fatalf("stored hash %q is not a bcrypt hash of the password", stored.PasswordHash)
	}
	for name, tc := range map[string]struct {
		account, email, password string
		want                     error
	}{
		"11 characters":        {a.ID, "b@example.com", "elevenchars", accounts.ErrWeakPassword},
		"over 72 bytes":        {a.ID, "b@example.com", strings.Repeat("é", 40), accounts.ErrPasswordTooLong},
		"no @":                 {a.ID, "example.com", goodPassword, accounts.ErrInvalidEmail},
		"space inside":         {a.ID, "a b@example.com", goodPassword, accounts.ErrInvalidEmail},
		"two @":                {a.ID, "a@b@example.com", goodPassword, accounts.ErrInvalidEmail},
		"same email, cased":    {a.ID, "ADA@example.com", goodPassword, accounts.ErrDuplicateEmail},
		"missing account":      {"acct_nope", "c@example.com", goodPassword, accounts.ErrNotFound},
		"taken in any account": {a.ID, "ada@example.com", goodPassword, accounts.ErrDuplicateEmail},
	} {
		if _, err := svc.CreateUser(ctx, tc.account, tc.email, tc.password); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
	// Twelve characters are enough, multi-byte ones included.
	if _, err := svc.CreateUser(ctx, a.ID, "zoe@example.com", "ééééééééééé1"); err != nil {
		t.Errorf("12-character password: %v", err)
	}
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	svc, st, _ := setupUsers(t)
	ctx := t.Context()
	a, _ := svc.CreateAccount(ctx, "Acme", true)
	u, err := svc.CreateUser(ctx, a.ID, "ada@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ email, password string }{
		{"ada@example.com", goodPassword + "!"},
		{"nobody@example.com", goodPassword},
		{"", ""},
	} {
		if _, err := svc.SignIn(ctx, bad.email, bad.password); !errors.Is(err, accounts.ErrBadCredentials) {
			t.Errorf("SignIn(%q, %q) = %v, want ErrBadCredentials", bad.email, bad.password, err)
		}
	}
	in, err := svc.SignIn(ctx, "ADA@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.ID) != 43 || in.User.ID != u.ID {
		t.Fatalf("signed in: id %q (want 43 base64url characters), user %+v", in.ID, in.User)
	}
	// Only the SHA-256 of the id is stored.
	sum := sha256.Sum256([]byte(in.ID))
	sess, err := st.Session(ctx, sum[:])
	if err != nil {
		t.Fatalf("no session stored under the id's hash: %v", err)
	}
	if _, err := st.Session(ctx, []byte(in.ID)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a session is stored under the raw id: %v", err)
	}
	if sess.Mode != "test" || !sess.ExpiresAt.Equal(sess.CreatedAt.Add(accounts.DefaultSessionLifetime)) {
		t.Errorf("session %+v: want test mode, ending 12 h after its start", sess)
	}
	c, err := svc.SessionCaller(ctx, in.ID, "198.51.100.7")
	if err != nil {
		t.Fatal(err)
	}
	if c.AccountID != a.ID || c.Mode != accounts.Test || c.UserID != u.ID || c.UserEmail != u.Email ||
		c.ClientIP != "198.51.100.7" || c.TokenID != "" || c.Actor() != "ada@example.com" || strings.Contains(c.SessionID, in.ID) {
		t.Errorf("caller %+v", c)
	}
	for _, scope := range accounts.Scopes() {
		if !c.Can(scope) {
			t.Errorf("a user's caller lacks %s", scope)
		}
	}
	for _, junk := range []string{"", "short", strings.Repeat("A", 43), in.ID + "x"} {
		if _, err := svc.SessionCaller(ctx, junk, ""); !errors.Is(err, accounts.ErrSessionEnded) {
			t.Errorf("SessionCaller(%q) = %v, want ErrSessionEnded", junk, err)
		}
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	svc, _, clk := setupUsers(t)
	ctx := t.Context()
	a, _ := svc.CreateAccount(ctx, "Acme", true)
	if _, err := svc.CreateUser(ctx, a.ID, "ada@example.com", goodPassword); err != nil {
		t.Fatal(err)
	}
	use := func(id string) error { _, err := svc.SessionCaller(ctx, id, ""); return err }

	// Idle: each use restarts the 30 minutes.
	idle, err := svc.SignIn(ctx, "ada@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		clk.Advance(29 * time.Minute)
		if err := use(idle.ID); err != nil {
			t.Fatalf("used within 29 min of the last use: %v", err)
		}
	}
	clk.Advance(30 * time.Minute)
	if err := use(idle.ID); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Fatalf("after 30 idle minutes: %v, want ErrSessionEnded", err)
	}

	// Absolute: in use all along, it still ends 12 h after sign-in.
	busy, err := svc.SignIn(ctx, "ada@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	for elapsed := 20 * time.Minute; elapsed < 12*time.Hour; elapsed += 20 * time.Minute {
		clk.Advance(20 * time.Minute)
		if err := use(busy.ID); err != nil {
			t.Fatalf("in use at %v: %v", elapsed, err)
		}
	}
	clk.Advance(20 * time.Minute)
	if err := use(busy.ID); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Fatalf("12 h after sign-in: %v, want ErrSessionEnded", err)
	}
}

func TestSignOutStopsWrites(t *testing.T) {
	t.Parallel()
	svc, _, _ := setupUsers(t)
	ctx := t.Context()
	a, _ := svc.CreateAccount(ctx, "Acme", true)
	if _, err := svc.CreateUser(ctx, a.ID, "ada@example.com", goodPassword); err != nil {
		t.Fatal(err)
	}
	in, _ := svc.SignIn(ctx, "ada@example.com", goodPassword)
	c, err := svc.SessionCaller(ctx, in.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.SwitchMode(ctx, c, accounts.Live); err != nil {
		t.Fatal(err)
	}
	if c, err = svc.SessionCaller(ctx, in.ID, ""); err != nil || c.Mode != accounts.Live {
		t.Fatalf("after switching: mode %s, %v; want live", c.Mode, err)
	}
	if err := svc.SignOut(ctx, in.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.SignOut(ctx, in.ID); err != nil {
		t.Errorf("signing out twice: %v", err)
	}
	if _, err := svc.SessionCaller(ctx, in.ID, ""); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("after sign-out: %v, want ErrSessionEnded", err)
	}
	// A request that resolved its caller before the sign-out writes nothing.
	if _, _, err := svc.CreateTokenAs(ctx, c, accounts.NewToken{Mode: accounts.Live, Scopes: accounts.Scopes()}); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("CreateTokenAs after sign-out: %v, want ErrSessionEnded", err)
	}
	if ts, _ := svc.ListTokens(ctx, a.ID); len(ts) != 0 {
		t.Errorf("a signed-out session created %d tokens", len(ts))
	}
	if err := svc.SwitchMode(ctx, c, accounts.Test); !errors.Is(err, accounts.ErrSessionEnded) {
		t.Errorf("SwitchMode after sign-out: %v, want ErrSessionEnded", err)
	}
}

func TestTokensAsUserAndAudit(t *testing.T) {
	t.Parallel()
	svc, _, _ := setupUsers(t)
	ctx := t.Context()
	a, _ := svc.CreateAccount(ctx, "Acme", true)
	other, _ := svc.CreateAccount(ctx, "Other", true)
	if _, err := svc.CreateUser(ctx, a.ID, "ada@example.com", goodPassword); err != nil {
		t.Fatal(err)
	}
	in, _ := svc.SignIn(ctx, "ada@example.com", goodPassword)
	c, _ := svc.SessionCaller(ctx, in.ID, "198.51.100.7")

	tok, secret, err := svc.CreateTokenAs(ctx, c, accounts.NewToken{AccountID: other.ID, Name: " CI deploys ", Mode: accounts.Test, Scopes: []string{accounts.ReadShipments}})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccountID != a.ID || tok.Name != "CI deploys" || !strings.HasPrefix(secret, tok.Prefix) {
		t.Fatalf("token %+v: want the caller's account whatever was asked, the name trimmed", tok)
	}
	if _, _, err := svc.CreateTokenAs(ctx, c, accounts.NewToken{Name: strings.Repeat("n", 101), Mode: accounts.Test, Scopes: accounts.Scopes()}); !errors.Is(err, accounts.ErrTokenName) {
		t.Errorf("a 101-character name: %v, want ErrTokenName", err)
	}
	live, _, err := svc.CreateTokenAs(ctx, c, accounts.NewToken{Mode: accounts.Live, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	foreign, _, err := svc.CreateToken(ctx, accounts.NewToken{AccountID: other.ID, Mode: accounts.Test, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := svc.Tokens(ctx, c)
	if err != nil || len(listed) != 1 || listed[0].ID != tok.ID {
		t.Fatalf("Tokens in test mode = %+v, %v; want only %s", listed, err, tok.ID)
	}
	if err := svc.RevokeTokenAs(ctx, c, foreign.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("revoking another account's token: %v, want ErrNotFound", err)
	}
	if err := svc.RevokeTokenAs(ctx, c, live.ID); !errors.Is(err, accounts.ErrWrongMode) {
		t.Errorf("revoking a live token in test mode: %v, want ErrWrongMode", err)
	}
	if err := svc.RevokeTokenAs(ctx, c, "tok_missing"); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("revoking a missing token: %v, want ErrNotFound", err)
	}
	if err := svc.RevokeTokenAs(ctx, c, tok.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.RevokeTokenAs(ctx, c, tok.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if ts, _ := svc.ListTokens(ctx, other.ID); len(ts) != 1 || ts[0].RevokedAt != nil {
		t.Errorf("another account's token was touched: %+v", ts)
	}

	log, more, err := svc.AuditLog(ctx, c, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, e.Actor+" "+e.Action+" "+e.IP)
		if !strings.HasPrefix(e.Target, tok.ID+" "+tok.Prefix) {
			t.Errorf("target %q, want the token's id and prefix", e.Target)
		}
	}
	want := []string{"ada@example.com token.revoked 198.51.100.7", "ada@example.com token.created 198.51.100.7"}
	if strings.Join(got, "|") != strings.Join(want, "|") || more {
		t.Errorf("test-mode audit log %q (more %v), want %q: one revocation, and never the other mode's or account's", got, more, want)
	}
	c.Mode = accounts.Live
	if log, _, _ = svc.AuditLog(ctx, c, 0, 10); len(log) != 1 || log[0].Action != accounts.AuditTokenCreated {
		t.Errorf("live audit log %+v, want the live token's creation", log)
	}
	// The operator's changes are recorded too.
	if err := svc.RevokeToken(ctx, foreign.ID); err != nil {
		t.Fatal(err)
	}
	otherCaller := accounts.Caller{AccountID: other.ID, Mode: accounts.Test}
	if log, _, _ = svc.AuditLog(ctx, otherCaller, 0, 10); len(log) != 2 || log[0].Actor != accounts.OperatorActor || log[0].Action != accounts.AuditTokenRevoked {
		t.Errorf("operator audit log %+v", log)
	}
}
