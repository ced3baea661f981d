package ui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func TestCarrierAccountsPage(t *testing.T) {
	t.Parallel()
	fake := upsfake.New(t)
	b := setup(t, withCarrierAccounts(map[carriers.ID]carriers.Endpoints{"UPS": {Production: fake.URL(), Test: fake.URL()}}))
	br := b.browser()
	br.signIn(b.email)

	// Test mode: the sandbox, nothing to add.
	p := br.get("/settings/carrier-accounts")
	must(t, "test mode", p, http.StatusOK, "Carrier accounts are connected in live mode", "No carrier accounts in test mode")
	if strings.Contains(p.body, "Connect UPS") {
		t.Fatal("test mode offers the add form")
	}

	br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/carrier-accounts"}})
	must(t, "live mode", br.get("/settings/carrier-accounts"), http.StatusOK, "Connect UPS", "Connect FedEx", "Connect USPS",
		`<label for="ups-client-id">Client ID</label>`, `<label for="fedex-client-id">API key</label>`,
		`<label for="usps-crid">CRID (Customer Registration ID)</label>`, `<label for="usps-mid">MID (Mailer ID)</label>`)

	form := url.Values{"carrier": {"UPS"}, "description": {"our <contract>"}, "clientId": {upsfake.ClientID},
		"clientSecret": {"not-the-secret-1234"}, "accountNumber": {upsfake.AccountNumber}, "environment": {"test"}}
	p = br.post("/settings/carrier-accounts", form)
	must(t, "refused credentials", p, http.StatusUnprocessableEntity, "UPS refused these credentials", "our &lt;contract&gt;")
	if strings.Contains(p.body, "not-the-secret-1234") {
		t.Fatal("the refused form shows the secret again")
	}

	form.Set("clientSecret", upsfake.ClientSecret)
	p = br.post("/settings/carrier-accounts", form)
	if p.status != http.StatusSeeOther || p.location() != "/settings/carrier-accounts?done=carrier-connected" {
		t.Fatalf("connect: %d %s\n%s", p.status, p.location(), p.body)
	}
	p = br.get(p.location())
	must(t, "connected", p, http.StatusOK, "Carrier account connected", "our &lt;contract&gt;", "Carriers: UPS (your account "+upsfake.AccountNumber+").", "••••"+upsfake.ClientID[len(upsfake.ClientID)-4:],
		upsfake.AccountNumber, "enabled", "Test connection")
	if strings.Contains(p.body, upsfake.ClientSecret) || strings.Contains(p.body, upsfake.ClientID) {
		t.Fatal("the page shows the secret or the whole client id")
	}
	id := regexp.MustCompile(`data-carrier-account="(ca_[0-9a-f]+)"`).FindStringSubmatch(p.body)
	if id == nil {
		t.Fatalf("no carrier account row\n%s", p.body)
	}
	base := "/settings/carrier-accounts/" + id[1]

	for _, step := range []struct{ path, notice, shows string }{
		{"/test", "Connection works", "Disable"},
		{"/disable", "Carrier account disabled", "disabled"},
		{"/enable", "Carrier account enabled", "Disable"},
		{"/delete", "Carrier account deleted", "No carrier accounts in live mode"},
	} {
		p := br.post(base+step.path, nil)
		if p.status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", step.path, p.status, p.body)
		}
		must(t, step.path, br.get(p.location()), http.StatusOK, step.notice, step.shows)
	}

	// A deleted carrier account is gone from the pages.
	must(t, "deleted", br.post(base+"/disable", nil), http.StatusNotFound, "There is no such object")
}
