package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --help never shows a credential that came from the environment: the
// database's password, the webhook key, the carriers' secrets and account
// numbers, Redis's password. A SQLite path is shown as it is.
func TestHelpMasksCredentials(t *testing.T) {
	secrets := map[string]string{
		"SHIPD_DB":                   "postgres://shipd:hunter2-db@db.internal:5432/shipd",
		"SHIPD_REDIS_URL":            "redis://:hunter2-redis@cache:6379/0",
		"SHIPD_WEBHOOK_KEY":          strings.Repeat("ab", 32),
		"SHIPD_UPS_CLIENT_SECRET":    "hunter2-ups",
		"SHIPD_UPS_ACCOUNT_NUMBER":   "A1B2C3",
		"SHIPD_FEDEX_CLIENT_SECRET":  "hunter2-fedex",
		"SHIPD_FEDEX_ACCOUNT_NUMBER": "740561073",
		"SHIPD_USPS_CLIENT_SECRET":   "hunter2-usps",
		"SHIPD_USPS_ACCOUNT_NUMBER":  "1000405525",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	for _, args := range [][]string{
		{"serve", "--help"}, {"tokens", "create", "--help"}, {"accounts", "create", "--help"}, {"users", "create", "--help"},
	} {
		var out, errOut bytes.Buffer
		_ = run(context.Background(), args, &out, &errOut)
		help := out.String() + errOut.String()
		if !strings.Contains(help, "-db") {
			t.Fatalf("%v: no --db in the help:\n%s", args, help)
		}
		for k, v := range secrets {
			if strings.Contains(help, v) || (k != "SHIPD_DB" && k != "SHIPD_REDIS_URL" && strings.Contains(help, v[:6])) {
				t.Errorf("%v: the help shows $%s:\n%s", args, k, help)
			}
		}
		if !strings.Contains(help, "postgres://shipd:xxxxx@db.internal:5432/shipd") {
			t.Errorf("%v: the help does not show the database with its password masked:\n%s", args, help)
		}
		if strings.Contains(help, "database file") {
			t.Errorf("%v: the help calls the database a file:\n%s", args, help)
		}
	}
}

// serve says at start which carriers live mode can use, or that it has none.
func TestServeLogsLiveCarriers(t *testing.T) {
	t.Parallel()
	s := startServe(t, filepath.Join(t.TempDir(), "shipd.db"))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String()+s.stdout.String(), "live mode has no carrier") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say that live mode has no carrier:\n%s", s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.stderr.String()+s.stdout.String(), "Going live") {
		t.Errorf("the warning does not point at README \"Going live\"")
	}
}
