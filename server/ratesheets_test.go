package server_test

// A carrier account's own rate sheet through the API (PUT, GET and DELETE
// /carrier-accounts/{id}/rate-sheet), against the GLS fake: GLS has no
// rating API, so the tenant's GLS account quotes exactly what its sheet
// prices.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// putRateSheet sets a carrier account's rate sheet and fails t unless it
// was taken.
func putRateSheet(t *testing.T, b *bundle, token, id, sheet string) map[string]any {
	t.Helper()
	r, err := b.send("PUT", "/api/v1/carrier-accounts/"+id+"/rate-sheet", token, sheet, "Content-Type", "text/csv")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, http.StatusOK)
	return r.JSON(t)
}

// connectGLS connects the tenant's GLS account (acmeGLS…) and returns its id.
func connectGLS(t *testing.T, b *bundle, token string) string {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", token, map[string]any{"carrier": "GLS", "description": "our GLS contract",
		"credentials": map[string]any{"clientId": acmeGLSClient, "clientSecret": acmeGLSSecret, "contactId": acmeGLSContact}})
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	return a.ID
}

const sheetHeader = "service,destination,maxWeightG,price,currency\n"

// The life of a carrier account's rate sheet: without one, the tenant's
// GLS account quotes nothing and says where to send one; a sheet with a
// mistake is 422 invalid_rate_sheet at its line and column and stores
// nothing; a sheet taken is read back byte for byte, shown on the account
// (rateSheet), and prices the account's next quote; a new one replaces it
// (sent as curl --data-binary sends it, Content-Type and all); removed,
// the account quotes nothing again.
func TestCarrierAccountRateSheetAPI(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t)
	fake.AddClient(acmeGLSClient, acmeGLSSecret, acmeGLSContact)
	id := connectGLS(t, b, live)
	path := "/api/v1/carrier-accounts/" + id + "/rate-sheet"

	m := wantError(t, b.do("POST", "/api/v1/labels/quote", live, germanBody()), http.StatusUnprocessableEntity, "carrier_rejected")
	if !strings.Contains(fmt.Sprint(m["carrierErrors"]), "PUT /api/v1/carrier-accounts/{id}/rate-sheet") {
		t.Errorf("a GLS account without a sheet: %v, want it to say where a sheet is sent", m["carrierErrors"])
	}
	wantError(t, b.do("GET", path, live, nil), http.StatusNotFound, "no_rate_sheet")
	wantError(t, b.do("DELETE", path, live, nil), http.StatusNotFound, "no_rate_sheet")

	for _, tc := range []struct {
		name, sheet  string
		line, column float64 // column 0: none (the whole line)
		says         string
	}{
		{"a decimal comma", sheetHeader + "Parcel,DE,2000,4,10,EUR\n", 2, 0, "6 fields, want 5"},
		{"three decimals", sheetHeader + "Parcel,DE,2000,4.10,EUR\nParcel,*,31500,14.905,EUR\n", 3, 4, "line 3, column 4 (price)"},
		{"kilograms", sheetHeader + "Parcel,DE,2kg,4.10,EUR\n", 2, 3, "whole number of grams"},
		{"another header", "service;destination;maxWeightG;price;currency\nParcel;DE;2000;4.10;EUR\n", 1, 0, "the header must be"},
		{"empty", "", 1, 0, "no rows"},
	} {
		r, err := b.send("PUT", path, live, tc.sheet, "Content-Type", "text/csv")
		if err != nil {
			t.Fatal(err)
		}
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_rate_sheet")
		col, hasCol := m["column"]
		if m["line"] != tc.line || (tc.column == 0) == hasCol || hasCol && col != tc.column || !strings.Contains(m["error"].(string), tc.says) {
			t.Errorf("%s: %v, want line %v column %v saying %q", tc.name, m, tc.line, tc.column, tc.says)
		}
	}
	wantError(t, b.do("GET", path, live, nil), http.StatusNotFound, "no_rate_sheet")

	sheet := sheetHeader + "Parcel,DE,2000,4.10,EUR\r\nParcel,*,31500,14.90,EUR\r\n"
	got := putRateSheet(t, b, live, id, sheet)
	rs, _ := got["rateSheet"].(map[string]any)
	if rs["rows"] != 2.0 || rs["updatedAt"] == nil || got["id"] != id {
		t.Errorf("the account after PUT: %v", got)
	}
	r := b.do("GET", path, live, nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || string(r.Body) != sheet {
		t.Errorf("GET: %s %q, want the sheet as sent", ct, r.Body)
	}
	r = b.do("GET", "/api/v1/carrier-accounts/"+id, live, nil)
	wantStatus(t, r, http.StatusOK)
	if rs, _ := r.JSON(t)["rateSheet"].(map[string]any); rs["rows"] != 2.0 {
		t.Errorf("GET /carrier-accounts/{id}: %s", r.Body)
	}

	// About 2 kg within Germany: the DE row that holds it, in euros.
	rates := quoteRates(t, b, live, germanBody())
	if len(rates) != 1 || rates[0].Service != "Parcel" || rates[0].CarrierRateCents != 410 || rates[0].Currency != "EUR" {
		t.Fatalf("rates through the account: %+v", rates)
	}

	// curl --data-binary @sheet.csv sends application/x-www-form-urlencoded.
	r, err := b.send("PUT", path, live, sheetHeader+"Parcel,*,31500,3.75,EUR\n", "Content-Type", "application/x-www-form-urlencoded")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, http.StatusOK)
	if rates := quoteRates(t, b, live, germanBody()); len(rates) != 1 || rates[0].CarrierRateCents != 375 {
		t.Fatalf("rates after the sheet was replaced: %+v", rates)
	}

	r = b.do("DELETE", path, live, nil)
	wantStatus(t, r, http.StatusNoContent)
	wantError(t, b.do("GET", path, live, nil), http.StatusNotFound, "no_rate_sheet")
	wantError(t, b.do("POST", "/api/v1/labels/quote", live, germanBody()), http.StatusUnprocessableEntity, "carrier_rejected")
	r = b.do("GET", "/api/v1/carrier-accounts/"+id, live, nil)
	if _, shown := r.JSON(t)["rateSheet"]; shown {
		t.Errorf("the account still shows a rate sheet: %s", r.Body)
	}
}

// A rate sheet is one account's: another account's token finds no such
// carrier account (404 not_found, as for every carrier account operation),
// a test-mode token is in the other mode (403 wrong_mode), and neither
// changes the sheet.
func TestCarrierAccountRateSheetScope(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t)
	fake.AddClient(acmeGLSClient, acmeGLSSecret, acmeGLSContact)
	id := connectGLS(t, b, live)
	path := "/api/v1/carrier-accounts/" + id + "/rate-sheet"
	sheet := sheetHeader + "Parcel,*,31500,3.33,EUR\n"
	putRateSheet(t, b, live, id, sheet)

	other := b.newAccount("Other", true)
	_, otherLive := b.newToken(other.ID, "live", allScopes...)
	_, test := b.newToken(b.account.ID, "test", allScopes...)
	for _, tok := range []struct {
		name, token, status, code string
	}{{"another account", otherLive, "404", "not_found"}, {"test mode", test, "403", "wrong_mode"}} {
		status := map[string]int{"404": http.StatusNotFound, "403": http.StatusForbidden}[tok.status]
		r, err := b.send("PUT", path, tok.token, sheetHeader+"Parcel,*,31500,0.01,EUR\n", "Content-Type", "text/csv")
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, r, status, tok.code)
		wantError(t, b.do("GET", path, tok.token, nil), status, tok.code)
		wantError(t, b.do("DELETE", path, tok.token, nil), status, tok.code)
	}
	r := b.do("GET", path, live, nil)
	wantStatus(t, r, http.StatusOK)
	if string(r.Body) != sheet {
		t.Errorf("the sheet after others' attempts: %q", r.Body)
	}
	// An unknown id is the same 404 as another account's.
	wantError(t, b.do("GET", "/api/v1/carrier-accounts/ca_000000000000000000000000/rate-sheet", live, nil), http.StatusNotFound, "not_found")
}

// At most 10,000 rows (422 naming the limit at the first row past it) and
// 2 MiB (413 payload_too_large, as for every body past its limit).
func TestCarrierAccountRateSheetLimits(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t)
	fake.AddClient(acmeGLSClient, acmeGLSSecret, acmeGLSContact)
	id := connectGLS(t, b, live)
	path := "/api/v1/carrier-accounts/" + id + "/rate-sheet"

	rows := func(n int) string {
		var s strings.Builder
		s.WriteString(sheetHeader)
		for i := range n {
			fmt.Fprintf(&s, "Parcel,DE,%d,4.10,EUR\n", i+1)
		}
		return s.String()
	}
	m := putRateSheet(t, b, live, id, rows(carriers.MaxRateSheetRows))
	if rs, _ := m["rateSheet"].(map[string]any); rs["rows"] != float64(carriers.MaxRateSheetRows) {
		t.Errorf("10,000 rows: %v", m["rateSheet"])
	}
	r, err := b.send("PUT", path, live, rows(carriers.MaxRateSheetRows+1), "Content-Type", "text/csv")
	if err != nil {
		t.Fatal(err)
	}
	m = wantError(t, r, http.StatusUnprocessableEntity, "invalid_rate_sheet")
	if diff := cmp.Diff(map[string]any{"line": 10002.0, "says": true}, map[string]any{"line": m["line"],
		"says": strings.Contains(m["error"].(string), "more than 10000 rows")}); diff != "" || m["column"] != nil {
		t.Errorf("10,001 rows (-want +got):\n%s%v", diff, m)
	}

	big := sheetHeader + strings.Repeat("Parcel"+strings.Repeat(" ", 250)+",DE,2000,4.10,EUR\n", (carriers.MaxRateSheetBytes/270)+1)
	r, err = b.send("PUT", path, live, big, "Content-Type", "text/csv")
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, http.StatusRequestEntityTooLarge, "payload_too_large")
	// The sheet taken before is kept.
	if r := b.do("GET", path, live, nil); r.Status != http.StatusOK || !strings.HasSuffix(string(r.Body), "Parcel,DE,10000,4.10,EUR\n") {
		t.Errorf("after refused sheets: %d", r.Status)
	}
}

// For a carrier with a rating API (UPS) a carrier account's sheet
// overrides the carrier's prices of the services it names (negotiated
// prices the API does not return); the others keep the carrier's. The sheet
// is stored sealed: the database holds none of its text.
func TestCarrierAccountRateSheetOverridesUPS(t *testing.T) {
	t.Parallel()
	b, _, live := setupCarrierAccounts(t)
	a := connectUPS(t, b, live, upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)
	prices := func() map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		for _, r := range quoteRates(t, b, live, liveBody()) {
			out[r.Carrier+" "+r.Service] = r.CarrierRateCents
		}
		return out
	}
	want := prices()
	if _, ok := want["UPS Ground"]; !ok || len(want) < 2 {
		t.Fatalf("UPS's own prices: %v", want)
	}
	putRateSheet(t, b, live, a.ID, sheetHeader+"Ground,US,30000,7.77,USD\nGround,*,30000,25,USD\n")
	want["UPS Ground"] = 777
	if diff := cmp.Diff(want, prices()); diff != "" {
		t.Errorf("with the sheet (-want +got):\n%s", diff)
	}
	var sealed string
	if err := b.sql(t).Get(&sealed, `SELECT sheet_ciphertext FROM carrier_account_rate_sheets`); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed, "v1:") || strings.Contains(sealed, "Ground") || strings.Contains(sealed, "7.77") {
		t.Errorf("the stored sheet is not sealed: %.60q", sealed)
	}
}
