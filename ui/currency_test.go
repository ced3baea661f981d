package ui_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// An account billed in euros sees its currency, its balance, its ledger and
// its labels in euros, never in dollars.
func TestAccountPageInItsCurrency(t *testing.T) {
	t.Parallel()
	b := setup(t, withScanInterval(time.Hour))
	_, email, token := b.newAccountIn("Kiezladen", "versand@kiezladen.example", "EUR")
	status, body := b.api("POST", "/labels/create", token, map[string]any{
		"fromAddress": map[string]any{"name": "Kiezladen GmbH", "phone": "+49 30 1234567", "street1": "Friedrichstraße 43", "city": "Berlin", "zip": "10117", "country": "DE"},
		"toAddress":   map[string]any{"name": "Erika Mustermann", "phone": "+49 89 7654321", "street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE"},
		"parcel":      map[string]any{"weightG": 2500},
		"carrier":     "DHLParcelDE",
	})
	if status != http.StatusAccepted || body["currency"] != "EUR" {
		t.Fatalf("POST /labels/create: %d %v", status, body)
	}
	id := body["id"].(string)
	eventually(t, func() bool {
		_, sh := b.api("GET", "/labels/"+id, token, nil)
		return sh["status"] == "purchased"
	})
	if status, body := b.api("POST", "/labels/"+id+"/refund", token, nil); status != http.StatusAccepted {
		t.Fatalf("refund: %d %v", status, body)
	}
	eventually(t, func() bool {
		_, sh := b.api("GET", "/labels/"+id, token, nil)
		return sh["status"] == "voided"
	})

	br := b.browser()
	br.signIn(email)
	account := br.get("/settings/account")
	must(t, "account", account, http.StatusOK, "<dt>Currency</dt><dd class=\"currency\">EUR", "Refund credit")
	if !strings.Contains(account.body, " EUR</dd>") || !strings.Contains(account.body, " EUR</td>") {
		t.Errorf("the balance or the ledger is not in euros:\n%s", account.body)
	}
	if strings.Contains(account.body, "$") {
		t.Errorf("dollars on a euro account's page:\n%s", account.body)
	}
	detail := br.get("/settings/shipments/" + id)
	must(t, "shipment", detail, http.StatusOK, " EUR")
	if strings.Contains(detail.body, "$") {
		t.Errorf("dollars on a euro label's page:\n%s", detail.body)
	}
}
