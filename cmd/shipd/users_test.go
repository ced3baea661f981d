package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/accounts"
)

// users runs "shipd users ARGS" with stdin; run reads the process's stdin,
// so the tests call the command itself.
func users(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := usersCmd(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), err
}

func TestUsersCreate(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	var acct createdAccount
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Acme")

	out, err := users(t, "correct horse battery\n", "create", "--db", db, "--account", acct.ID, "--email", "Ada@Example.com", "--password-stdin")
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID, AccountID, Email string }
	if err := json.Unmarshal([]byte(out), &created); err != nil || !strings.HasPrefix(created.ID, "usr_") ||
		created.AccountID != acct.ID || created.Email != "ada@example.com" {
		t.Fatalf("output %q (%v): want {\"id\": \"usr_…\"} with the account and the lower-cased email", out, err)
	}
	// The password read from stdin, without its line ending, signs in.
	acc := openTestAccounts(t, db)
	if _, err := acc.SignIn(context.Background(), "ada@example.com", "correct horse battery"); err != nil {
		t.Fatalf("signing in with the created user: %v", err)
	}

	for name, tc := range map[string]struct {
		stdin string
		args  []string
		says  string
	}{
		"weak password":   {"elevenchars\n", []string{"--account", acct.ID, "--email", "b@example.com"}, "at least 12 characters"},
		"duplicate email": {"another good password\n", []string{"--account", acct.ID, "--email", "ADA@example.com"}, "already exists"},
		"missing account": {"another good password\n", []string{"--account", "acct_nope", "--email", "c@example.com"}, "does not exist"},
		"invalid email":   {"another good password\n", []string{"--account", acct.ID, "--email", "not-an-email"}, "not valid"},
		"empty stdin":     {"", []string{"--account", acct.ID, "--email", "d@example.com"}, "no password on stdin"},
	} {
		args := append(append([]string{"create", "--db", db}, tc.args...), "--password-stdin")
		if _, err := users(t, tc.stdin, args...); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.says)
		}
	}
	var ue usageError
	if _, err := users(t, "correct horse battery\n", "create", "--db", db, "--account", acct.ID, "--email", "e@example.com"); !errors.As(err, &ue) {
		t.Errorf("without --password-stdin: %v, want a usage error", err)
	}
	if _, err := users(t, "", "--help"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v", err)
	}
}

func TestFirstStartPrintsADemoUser(t *testing.T) {
	t.Parallel()
	acc := openTestAccounts(t, filepath.Join(t.TempDir(), "shipd.db"))
	var out bytes.Buffer
	if err := seedDemo(context.Background(), acc, "http://127.0.0.1:8080", &out); err != nil {
		t.Fatal(err)
	}
	var demo struct{ AccountID, Token, Email, Password, SettingsURL string }
	if err := json.Unmarshal(out.Bytes(), &demo); err != nil {
		t.Fatal(err)
	}
	if demo.Email != demoEmail || len(demo.Password) < accounts.MinPasswordLength || demo.SettingsURL != "http://127.0.0.1:8080/settings/" {
		t.Fatalf("demo output %+v", demo)
	}
	if _, err := acc.SignIn(context.Background(), demo.Email, demo.Password); err != nil {
		t.Fatalf("the printed password does not sign in: %v", err)
	}
	// Once: a second start prints nothing.
	out.Reset()
	if err := seedDemo(context.Background(), acc, "http://127.0.0.1:8080", &out); err != nil || out.Len() != 0 {
		t.Fatalf("second start: %v, printed %q", err, out.String())
	}
}
