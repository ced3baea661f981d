package server_test

// GLS live, end to end through the API, against glsfake, which speaks
// GLS's documents and holds every exchange to them: quotes priced by a rate
// sheet (GLS has no rating API), purchases, labels, tracking to delivered,
// voids and GLS's refusal once a parcel is scanned, the end-of-day report,
// collections, and a tenant's own GLS carrier account.

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/gls"
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// glsSheet is the operator's GLS contract: Parcel in Germany by weight,
// Express anywhere, by service name and by ShipIT product code.
const glsSheet = `service,destination,maxWeightG,price,currency
Parcel,DE,2000,4.10,EUR
Parcel,DE,5000,4.95,EUR
Parcel,*,31500,14.90,EUR
EXPRESS,*,31500,12.50,EUR
`

// A tenant's own GLS customer, with a contract of its own.
const (
	acmeGLSClient, acmeGLSSecret, acmeGLSContact = "acme-gls-client-01", "acme-gls-secret-9f8e7d", "276b12acme"
	acmeGLSSheet                                 = "service,destination,maxWeightG,price,currency\nParcel,*,40000,3.33,EUR\n"
)

func rateSheet(t *testing.T, csv string) *carriers.RateSheet {
	t.Helper()
	s, err := carriers.ParseRateSheet(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// setupGLS serves live mode on GLS's fake alone, priced by glsSheet as the
// operator's --gls-rate-sheet does (Descriptor.Priced), tracking polled
// every 20 ms; tenants' GLS carrier accounts reach the fake too, priced by
// the sheet each is given (PUT /carrier-accounts/{id}/rate-sheet). opts
// apply after that.
func setupGLS(t *testing.T, opts ...setupOption) (*bundle, *glsfake.Server, string) {
	t.Helper()
	fake := glsfake.New(t)
	c, err := gls.New(gls.Config{ClientID: glsfake.ClientID, ClientSecret: glsfake.ClientSecret, ContactID: glsfake.ContactID, BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	priced := gls.Descriptor().Priced(c, rateSheet(t, glsSheet), "set SHIPD_GLS_RATE_SHEET")
	accounts := connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
		gls.ID: {Production: fake.URL(), Test: fake.URL()}}})
	b := setup(t, append([]setupOption{withoutRateLimits(), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{priced}), func(c *app.Config) {
		c.TrackingPollInterval = 20 * time.Millisecond
		c.CarrierAccounts = accounts
	}}, opts...)...)
	b.billIn("EUR") // a German shop: the carrier's prices are in its currency
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	return b, fake, live
}

// germanBody is a parcel of about 2 kg from Berlin to Munich.
func germanBody(mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{
		"fromAddress": map[string]any{"name": "Ada Lovelace", "company": "Analytical Engines GmbH", "street1": "Friedrichstraße 123",
			"city": "Berlin", "zip": "10117", "country": "DE", "phone": "+49 30 1234567"},
		"toAddress": map[string]any{"name": "Grace Hopper", "street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE",
			"phone": "+49 170 1234567", "email": "grace@example.com"},
		"parcel": map[string]any{"weightOz": 70},
	}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// A quote is GLS's allowed products priced by the sheet, in euros; a
// label bought is GLS's, served as its PDF and tracked by polling to
// delivered.
func TestGLSLiveQuoteBuyTrack(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t)
	rates := quoteRates(t, b, live, germanBody())
	got := map[string]int64{}
	for _, r := range rates {
		if r.Carrier != "GLS" || r.Currency != "EUR" {
			t.Errorf("rate %+v", r)
		}
		got[r.Service] = r.CarrierRateCents
	}
	if diff := cmp.Diff(map[string]int64{"Parcel": 410, "Express": 1250}, got); diff != "" {
		t.Fatalf("GLS rates (-want +got):\n%s", diff)
	}

	sh := createLabel(t, b, live, germanBody(withField("carrier", "GLS"), withField("service", "Parcel")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	sales := fake.Sales(sh.ID)
	if len(sales) != 1 || sh.str(sh.TrackingNumber) != sales[0].ParcelNumber || sh.CarrierRateCents != 410 || sh.Currency != "EUR" {
		t.Fatalf("purchased %+v; GLS sold %+v", sh, sales)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) || !bytes.Contains(r.Body, []byte(sales[0].ParcelNumber)) {
		t.Fatalf("label.pdf: %d %.20q", r.Status, r.Body)
	}
	sh = waitForTracking(t, b, live, sh.ID, "delivered")
	types := eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID))
	for _, want := range []string{"shipment.purchased", "tracker.updated", "shipment.delivered"} {
		if !slices.Contains(types, want) {
			t.Errorf("events %v lack %s", types, want)
		}
	}
	if fake.Requests(glsfake.OpTrack) < 4 {
		t.Errorf("%d tracking calls", fake.Requests(glsfake.OpTrack))
	}
}

// A refund cancels the parcel at GLS (voided, credited); once GLS has
// scanned a parcel, it refuses, and the label stays purchased with GLS's
// reason (shipment.void_rejected).
func TestGLSLiveVoid(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t, unscanned)
	sh := createLabel(t, b, live, germanBody(withField("carrier", "GLS"), withField("service", "Express")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	waitForStatus(t, b, live, sh.ID, "voided")
	if s := fake.Sales(sh.ID); len(s) != 1 || !s[0].Cancelled {
		t.Fatalf("GLS's parcel %+v", s)
	}

	scanned := createLabel(t, b, live, germanBody(withField("carrier", "GLS"), withField("service", "Parcel")))
	scanned = waitForStatus(t, b, live, scanned.ID, "purchased")
	fake.Scan(scanned.str(scanned.TrackingNumber))
	wantStatus(t, b.do("POST", "/api/v1/labels/"+scanned.ID+"/refund", live, nil), http.StatusAccepted)
	scanned, _ = waitForLabel(t, b, live, scanned.ID, "the void refused", func(s shipmentDoc) bool {
		return s.Status == "purchased" && s.ErrorMessage != nil
	})
	if msg := scanned.str(scanned.ErrorMessage); !strings.Contains(msg, "SCANNED") || !strings.Contains(msg, "void rejected") {
		t.Errorf("errorMessage %q", msg)
	}
	if !slices.Contains(eventTypes(eventsOf(listEvents(t, b, live, ""), scanned.ID)), "shipment.void_rejected") {
		t.Error("no shipment.void_rejected")
	}
}

// Several parcels are one GLS shipment; the end-of-day report lists the
// day's labels, every parcel of each.
func TestGLSLiveEndOfDay(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t, unscanned)
	var ids []string
	for _, body := range []map[string]any{germanBody(), germanBody(withField("parcels", []any{map[string]any{"weightOz": 40}, map[string]any{"weightOz": 50}}))} {
		delete(body, "parcel")
		if _, ok := body["parcels"]; !ok {
			body["parcel"] = map[string]any{"weightOz": 70}
		}
		body["carrier"], body["service"] = "GLS", "Parcel"
		sh := createLabel(t, b, live, body)
		ids = append(ids, waitForStatus(t, b, live, sh.ID, "purchased").ID)
	}
	if n := len(fake.Sales(ids[1])); n != 2 {
		t.Fatalf("GLS created %d parcels for 2 pieces", n)
	}
	m := waitForManifestAs(t, b, live, createManifestAs(t, b, live, map[string]any{"carrier": "GLS"}).ID)
	if m.Status != "created" || !strings.HasPrefix(deref(m.FormNumber), "EOD-") || !slices.Equal(m.ShipmentIDs, ids) {
		t.Fatalf("manifest %+v (errorMessage %q)", m, deref(m.ErrorMessage))
	}
	r := b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.Contains(r.Body, []byte("GLS END OF DAY REPORT")) {
		t.Fatalf("form: %d", r.Status)
	}
	for _, s := range fake.Sales(ids[1]) {
		if !bytes.Contains(r.Body, []byte(s.ParcelNumber)) {
			t.Errorf("the report lacks parcel %s", s.ParcelNumber)
		}
	}

	// A collection of the day's labels at the Berlin shipper, through the
	// API: GLS picks up where it ships from, in Berlin's own offset, a
	// parcel per box.
	berlin := map[string]any{"name": "Ada Lovelace", "company": "Analytical Engines GmbH", "street1": "Friedrichstraße 123",
		"city": "Berlin", "zip": "10117", "country": "DE", "phone": "+49 30 1234567"}
	pr := b.do("POST", "/api/v1/pickups", live, pickupBody(pickupDay(b.clock.Now()), withField("carrier", "GLS"), withField("address", berlin),
		withField("shipmentIds", ids), inZone(t, "Europe/Berlin")))
	wantStatus(t, pr, http.StatusCreated)
	var p pickupDoc
	pr.Decode(t, &p)
	if cs := fake.Collections(); p.PackageCount != 3 || len(cs) != 1 || cs[0].NumberOfParcels != 3 {
		t.Errorf("pickup of %d packages, GLS's collections %+v: want 3 parcels, one for each box", p.PackageCount, cs)
	}
}

// A tenant connects its own GLS account: the credentials are checked with
// GLS's token endpoint (refused ones store nothing), and its quotes and
// purchases go through its client, priced by its own sheet.
func TestGLSLiveCarrierAccount(t *testing.T) {
	t.Parallel()
	b, fake, live := setupGLS(t, unscanned)
	fake.AddClient(acmeGLSClient, acmeGLSSecret, acmeGLSContact)
	account := func(secret string) map[string]any {
		return map[string]any{"carrier": "GLS", "description": "our GLS contract",
			"credentials": map[string]any{"clientId": acmeGLSClient, "clientSecret": secret, "contactId": acmeGLSContact}}
	}
	wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account("not-the-secret")), http.StatusUnprocessableEntity, "carrier_credentials_invalid")
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, map[string]any{"carrier": "GLS",
		"credentials": map[string]any{"clientId": acmeGLSClient, "clientSecret": acmeGLSSecret, "contactId": "not a contact"}}), http.StatusUnprocessableEntity, "invalid_field")
	if !strings.Contains(m["error"].(string), "contact id") {
		t.Errorf("a malformed contact id: %v", m["error"])
	}
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", live, account(acmeGLSSecret))
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	if a.Carrier != "GLS" || a.AccountNumber != acmeGLSContact || strings.Contains(string(r.Body), acmeGLSSecret) {
		t.Fatalf("carrier account %s", r.Body)
	}
	putRateSheet(t, b, live, a.ID, acmeGLSSheet)

	rates := quoteRates(t, b, live, germanBody())
	if len(rates) != 1 || rates[0].Service != "Parcel" || rates[0].CarrierRateCents != 333 || rates[0].Currency != "EUR" {
		t.Fatalf("rates through the account: %+v", rates)
	}
	sh := createLabel(t, b, live, germanBody(withField("carrier", "GLS"), withField("service", "Parcel"), withField("carrierAccountId", a.ID)))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	if got := fake.Callers(glsfake.OpShip); !cmp.Equal(got, []string{acmeGLSClient}) {
		t.Errorf("shipments created by %v, want the tenant's client", got)
	}
	if s := fake.Sales(sh.ID); len(s) != 1 || s[0].ParcelNumber != sh.str(sh.TrackingNumber) {
		t.Errorf("sales %+v", s)
	}
}
