package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// dhlFlags are the operator's DHL Paket at the fake: the generated
// --dhlparcelde-* flags of the descriptor's credential fields.
func dhlFlags(fake *dhlparceldefake.Server) []string {
	return []string{"--dhlparcelde-api-key", dhlparceldefake.APIKey, "--dhlparcelde-username", dhlparceldefake.Username,
		"--dhlparcelde-password", dhlparceldefake.Password, "--dhlparcelde-billing-number", dhlparceldefake.BillingNumber,
		"--dhlparcelde-base-url", fake.URL()}
}

func dhlLabelBody() map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"name": "Max Mustermann", "company": "Mein Online-Shop GmbH", "street1": "Sträßchensweg 10", "city": "Bonn", "zip": "53113", "country": "DE"},
		"toAddress":   map[string]any{"name": "Erika Mustermann", "street1": "Heidestr. 17", "city": "Köln", "zip": "51147", "country": "DE"},
		"parcel":      map[string]any{"weightOz": 88},
	}
}

// The operator's DHL Paket, from its flags, priced by its rate sheet
// (--dhlparcelde-rate-sheet): a quote in euros, a label bought at DHL and
// served.
func TestDHLParcelDEFromFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sheet := filepath.Join(dir, "dhl.csv")
	if err := os.WriteFile(sheet, []byte("service,destination,maxWeightG,price,currency\nV01PAK,DE,5000,5.49,EUR\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Paket", "--currency", "EUR")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live", "--scopes", "read:shipments,write:shipments")
	fake := dhlparceldefake.New(t)
	s := startServe(t, db, append(dhlFlags(fake), "--dhlparcelde-rate-sheet", sheet)...)
	status, quote := s.call(t, "POST", "/api/v1/labels/quote", tok.Token, dhlLabelBody())
	if status != http.StatusOK {
		t.Fatalf("quote: %d %v", status, quote)
	}
	rates := quote["rates"].([]any)
	if len(rates) != 1 {
		t.Fatalf("rates %v, want DHL Paket alone", rates)
	}
	r := rates[0].(map[string]any)
	if r["carrier"] != "DHLParcelDE" || r["service"] != "Paket" || r["carrierRateCents"] != 549.0 || r["currency"] != "EUR" {
		t.Fatalf("rate %v, want the sheet's Paket at 5.49 EUR", r)
	}
	body := dhlLabelBody()
	body["carrier"], body["service"] = "DHLParcelDE", "Paket"
	status, created := s.call(t, "POST", "/api/v1/labels/create", tok.Token, body)
	if status != http.StatusAccepted {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	var label map[string]any
	waitFor(t, "the DHL label to be purchased", func() bool {
		_, label = s.call(t, "GET", "/api/v1/labels/"+id, tok.Token, nil)
		return label["status"] == "purchased" || label["status"] == "failed"
	})
	if label["status"] != "purchased" || !strings.HasPrefix(label["trackingNumber"].(string), "00340434") {
		t.Fatalf("label %v", label)
	}
	if sales := fake.ByReference(id); len(sales) != 1 {
		t.Fatalf("DHL's orders under %s: %v", id, sales)
	}
}

// Without a rate sheet the operator's DHL Paket cannot price anything: the
// quote says where the sheet is set, and the flags' mistakes are refused
// at start (a billing number of the wrong form).
func TestDHLParcelDENeedsARateSheet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")
	var acct struct{ ID string }
	cliOK(t, &acct, "accounts", "create", "--db", db, "--name", "Paket", "--currency", "EUR")
	var tok struct{ Token string }
	cliOK(t, &tok, "tokens", "create", "--db", db, "--account", acct.ID, "--mode", "live", "--scopes", "read:shipments,write:shipments")
	fake := dhlparceldefake.New(t)
	s := startServe(t, db, dhlFlags(fake)...)
	status, answer := s.call(t, "POST", "/api/v1/labels/quote", tok.Token, dhlLabelBody())
	msg, _ := answer["error"].(string)
	if status != http.StatusUnprocessableEntity || !strings.Contains(msg, "SHIPD_DHLPARCELDE_RATE_SHEET") || !strings.Contains(msg, "--rate-sheet DHLParcelDE=FILE") {
		t.Fatalf("a quote without a rate sheet: %d %v", status, answer)
	}

	flags := dhlFlags(fake)
	flags[7] = "3333333333010" // 13 characters
	code, _, stderr := cli(t, append([]string{"serve", "--db", filepath.Join(dir, "other.db"), "--addr", freeAddr(t)}, flags...)...)
	if code == 0 || !strings.Contains(stderr, "BillingNumber") {
		t.Fatalf("serve with a 13-character billing number: exit %d, %s", code, stderr)
	}
}
