package server_test

// DHL Paket live, end to end through the API, against dhlparceldefake
// (which holds every exchange to DHL's documents): quotes priced by the
// operator's rate sheet in euros, a label bought, served and tracked to
// delivered, a void, a return paid at first use, the day's closeout, and
// a tenant's own DHL carrier account. Pickups are the adapter's tests'
// (carriers/dhlparcelde), and the API's in test mode
// (TestPickupAbroadWhereTheCarrierServes).

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// dhlRateSheet is a shipper's DHL contract: Paket and Kleinpaket within
// Germany (by product code and by name), Paket International anywhere,
// DHL Retoure.
const dhlRateSheet = "service,destination,maxWeightG,price,currency\n" +
	"V01PAK,DE,5000,5.49,EUR\nV01PAK,DE,31500,9.99,EUR\nKleinpaket,DE,1000,3.99,EUR\n" +
	"PaketInternational,*,5000,17.99,EUR\nRetoure,*,31500,6.20,EUR\n"

func dhlSheet(t *testing.T) *carriers.RateSheet {
	t.Helper()
	sheet, err := carriers.ParseRateSheet(strings.NewReader(dhlRateSheet))
	if err != nil {
		t.Fatal(err)
	}
	return sheet
}

// setupDHLLive serves live mode on the operator's DHL Paket (the fake's
// customer, with the API secret pickups need), priced by dhlRateSheet;
// tracking polled every 20 ms; opts apply after that.
func setupDHLLive(t *testing.T, opts ...setupOption) (*bundle, *dhlparceldefake.Server, string) {
	t.Helper()
	fake := dhlparceldefake.New(t)
	c, err := dhlparcelde.New(dhlparcelde.Config{APIKey: dhlparceldefake.APIKey, Username: dhlparceldefake.Username,
		Password: dhlparceldefake.Password, BillingNumber: dhlparceldefake.BillingNumber, APISecret: dhlparceldefake.APISecret,
		BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	priced := dhlparcelde.Descriptor().Priced(c, dhlSheet(t), "test")
	b := setup(t, append([]setupOption{withoutRateLimits(), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{priced}),
		func(c *app.Config) { c.TrackingPollInterval = 20 * time.Millisecond }}, opts...)...)
	b.billIn("EUR") // a German shop: the carrier's prices are in its currency
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	return b, fake, live
}

func dhlShop() map[string]any {
	return map[string]any{"name": "Max Mustermann", "company": "Mein Online-Shop GmbH", "street1": "Sträßchensweg 10",
		"city": "Bonn", "zip": "53113", "country": "DE", "email": "versand@shop.example"}
}

// dhlBody is a parcel of weightOz from the shop in Bonn to Cologne.
func dhlBody(weightOz float64, mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{
		"fromAddress": dhlShop(),
		"toAddress": map[string]any{"name": "Erika Mustermann", "street1": "Heidestr. 17", "city": "Köln", "zip": "51147",
			"country": "DE", "email": "erika@example.com"},
		// 30.5 x 20.3 x 5.1 cm: a Kleinpaket's size (35 x 25 x 8 cm) when
		// it weighs a kilogram or less.
		"parcel": map[string]any{"weightOz": weightOz, "lengthIn": 12, "widthIn": 8, "heightIn": 2},
	}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// A quote is priced by the rate sheet in euros, by the weight's bracket:
// 2.5 kg is a Paket (Kleinpaket stops at a kilogram), 794 g either.
func TestLiveDHLQuotePricedByTheRateSheet(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDHLLive(t)
	prices := func(weightOz float64) map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		for _, r := range quoteRates(t, b, live, dhlBody(weightOz)) {
			if r.Carrier != "DHLParcelDE" || r.Currency != "EUR" || r.CustomerPriceCents != r.CarrierRateCents+r.PlatformFeeCents || r.EstimatedDays != 2 {
				t.Errorf("rate %+v", r)
			}
			out[r.Service] = r.CarrierRateCents
		}
		return out
	}
	if got := prices(88); len(got) != 1 || got["Paket"] != 549 {
		t.Errorf("2.5 kg: %v, want Paket at 5.49", got)
	}
	if got := prices(28); len(got) != 2 || got["Paket"] != 549 || got["Kleinpaket"] != 399 {
		t.Errorf("794 g: %v, want Paket at 5.49 and Kleinpaket at 3.99", got)
	}
	if n := fake.Requests(dhlparceldefake.OpOrder); n != 0 {
		t.Errorf("quotes made %d orders", n)
	}
	// Germany's requirement: a consignee's street without a house number
	// is left out of the quote and refused at purchase.
	noHouse := dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket"),
		func(m map[string]any) { m["toAddress"].(map[string]any)["street1"] = "Heidestraße" })
	r := b.do("POST", "/api/v1/labels/create", live, noHouse)
	if r.Status == http.StatusAccepted || !bytes.Contains(r.Body, []byte("house number")) {
		t.Errorf("a German consignee without a house number: %d %s", r.Status, r.Body)
	}
}

// A DHL Paket label bought live: the order carries the shipment id as its
// refNo, the PDF is served, and polling the unified tracking API brings it
// to delivered.
func TestLiveDHLPurchaseAndTracking(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDHLLive(t)
	sh := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	tn := sh.str(sh.TrackingNumber)
	if !strings.HasPrefix(tn, "00340434") || sh.Currency != "EUR" || sh.CarrierRateCents != 549 || sh.ChargeAmountCents != sh.CustomerPriceCents {
		t.Fatalf("purchased %+v", sh)
	}
	if sales := fake.ByReference(sh.ID); len(sales) != 1 || sales[0].TrackingNumber != tn {
		t.Fatalf("DHL's orders under the shipment id: %+v", sales)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) || !bytes.Contains(r.Body, []byte(tn)) {
		t.Fatalf("label.pdf: %d %.20q", r.Status, r.Body)
	}
	sh = waitForTracking(t, b, live, sh.ID, "delivered")
	types := eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID))
	for _, want := range []string{"shipment.purchased", "tracker.updated", "shipment.delivered"} {
		if !contains(types, want) {
			t.Errorf("events of the label %v lack %s", types, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A label voided before the closeout: DHL deletes the order and the
// balance is credited; DHL's refusal of an order reaches the shipment as
// its error message.
func TestLiveDHLVoidAndRefusal(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDHLLive(t, unscanned)
	sh := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	waitForStatus(t, b, live, sh.ID, "voided")
	if !fake.Voided(sh.str(sh.TrackingNumber)) {
		t.Fatal("DHL was not asked to delete the order")
	}

	fake.FailNext(dhlparceldefake.OpOrder, http.StatusBadRequest, `{"status":{"title":"Bad Request","statusCode":400,"status":400},`+
		`"items":[{"sstatus":{"title":"Bad Request","statusCode":400,"status":400},"validationMessages":[`+
		`{"property":"consignee.postalCode","validationMessage":"The postal code does not match the city.","validationState":"Error"}]}]}`)
	failed := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket")))
	failed = waitForStatus(t, b, live, failed.ID, "failed")
	if msg := failed.str(failed.ErrorMessage); !strings.Contains(msg, "consignee.postalCode: The postal code does not match the city.") {
		t.Errorf("errorMessage %q lacks DHL's refusal", msg)
	}
}

// A return of a DHL label: quoted as DHL Retoure from the rate sheet, bought
// through the Returns API at no charge, and charged when DHL first scans
// it.
func TestLiveDHLReturn(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDHLLive(t, unscanned)
	out := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket")))
	out = waitForStatus(t, b, live, out.ID, "purchased")
	rates := quoteRates(t, b, live, map[string]any{"returnOf": out.ID})
	if len(rates) != 1 || rates[0].Service != "Retoure" || rates[0].CarrierRateCents != 620 || rates[0].Currency != "EUR" {
		t.Fatalf("return rates %+v, want DHL Retoure at 6.20", rates)
	}
	ret := createReturn(t, b, live, map[string]any{"returnOf": out.ID})
	if ret.Carrier != "DHLParcelDE" || ret.Service != "Retoure" || ret.ChargeAmountCents != 0 {
		t.Fatalf("return %+v", ret.shipmentDoc)
	}
	ret.shipmentDoc = waitForStatus(t, b, live, ret.ID, "purchased")
	if !fake.IsReturn(ret.str(ret.TrackingNumber)) {
		t.Fatal("DHL sold the return as an outbound order")
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+ret.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.Contains(r.Body, []byte("DHL RETOURE")) {
		t.Fatalf("return label.pdf: %d %.20q", r.Status, r.Body)
	}
}

// A return is charged at first use: polled to delivered, once.
func TestLiveDHLReturnChargedAtFirstUse(t *testing.T) {
	t.Parallel()
	b, _, live := setupDHLLive(t)
	body := map[string]any{"isReturn": true, "carrier": "DHLParcelDE", "service": "Retoure",
		"fromAddress": map[string]any{"name": "Franz Huber", "street1": "Mariahilfer Straße 12a", "city": "Wien", "zip": "1070", "country": "AT"},
		"toAddress":   dhlShop(), "parcel": map[string]any{"weightOz": 40}}
	ret := createReturn(t, b, live, body)
	if ret.ChargeAmountCents != 0 {
		t.Fatalf("charged %d at purchase", ret.ChargeAmountCents)
	}
	ret.shipmentDoc = waitForTracking(t, b, live, ret.ID, "delivered")
	if ret.ChargeAmountCents != ret.CustomerPriceCents || ret.CarrierRateCents != 620 {
		t.Errorf("a used return: charged %d, want its price %d", ret.ChargeAmountCents, ret.CustomerPriceCents)
	}
}

// The day's end: the labels are closed out at DHL and the day's manifest
// is the form; a label closed out can no longer be voided.
func TestLiveDHLManifest(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDHLLive(t, unscanned)
	sh := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	m := waitForManifestAs(t, b, live, createManifestAs(t, b, live, map[string]any{"carrier": "DHLParcelDE"}).ID)
	if m.Status != "created" || m.FormNumber == nil || *m.FormNumber == "" {
		t.Fatalf("manifest: status %s, errorMessage %q", m.Status, deref(m.ErrorMessage))
	}
	r := b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) || !bytes.Contains(r.Body, []byte(sh.str(sh.TrackingNumber))) {
		t.Fatalf("form.pdf: %d %.20q", r.Status, r.Body)
	}
	if fake.ClosedOn(sh.str(sh.TrackingNumber)) == "" {
		t.Fatal("the label was not closed out at DHL")
	}
	// DHL's refusal to delete it: the label stays purchased, with DHL's words.
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	sh, _ = waitForLabel(t, b, live, sh.ID, "the void's refusal", func(s shipmentDoc) bool {
		return s.Status == "purchased" && strings.Contains(s.str(s.ErrorMessage), "void rejected by the carrier")
	})
	if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, "has been manifested and cannot be deleted") || fake.Voided(sh.str(sh.TrackingNumber)) {
		t.Errorf("a void after the closeout: %q, deleted %v", msg, fake.Voided(sh.str(sh.TrackingNumber)))
	}
}

// A tenant connects its own DHL contract: its credentials are checked with
// DHL before anything is stored (a wrong password is 422 with DHL's
// words), and its quotes and purchases go through its own user, priced by
// its own rate sheet, sent through the API.
func TestLiveDHLCarrierAccount(t *testing.T) {
	t.Parallel()
	const user, password, key = "shop-gmbh-user", "shop-gmbh-password-1", "shop-gmbh-api-key"
	fake := dhlparceldefake.New(t)
	fake.AddCustomer(dhlparceldefake.Customer{APIKey: key, Username: user, Password: password, BillingNumber: "44444444440101"})
	b, _, live := setupLive(t, unscanned, func(c *app.Config) {
		c.CarrierAccounts = connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
			dhlparcelde.ID: {Production: fake.URL(), Test: fake.URL()}}})
	})
	b.billIn("EUR")
	account := func(password string) map[string]any {
		return map[string]any{"carrier": "DHLParcelDE", "description": "our DHL contract", "credentials": map[string]any{
			"apiKey": key, "username": user, "password": password, "billingNumber": "44444444440101"}}
	}
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account("not-the-password")), http.StatusUnprocessableEntity, "carrier_credentials_invalid")
	if msg, _ := m["error"].(string); !strings.Contains(msg, "Unauthorized for given resource.") || strings.Contains(msg, "not-the-password") {
		t.Errorf("refused credentials: %q", msg)
	}
	m = wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, map[string]any{"carrier": "DHLParcelDE", "credentials": map[string]any{
		"apiKey": key, "username": user, "password": password, "billingNumber": "4444444444010"}}), http.StatusUnprocessableEntity, "invalid_field")
	if !strings.Contains(m["error"].(string), "14-character DHL billing number") {
		t.Errorf("a short billing number: %v", m)
	}
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", live, account(password))
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	if a.Carrier != "DHLParcelDE" || a.AccountNumber != "44444444440101" || strings.Contains(string(r.Body), password) || strings.Contains(string(r.Body), key) {
		t.Fatalf("carrier account %s", r.Body)
	}
	putRateSheet(t, b, live, a.ID, dhlRateSheet)

	var rates []accountRate
	r = b.doT(t, "POST", "/api/v1/labels/quote", live, dhlBody(88))
	wantStatus(t, r, http.StatusOK)
	var q struct{ Rates []accountRate }
	r.Decode(t, &q)
	for _, rate := range q.Rates {
		if rate.Carrier == "DHLParcelDE" {
			rates = append(rates, rate)
		}
	}
	if len(rates) != 1 || rates[0].CarrierAccountID != a.ID || rates[0].Service != "Paket" {
		t.Fatalf("DHL rates through the account: %+v", rates)
	}
	sh := createLabel(t, b, live, dhlBody(88, withField("carrier", "DHLParcelDE"), withField("service", "Paket"), withField("carrierAccountId", a.ID)))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	if got := fake.Callers(dhlparceldefake.OpOrder); len(got) != 1 || got[0] != user {
		t.Fatalf("orders by %v, want the tenant's user alone", got)
	}
	if sales := fake.ByReference(sh.ID); len(sales) != 1 || sales[0].Account != user {
		t.Fatalf("the tenant's order %+v", sales)
	}
}
