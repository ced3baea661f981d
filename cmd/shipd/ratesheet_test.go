package main

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// The operator's rate sheet prices a live carrier's rates over its API's:
// UPS Ground to the US from the sheet, UPS's other services as UPS quoted.
func TestOperatorRateSheet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sheet := filepath.Join(dir, "ups.csv")
	if err := os.WriteFile(sheet, []byte("service,destination,maxWeightG,price,currency\nGround,US,1000,3.21,USD\nGround,US,5000,4.32,USD\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Sheet")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live", "--scopes", "read:shipments,write:shipments")
	fake := upsfake.New(t)
	s := startServe(t, db, "--ups-client-id", upsfake.ClientID, "--ups-client-secret", upsfake.ClientSecret,
		"--ups-account-number", upsfake.AccountNumber, "--ups-base-url", fake.URL(), "--rate-sheet", "UPS="+sheet)
	status, quote := s.call(t, "POST", "/api/v1/labels/quote", tok.Token, labelBody()) // 32 oz: 907.2 g
	if status != http.StatusOK {
		t.Fatalf("quote: %d %v", status, quote)
	}
	ground, others := 0.0, 0
	for _, r := range quote["rates"].([]any) {
		r := r.(map[string]any)
		if r["carrier"] != "UPS" {
			continue
		}
		if r["service"] == "Ground" {
			ground = r["carrierRateCents"].(float64)
		} else if r["carrierRateCents"].(float64) > 0 {
			others++
		}
	}
	if ground != 321 || others == 0 {
		t.Errorf("UPS Ground %v cents (want the sheet's 321), %d other UPS services priced by UPS; quote %v", ground, others, quote)
	}
}
