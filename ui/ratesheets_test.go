package ui_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// upload posts a file as a browser's multipart form does (the field sheet).
func (br *browser) upload(path, filename, content string) page {
	br.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if filename != "" {
		fw, err := mw.CreateFormFile("sheet", filename)
		if err != nil {
			br.t.Fatal(err)
		}
		_, _ = io.WriteString(fw, content)
	}
	if err := mw.Close(); err != nil {
		br.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, br.b.http.URL+path, &body)
	if err != nil {
		br.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for k, v := range br.header {
		req.Header[k] = v
	}
	res, err := br.client.Do(req)
	if err != nil {
		br.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		br.t.Fatal(err)
	}
	return page{status: res.StatusCode, header: res.Header, body: string(raw)}
}

// A carrier account's rate sheet on the Carriers page: uploaded as a file,
// refused with the line and column of its first mistake (nothing stored),
// shown with its rows once taken (the API then prices by it and returns
// it), downloaded, replaced and removed; a post from another site, or of a
// file past the limit, changes nothing.
func TestCarrierAccountRateSheetPage(t *testing.T) {
	t.Parallel()
	fake := upsfake.New(t)
	b := setup(t, withCarrierAccounts(map[carriers.ID]carriers.Endpoints{"UPS": {Production: fake.URL(), Test: fake.URL()}}))
	live := b.liveToken(b.account.ID)
	id := b.connectCarrierAccount(t, live, map[string]any{"carrier": "UPS", "description": "our contract",
		"credentials": map[string]any{"clientId": upsfake.ClientID, "clientSecret": upsfake.ClientSecret, "accountNumber": upsfake.AccountNumber}})
	br := b.browser()
	br.signIn(b.email)
	br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/carrier-accounts"}})
	base := "/settings/carrier-accounts/" + id + "/rate-sheet"

	p := br.get("/settings/carrier-accounts")
	must(t, "no sheet", p, http.StatusOK, "Rate sheets", `data-rate-sheet="`+id+`"`, "none", "Upload rate sheet",
		`enctype="multipart/form-data"`, "<code>service,destination,maxWeightG,price,currency</code>")

	header := "service,destination,maxWeightG,price,currency\n"
	p = br.upload(base, "contract.csv", header+"Ground,US,1000,4.56,USD\nGround,US,2000,5.999,USD\n")
	must(t, "a mistake", p, http.StatusUnprocessableEntity, "The rate sheet was not saved: line 3, column 4 (price): must be a decimal", `aria-invalid="true"`)
	p = br.upload(base, "contract.csv", header+"Ground;US;1000;4.56;USD\n")
	must(t, "semicolons", p, http.StatusUnprocessableEntity, "line 2: 1 fields, want 5")
	must(t, "no file", br.upload(base, "", ""), http.StatusUnprocessableEntity, "Choose a rate sheet")
	if status, _ := b.api("GET", "/carrier-accounts/"+id+"/rate-sheet", live, nil); status != http.StatusNotFound {
		t.Fatalf("after refused uploads the API has a sheet: %d", status)
	}

	// From another site: refused before anything is read.
	br.header = http.Header{"Sec-Fetch-Site": {"cross-site"}}
	must(t, "cross-site upload", br.upload(base, "contract.csv", header+"Ground,US,1000,0.01,USD\n"), http.StatusForbidden, "sent from another site")
	br.header = http.Header{}

	sheet := header + "Ground,US,1000,4.56,USD\nGround,US,2000,5.99,USD\nGround,*,30000,19.99,USD\n"
	p = br.upload(base, "contract.csv", sheet)
	if p.status != http.StatusSeeOther || p.location() != "/settings/carrier-accounts?done=rate-sheet-saved" {
		t.Fatalf("upload: %d %s\n%s", p.status, p.location(), p.body)
	}
	must(t, "saved", br.get(p.location()), http.StatusOK, "Rate sheet saved", `<span class="rate-sheet-rows">3 rows</span>`,
		"Replace rate sheet", "Remove rate sheet", base+".csv")
	got := br.get(base + ".csv")
	if got.status != http.StatusOK || got.body != sheet || !strings.HasPrefix(got.header.Get("Content-Type"), "text/csv") {
		t.Errorf("download: %d %q %s", got.status, got.body, got.header.Get("Content-Type"))
	}
	// The API sees what the page set: the account shows it, and its
	// quotes take its price.
	if status, ca := b.api("GET", "/carrier-accounts/"+id, live, nil); status != http.StatusOK || ca["rateSheet"].(map[string]any)["rows"] != 3.0 {
		t.Errorf("GET /carrier-accounts/{id}: %d %v", status, ca)
	}
	if price := groundPrice(t, b, live); price != 456 {
		t.Errorf("UPS Ground quoted at %v, want the sheet's 456", price)
	}

	// Past the limit: refused whole, the sheet kept.
	big := header + strings.Repeat("Ground"+strings.Repeat(" ", 250)+",US,1000,4.56,USD\n", carriers.MaxRateSheetBytes/270+300)
	must(t, "too large", br.upload(base, "big.csv", big), http.StatusRequestEntityTooLarge, "larger than a rate sheet may be")
	must(t, "kept", br.get("/settings/carrier-accounts"), http.StatusOK, "3 rows")

	p = br.post(base+"/delete", nil)
	if p.status != http.StatusSeeOther {
		t.Fatalf("remove: %d\n%s", p.status, p.body)
	}
	must(t, "removed", br.get(p.location()), http.StatusOK, "Rate sheet removed", "Upload rate sheet")
	if status, _ := b.api("GET", "/carrier-accounts/"+id+"/rate-sheet", live, nil); status != http.StatusNotFound {
		t.Errorf("after removal the API still has a sheet: %d", status)
	}
	must(t, "download of none", br.get(base+".csv"), http.StatusNotFound, "no rate sheet")

	// Another account's user finds no such carrier account.
	_, email, _ := b.newAccount("Other", "grace@example.com")
	br2 := b.browser()
	br2.signIn(email)
	br2.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/carrier-accounts"}})
	must(t, "another account's upload", br2.upload(base, "contract.csv", sheet), http.StatusNotFound, "There is no such object")
}

// groundPrice is UPS Ground's carrier rate in a live quote of a 1 lb parcel.
func groundPrice(t *testing.T, b *bundle, token string) float64 {
	t.Helper()
	addr := func(name, street, city, state, zip string) map[string]any {
		return map[string]any{"name": name, "phone": "415 555 0100", "street1": street, "city": city, "state": state, "zip": zip, "country": "US"}
	}
	status, q := b.api("POST", "/labels/quote", token, map[string]any{
		"fromAddress": addr("Shop", "1 Market St", "San Francisco", "CA", "94105"),
		"toAddress":   addr("Ada Lovelace", "350 Fifth Avenue", "New York", "NY", "10118"),
		"parcel":      map[string]any{"weightOz": 16}})
	if status != http.StatusOK {
		t.Fatalf("quote: %d %v", status, q)
	}
	for _, r := range q["rates"].([]any) {
		if r := r.(map[string]any); r["service"] == "Ground" {
			return r["carrierRateCents"].(float64)
		}
	}
	t.Fatalf("no Ground rate: %v", q)
	return 0
}
