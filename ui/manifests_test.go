package ui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// The manifests page counts the labels waiting per carrier; Create manifest
// puts them on one (once, however often the form is sent), the list shows
// it and its form downloads as a PDF. UPS has no manifest step and no row.
func TestManifestsPageCreatesAndDownloads(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var ids []string
	for range 2 {
		status, body := b.api("POST", "/labels/create", b.token, map[string]any{
			"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
			"toAddress":   map[string]any{"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
			"parcel":      map[string]any{"weightOz": 32}, "carrier": "USPS", "service": "Priority",
		})
		if status != http.StatusAccepted {
			t.Fatalf("POST /labels/create: %d %v", status, body)
		}
		ids = append(ids, body["id"].(string))
	}
	for _, id := range ids {
		eventually(t, func() bool {
			_, sh := b.api("GET", "/labels/"+id, b.token, nil)
			return sh["status"] == "purchased"
		})
	}

	br := b.browser()
	br.signIn(b.email)
	p := br.get("/settings/manifests")
	must(t, "manifests page", p, http.StatusOK, `href="/settings/manifests" aria-current="page"`, "<td>USPS</td>", `<td class="num">2</td>`,
		`name="carrier" value="USPS"`, ">Create manifest</button>", "<td>FedEx</td>", "No manifests in test mode")
	if strings.Contains(p.body, "<td>UPS</td>") {
		t.Error("the page offers a UPS manifest")
	}
	key := regexp.MustCompile(`name="key" value="([^"]+)"`).FindStringSubmatch(p.body)
	if key == nil {
		t.Fatalf("the form has no key:\n%s", p.body)
	}
	form := url.Values{"carrier": {"USPS"}, "key": {key[1]}}
	created := br.post("/settings/manifests", form)
	if created.status != http.StatusSeeOther || created.location() != "/settings/manifests?done=manifest-created" {
		t.Fatalf("create manifest: %d → %q\n%s", created.status, created.location(), created.body)
	}
	if again := br.post("/settings/manifests", form); again.location() != created.location() {
		t.Errorf("the form sent twice: %d %q", again.status, again.location())
	}
	_, list := b.api("GET", "/manifests", b.token, nil)
	data := list["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("%d manifests after the form was sent twice, want 1", len(data))
	}
	id := data[0].(map[string]any)["id"].(string)
	eventually(t, func() bool {
		_, m := b.api("GET", "/manifests/"+id, b.token, nil)
		return m["status"] == "created"
	})
	p = br.get("/settings/manifests")
	must(t, "after the manifest", p, http.StatusOK, "<code>"+id+"</code>", `<td class="num">2</td>`, `href="/settings/manifests/`+id+`/form.pdf"`, "No label waiting")

	pdf := br.get("/settings/manifests/" + id + "/form.pdf")
	if pdf.status != http.StatusOK || pdf.header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(pdf.body, "%PDF-") {
		t.Fatalf("Download form: %d %s %.40q", pdf.status, pdf.header.Get("Content-Type"), pdf.body)
	}
	must(t, "nothing left", br.post("/settings/manifests", url.Values{"carrier": {"USPS"}, "key": {"another"}}),
		http.StatusUnprocessableEntity, "No purchased label of this carrier is waiting for a manifest.")

	// Another account sees nothing of it.
	other := b.browser()
	_, email, _ := b.newAccount("Other", "grace@example.com")
	other.signIn(email)
	must(t, "another account's form", other.get("/settings/manifests/"+id+"/form.pdf"), http.StatusNotFound)
}

// A form posted from another site is refused (the UI's cross-origin
// protection covers the manifest form like every other).
func TestManifestFormRefusesCrossOrigin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.buyLabel(b.token)
	br := b.browser()
	br.signIn(b.email)
	br.header.Set("Origin", "https://evil.example")
	br.header.Set("Sec-Fetch-Site", "cross-site")
	p := br.post("/settings/manifests", url.Values{"carrier": {"USPS"}})
	if p.status != http.StatusForbidden {
		t.Fatalf("cross-site post: %d\n%s", p.status, p.body)
	}
	if _, list := b.api("GET", "/manifests", b.token, nil); len(list["data"].([]any)) != 0 {
		t.Error("a cross-site form made a manifest")
	}
}

// In live mode each carrier account's waiting labels are a row of their
// own, and its Create manifest makes their form through that account, even
// on a server with no USPS credentials of its own.
func TestManifestsPageRowPerCarrierAccount(t *testing.T) {
	t.Parallel()
	fake := uspsfake.New(t)
	b := setup(t, withCarrierAccounts(map[carriers.ID]carriers.Endpoints{"USPS": {Production: fake.URL(), Test: fake.URL()}}))
	live := b.liveToken(b.account.ID)
	caID := b.connectCarrierAccount(t, live, map[string]any{"carrier": "USPS", "credentials": map[string]any{
		"clientId": uspsfake.ClientID, "clientSecret": uspsfake.ClientSecret, "accountNumber": uspsfake.AccountNumber,
		"crid": uspsfake.CRID, "mid": uspsfake.MID}})
	status, sh := b.api("POST", "/labels/create", live, map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32}, "carrier": "USPS", "service": "Priority",
	})
	if status != http.StatusAccepted {
		t.Fatalf("POST /labels/create: %d %v", status, sh)
	}
	eventually(t, func() bool {
		_, got := b.api("GET", "/labels/"+sh["id"].(string), live, nil)
		return got["status"] == "purchased"
	})

	br := b.browser()
	br.signIn(b.email)
	br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/manifests"}})
	p := br.get("/settings/manifests")
	must(t, "live manifests page", p, http.StatusOK, "your account "+uspsfake.AccountNumber, `<td class="num">1</td>`,
		`name="carrierAccountId" value="`+caID+`"`, `aria-label="Create manifest (USPS, your account `+uspsfake.AccountNumber+`)"`)
	key := regexp.MustCompile(`name="key" value="([^"]+)"`).FindStringSubmatch(p.body)
	created := br.post("/settings/manifests", url.Values{"carrier": {"USPS"}, "carrierAccountId": {caID}, "key": {key[1]}})
	if created.status != http.StatusSeeOther {
		t.Fatalf("create manifest: %d\n%s", created.status, created.body)
	}
	_, list := b.api("GET", "/manifests", live, nil)
	data := list["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["carrierAccountId"] != caID {
		t.Fatalf("manifests: %v", data)
	}
	id := data[0].(map[string]any)["id"].(string)
	eventually(t, func() bool {
		_, m := b.api("GET", "/manifests/"+id, live, nil)
		return m["status"] == "created"
	})
	if n := fake.Requests(uspsfake.OpSCANForm); n != 1 {
		t.Errorf("%d SCAN forms through the carrier account, want 1", n)
	}
}
