package server_test

// DPD live, end to end through the API, against dpdfake, which speaks DPD's
// META-API documents and holds every exchange to them: quotes priced by a
// rate sheet (DPD has no rating API), purchases of one or several parcels,
// labels, the refund DPD cannot make (the META-API has no cancellation:
// void_rejected with the reason), and a tenant's own DPD carrier account.
// The META-API has no tracking: a DPD label is not polled.

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
	"github.com/shipd-dev/shipd/carriers/dpd"
	"github.com/shipd-dev/shipd/carriers/dpd/dpdfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// dpdSheet is the operator's DPD contract, by service name and by product
// code (101 is Classic).
const dpdSheet = `service,destination,maxWeightG,price,currency
101,DE,3000,4.60,EUR
Classic,DE,31500,6.90,EUR
Express12,DE,31500,13.40,EUR
`

// A tenant's own DPD login, with a contract of its own.
const (
	acmeDPDLogin, acmeDPDPassword, acmeDPDCustomer = "acme-dpd-login", "acme-dpd-password-6c5b4a", "ACME4711"
	acmeDPDSheet                                   = "service,destination,maxWeightG,price,currency\nClassic,*,31500,3.99,EUR\n"
)

// setupDPD serves live mode on DPD's fake alone, priced by dpdSheet as the
// operator's --dpd-rate-sheet does; tenants' DPD carrier accounts reach the
// fake too, priced by acmeDPDSheet. opts apply after that.
func setupDPD(t *testing.T, opts ...setupOption) (*bundle, *dpdfake.Server, string) {
	t.Helper()
	fake := dpdfake.New(t)
	c, err := dpd.New(dpd.Config{Login: dpdfake.Login, Password: dpdfake.Password, BUCode: dpdfake.BUCode, CustomerID: dpdfake.CustomerID, BaseURL: fake.URL()})
	if err != nil {
		t.Fatal(err)
	}
	priced := dpd.Descriptor().Priced(c, rateSheet(t, dpdSheet), "set SHIPD_DPD_RATE_SHEET")
	accounts := connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
		dpd.ID: {Production: fake.URL(), Test: fake.URL()}}})
	tenantSheet := rateSheet(t, acmeDPDSheet)
	b := setup(t, append([]setupOption{withoutRateLimits(), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{priced}), func(c *app.Config) {
		c.TrackingPollInterval = 20 * time.Millisecond
		c.CarrierAccounts = func(cr carriers.Credentials) (carriers.Carrier, error) {
			cr.RateSheet = tenantSheet
			return accounts(cr)
		}
	}}, opts...)...)
	b.billIn("EUR") // a German shop: the carrier's prices are in its currency
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	return b, fake, live
}

// A quote is DPD's products of the route that the sheet prices, in euros
// (Express830 and Express18 have no row: not offered); a label bought is
// DPD's, served as its PDF; a refund is refused with DPD's reason.
func TestDPDLiveQuoteBuyVoid(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDPD(t)
	rates := quoteRates(t, b, live, germanBody())
	got := map[string]int64{}
	for _, r := range rates {
		if r.Carrier != "DPD" || r.Currency != "EUR" {
			t.Errorf("rate %+v", r)
		}
		got[r.Service] = r.CarrierRateCents
	}
	if diff := cmp.Diff(map[string]int64{"Classic": 460, "Express12": 1340}, got); diff != "" {
		t.Fatalf("DPD rates (-want +got):\n%s", diff)
	}

	sh := createLabel(t, b, live, germanBody(withField("carrier", "DPD"), withField("service", "Classic")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	sales := fake.Sales(sh.ID)
	if len(sales) != 1 || sh.str(sh.TrackingNumber) != sales[0].ParcelIDs[0] || sales[0].Product != "101" || sh.CarrierRateCents != 460 {
		t.Fatalf("purchased %+v; DPD sold %+v", sh, sales)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF-")) || !bytes.Contains(r.Body, []byte(sales[0].ParcelIDs[0])) {
		t.Fatalf("label.pdf: %d %.20q", r.Status, r.Body)
	}

	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	sh, _ = waitForLabel(t, b, live, sh.ID, "the void refused", func(s shipmentDoc) bool {
		return s.Status == "purchased" && s.ErrorMessage != nil
	})
	if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, "cannot cancel") || !strings.Contains(msg, sales[0].ParcelIDs[0]) {
		t.Errorf("errorMessage %q", msg)
	}
	if !slices.Contains(eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID)), "shipment.void_rejected") {
		t.Error("no shipment.void_rejected")
	}
	if sh.TrackingStatus != nil && *sh.TrackingStatus != "unknown" && *sh.TrackingStatus != "pre_transit" {
		t.Errorf("tracking status %q of a carrier without tracking", *sh.TrackingStatus)
	}
}

// Several parcels are one DPD shipment: one label with a page each, every
// parcel id among the label's packages; a ZPL label is DPD's ZPL.
func TestDPDLivePiecesAndZPL(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDPD(t)
	body := germanBody(withField("carrier", "DPD"), withField("service", "Classic"),
		withField("parcels", []any{map[string]any{"weightOz": 40}, map[string]any{"weightOz": 200}}))
	delete(body, "parcel")
	sh := waitForStatus(t, b, live, createLabel(t, b, live, body).ID, "purchased")
	sales := fake.Sales(sh.ID)
	if len(sales) != 1 || len(sales[0].ParcelIDs) != 2 || sh.str(sh.TrackingNumber) != sales[0].ParcelIDs[0] {
		t.Fatalf("purchased %+v; DPD sold %+v", sh, sales)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || bytes.Count(r.Body, []byte("/Type /Page\n")) != 2 {
		t.Fatalf("label.pdf of 2 parcels: %d", r.Status)
	}

	zpl := waitForStatus(t, b, live, createLabel(t, b, live, germanBody(withField("carrier", "DPD"), withField("service", "Express12"),
		withField("labelFormat", "zpl"))).ID, "purchased")
	r = b.doT(t, "GET", "/api/v1/labels/"+zpl.ID+"/label.zpl", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("^XA")) || !bytes.Contains(r.Body, []byte(zpl.str(zpl.TrackingNumber))) {
		t.Fatalf("label.zpl: %d %.20q", r.Status, r.Body)
	}
}

// A tenant connects its own DPD login: checked with DPD's login (refused
// credentials store nothing), its quotes and purchases through it, priced
// by its own sheet.
func TestDPDLiveCarrierAccount(t *testing.T) {
	t.Parallel()
	b, fake, live := setupDPD(t)
	fake.AddClient(acmeDPDLogin, acmeDPDPassword, acmeDPDCustomer)
	account := func(password, bu string) map[string]any {
		return map[string]any{"carrier": "DPD", "description": "our DPD contract",
			"credentials": map[string]any{"login": acmeDPDLogin, "password": password, "bucode": bu, "customerId": acmeDPDCustomer}}
	}
	wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account("wrong-password", "001")), http.StatusUnprocessableEntity, "carrier_credentials_invalid")
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account(acmeDPDPassword, "DE")), http.StatusUnprocessableEntity, "invalid_field")
	if !strings.Contains(m["error"].(string), "3-digit") {
		t.Errorf("a malformed BU code: %v", m["error"])
	}
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", live, account(acmeDPDPassword, "001"))
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	if a.Carrier != "DPD" || a.AccountNumber != acmeDPDCustomer || strings.Contains(string(r.Body), acmeDPDPassword) {
		t.Fatalf("carrier account %s", r.Body)
	}
	rates := quoteRates(t, b, live, germanBody())
	if len(rates) != 1 || rates[0].Service != "Classic" || rates[0].CarrierRateCents != 399 {
		t.Fatalf("rates through the account: %+v", rates)
	}
	sh := waitForStatus(t, b, live, createLabel(t, b, live, germanBody(withField("carrier", "DPD"), withField("service", "Classic"),
		withField("carrierAccountId", a.ID))).ID, "purchased")
	if got := fake.Callers(dpdfake.OpShipment); !cmp.Equal(got, []string{acmeDPDLogin}) {
		t.Errorf("shipments created by %v, want the tenant's login", got)
	}
	if s := fake.Sales(sh.ID); len(s) != 1 || s[0].ParcelIDs[0] != sh.str(sh.TrackingNumber) {
		t.Errorf("sales %+v", s)
	}
}
