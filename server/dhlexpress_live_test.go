package server_test

// DHL Express live (issue 42), end to end through the API, against
// dhlexpressfake, which holds every exchange to DHL's MyDHL API document:
// from a US shipper (USD) and from a German one (EUR), with the operator's
// credentials and with a tenant's carrier account.

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/dhlexpress"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/usps"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// A tenant's own DHL Express contract, besides the fake's (the operator's).
const (
	tenantDHLUser, tenantDHLPassword, tenantDHLAccount = "acme-dhl-user", "acme-dhl-password-91c4", "960000001"
)

type expressFakes struct {
	dhl  *dhlexpressfake.Server
	usps *uspsfake.Server
}

// setupDHLExpress serves live mode with the operator's DHL Express (and USPS, so
// that the live verifier is the chain USPS then DHL Express, as serve
// builds it), tenants' DHL Express carrier accounts reaching the same fake,
// and tracking polled every 20 ms.
func setupDHLExpress(t *testing.T, opts ...setupOption) (*bundle, *expressFakes, string) {
	t.Helper()
	f := &expressFakes{dhl: dhlexpressfake.New(t), usps: uspsfake.New(t)}
	f.dhl.AddClient(tenantDHLUser, tenantDHLPassword, tenantDHLAccount)
	dhl, err := dhlexpress.New(dhlexpress.Config{Username: dhlexpressfake.Username, Password: dhlexpressfake.Password,
		AccountNumber: dhlexpressfake.AccountNumber, BaseURL: f.dhl.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	us, err := usps.New(usps.Config{ClientID: uspsfake.ClientID, ClientSecret: uspsfake.ClientSecret, CRID: uspsfake.CRID, MID: uspsfake.MID,
		AccountNumber: uspsfake.AccountNumber, AccountType: uspsfake.AccountType, BaseURL: f.usps.URL()})
	if err != nil {
		t.Fatal(err)
	}
	accounts := connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
		dhlexpress.ID: {Production: f.dhl.BaseURL(), Test: f.dhl.BaseURL()}}})
	b := setup(t, append([]setupOption{withoutRateLimits(), withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{dhl, us}), func(c *app.Config) {
		c.LiveVerifier = verifier.Chain{us, dhl}
		c.CarrierAccounts = accounts
		c.TrackingPollInterval = 20 * time.Millisecond
	}}, opts...)...)
	_, live := b.newToken(b.account.ID, "live", allScopes...)
	return b, f, live
}

func addrMap(name, street, city, zip, country, phone string) map[string]any {
	return map[string]any{"name": name, "street1": street, "city": city, "zip": zip, "country": country, "phone": phone}
}

func berlinAddr() map[string]any {
	return addrMap("Anna Schmidt", "Friedrichstr. 123", "Berlin", "10117", "DE", "+49 30 1234567")
}

func parisAddr() map[string]any {
	return addrMap("Claire Martin", "9 Rue Simart", "Paris", "75018", "FR", "+33 1 23456789")
}

func nyAddr() map[string]any {
	a := validAddress()
	a["phone"] = "212 555 0100"
	return a
}

// expressBody is a shipment from `from` to `to` of 1 kg; mods change it.
func expressBody(from, to map[string]any, mods ...func(m map[string]any)) map[string]any {
	m := map[string]any{"fromAddress": from, "toAddress": to, "parcel": map[string]any{"weightOz": 35.27, "lengthIn": 12, "widthIn": 8, "heightIn": 4}}
	for _, mod := range mods {
		mod(m)
	}
	return m
}

// watches is a declaration of classified goods from the US, DDP or DAP.
func watches(incoterm string, extra map[string]any) func(m map[string]any) {
	return func(m map[string]any) {
		c := map[string]any{"contentsType": "merchandise", "contentsExplanation": "Watches", "incoterm": incoterm,
			"items": []any{customsItem("Wrist watch", 2, 25000, 16, "9102.11", "CH")}}
		for k, v := range extra {
			c[k] = v
		}
		m["customs"] = c
	}
}

type expressRate struct {
	Carrier               string `json:"carrier"`
	Service               string `json:"service"`
	CarrierRateCents      int64  `json:"carrierRateCents"`
	Currency              string `json:"currency"`
	DutiesCents           *int64 `json:"dutiesCents"`
	EstimatedDays         int    `json:"estimatedDays"`
	EstimatedDeliveryDate string `json:"estimatedDeliveryDate"`
	Guaranteed            bool   `json:"guaranteed"`
}

func expressQuote(t *testing.T, b *bundle, token string, body map[string]any) []expressRate {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/labels/quote", token, body)
	wantStatus(t, r, http.StatusOK)
	var q struct{ Rates []expressRate }
	r.Decode(t, &q)
	return q.Rates
}

func expressServices(rates []expressRate) []string {
	var out []string
	for _, r := range rates {
		if r.Carrier == "DHLExpress" {
			out = append(out, r.Service)
		}
	}
	slices.Sort(out)
	return out
}

// From a US shipper: DHL Express quotes in dollars with its delivery dates,
// sells Express Worldwide with the paperless invoice (customs.pdf is DHL's
// invoice, marked sent electronically), and the label is tracked by
// polling to delivered.
func TestDHLExpressFromTheUS(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t)
	body := expressBody(nyAddr(), parisAddr(), watches("DAP", map[string]any{"invoiceNumber": "INV-1042"}))
	rates := expressQuote(t, b, live, body)
	if d := cmp.Diff([]string{"Express1200", "Express900", "ExpressWorldwide"}, expressServices(rates)); d != "" {
		t.Fatalf("services (-want +got):\n%s", d)
	}
	for _, r := range rates {
		if r.Carrier != "DHLExpress" {
			continue // USPS quotes too
		}
		if r.Currency != "USD" || r.EstimatedDeliveryDate == "" || !r.Guaranteed || r.DutiesCents != nil && *r.DutiesCents != 0 {
			t.Errorf("rate %+v", r)
		}
	}
	body["carrier"], body["service"] = "DHLExpress", "ExpressWorldwide"
	sh := createLabel(t, b, live, body)
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	sold, ok := f.dhl.Sale(sh.str(sh.TrackingNumber))
	if !ok || sold.Product != "P" || !sold.Paperless || sold.Reference != sh.ID {
		t.Fatalf("DHL sold %+v for %s", sold, sh.ID)
	}
	if sh.Currency != "USD" {
		t.Errorf("the label's currency %s", sh.Currency)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/label.pdf", live, nil)
	if r.Status != http.StatusOK || !bytes.HasPrefix(r.Body, []byte("%PDF")) {
		t.Fatalf("label.pdf: %d", r.Status)
	}
	r = b.doT(t, "GET", "/api/v1/labels/"+sh.ID+"/customs.pdf", live, nil)
	wantStatus(t, r, http.StatusOK)
	text := normalizeSpace(pdfText(t, r.Body))
	for _, want := range []string{"DHL EXPRESS COMMERCIAL INVOICE", "Invoice number: INV-1042", "Paperless trade WY: sent to customs electronically"} {
		if !strings.Contains(text, want) {
			t.Errorf("customs.pdf does not say %q:\n%s", want, text)
		}
	}
	sh = waitForTracking(t, b, live, sh.ID, "delivered")
	if n := len(deref(sh.TrackingEvents)); n != 6 {
		t.Errorf("%d tracking events, want DHL's 6 checkpoints", n)
	}
}

// From a German shipper: euros, the EU products between member states
// (no customs), and a shipment of three parcels under one waybill, each
// parcel its own JD number; a piece scanned apart is an event of its own.
func TestDHLExpressFromGermany(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t)
	b.billIn("EUR") // a German shipper: DHL bills it in euros
	if rates := expressQuote(t, b, live, expressBody(berlinAddr(), addrMap("Max Huber", "Marienplatz 8", "Munich", "80331", "DE", "+49 89 7654321"))); len(rates) != 1 ||
		rates[0].Service != "DomesticExpress" || rates[0].Currency != "EUR" {
		t.Errorf("within Germany: %+v", rates)
	}
	eu := expressBody(berlinAddr(), parisAddr())
	rates := expressQuote(t, b, live, eu)
	if d := cmp.Diff([]string{"EconomySelect", "Express1200", "Express900", "ExpressWorldwide", "ExpressWorldwideEU"}, expressServices(rates)); d != "" {
		t.Errorf("Germany to France (-want +got):\n%s", d)
	}
	for _, r := range rates {
		if r.Currency != "EUR" || r.Guaranteed == (r.Service == "EconomySelect") {
			t.Errorf("rate %+v", r)
		}
	}
	pieces := expressBody(berlinAddr(), parisAddr(), withParcels(32, 48, 16), withField("carrier", "DHLExpress"), withField("service", "ExpressWorldwideEU"))
	sh := createLabel(t, b, live, pieces)
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	sold, _ := f.dhl.Sale(sh.str(sh.TrackingNumber))
	d := getPiecesAs(t, b, live, sh.ID)
	var numbers []string
	for _, p := range d.Packages {
		numbers = append(numbers, p.TrackingNumber)
	}
	if d := cmp.Diff(sold.Pieces, numbers); d != "" || sold.Product != "U" || sh.Currency != "EUR" {
		t.Fatalf("packages (-DHL +shipment):\n%s; product %s, currency %s", d, sold.Product, sh.Currency)
	}
	waitForTracking(t, b, live, sh.ID, "delivered")
	d = getPiecesAs(t, b, live, sh.ID)
	var apart []string
	for _, e := range d.TrackingEvents {
		if e.TrackingNumber != "" {
			apart = append(apart, e.TrackingNumber)
		}
	}
	if d := cmp.Diff([]string{sold.Pieces[1]}, apart); d != "" {
		t.Errorf("events named by piece (-want +got):\n%s", d)
	}
}

func getPiecesAs(t *testing.T, b *bundle, token, id string) piecesDoc {
	t.Helper()
	var d piecesDoc
	b.doT(t, "GET", "/api/v1/labels/"+id, token, nil).Decode(t, &d)
	return d
}

// A DDP quote carries DHL's landed cost in its price (dutiesCents), and
// the label's declaration gives DHL the new registration numbers: the
// exporter's EORI, the importer's VAT and the IOSS, shown back on the
// shipment.
func TestDHLExpressDDPWithRegistrations(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t, unscanned)
	regs := map[string]any{"exporterEori": "de123456789012345", "importerVat": "FR12345678901", "ioss": "im2500000042"}
	ddp := expressBody(nyAddr(), parisAddr(), watches("DDP", regs))
	dap := map[string]int64{}
	for _, r := range expressQuote(t, b, live, expressBody(nyAddr(), parisAddr(), watches("DAP", nil))) {
		dap[r.Service] = r.CarrierRateCents
	}
	wantDuties := dhlexpressfake.Duties(25000, "USD", true)
	rates := expressQuote(t, b, live, ddp)
	if len(rates) != 3 {
		t.Fatalf("DDP rates %+v", rates)
	}
	for _, r := range rates {
		// DD's fee is DHL's for a DDP shipment.
		if r.DutiesCents == nil || *r.DutiesCents != wantDuties || r.CarrierRateCents != dap[r.Service]+1500+wantDuties {
			t.Errorf("%s: %d with duties %v; want its DAP price %d, DD's 15.00 and %d of duties", r.Service, r.CarrierRateCents, r.DutiesCents, dap[r.Service], wantDuties)
		}
	}
	ddp["carrier"], ddp["service"] = "DHLExpress", "ExpressWorldwide"
	sh := createLabel(t, b, live, ddp)
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	sold, _ := f.dhl.Sale(sh.str(sh.TrackingNumber))
	want := dhlexpressfake.Sold{Waybill: sold.Waybill, Reference: sh.ID, Product: "P", Pieces: sold.Pieces, Paperless: true,
		Shipper: []string{"EOR DE123456789012345 DE", "SDT IM2500000042 FR"}, Receiver: []string{"VAT FR12345678901 FR"}}
	if d := cmp.Diff(want, sold); d != "" {
		t.Errorf("DHL's shipment (-want +got):\n%s", d)
	}
	got := map[string]any{}
	for _, k := range []string{"exporterEori", "importerVat", "ioss", "incoterm"} {
		got[k] = sh.Customs[k]
	}
	if d := cmp.Diff(map[string]any{"exporterEori": "de123456789012345", "importerVat": "FR12345678901", "ioss": "im2500000042", "incoterm": "DDP"}, got); d != "" {
		t.Errorf("the shipment's declaration (-want +got):\n%s", d)
	}
}

// The new customs fields are held to their forms: 422 invalid_field
// naming the field.
func TestDHLExpressRegistrationFieldsValidated(t *testing.T) {
	t.Parallel()
	b, _, live := setupDHLExpress(t)
	for field, bad := range map[string]string{"exporterEori": "123", "ioss": "IM12345", "importerVat": "FR/1234"} {
		body := expressBody(nyAddr(), parisAddr(), watches("DAP", map[string]any{field: bad}))
		m := wantError(t, b.do("POST", "/api/v1/labels/quote", live, body), http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != "customs."+field {
			t.Errorf("%s %q: %v", field, bad, m)
		}
	}
}

// DHL Express cannot cancel a shipment through its API: a refund is
// refused with the reason, the label stays purchased and
// shipment.void_rejected is recorded; the balance is not credited.
func TestDHLExpressVoidRefused(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t, unscanned)
	b.billIn("EUR") // a German shipper: DHL bills it in euros
	sh := createLabel(t, b, live, expressBody(berlinAddr(), parisAddr(), withField("carrier", "DHLExpress"), withField("service", "ExpressWorldwideEU")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	calls := f.dhl.Requests(dhlexpressfake.OpShip)
	wantStatus(t, b.do("POST", "/api/v1/labels/"+sh.ID+"/refund", live, nil), http.StatusAccepted)
	sh, _ = waitForLabel(t, b, live, sh.ID, "the void refused", func(s shipmentDoc) bool { return s.Status == "purchased" && s.ErrorMessage != nil })
	if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, "DHL Express cannot cancel a shipment through its API") || !strings.Contains(msg, sh.str(sh.TrackingNumber)) {
		t.Errorf("errorMessage %q", msg)
	}
	if types := eventTypes(eventsOf(listEvents(t, b, live, ""), sh.ID)); !slices.Contains(types, "shipment.void_rejected") {
		t.Errorf("events %v lack shipment.void_rejected", types)
	}
	if balance, err := b.store.Balance(context.Background(), b.account.ID, "live"); err != nil || balance != 0 {
		t.Errorf("balance %d (%v) after a refused void", balance, err)
	}
	if n := f.dhl.Requests(dhlexpressfake.OpShip); n != calls {
		t.Errorf("the refund bought again: %d shipment calls", n)
	}
}

// A live DHL Express pickup is booked at the address, in its own offset,
// and cancelled.
func TestDHLExpressPickup(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t)
	p := livePickup(t, b, live, "DHLExpress", withField("packageCount", 2), withField("totalWeightOz", 70.5))
	if !strings.HasPrefix(*p.ConfirmationNumber, "PRG") {
		t.Errorf("confirmation %s, want DHL's PRG…", *p.ConfirmationNumber)
	}
	sent, cancelled, ok := f.dhl.Pickup(*p.ConfirmationNumber)
	if !ok || cancelled || !bytes.Contains(sent, []byte(`"closeTime":"17:00"`)) || !bytes.Contains(sent, []byte(`GMT-05:00"`)) {
		t.Fatalf("DHL's pickup %s: %s", *p.ConfirmationNumber, sent)
	}
	wantStatus(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if _, cancelled, _ := f.dhl.Pickup(*p.ConfirmationNumber); !cancelled {
		t.Error("DHL was not asked to cancel the pickup")
	}
}

// A tenant connects its own DHL Express contract: its credentials are
// proved (a wrong password stores nothing), its account number's form is
// checked at the door, and its quotes and labels are DHL's for its own
// account, not the operator's.
func TestDHLExpressCarrierAccount(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t)
	b.billIn("EUR") // a German shipper: DHL bills it in euros
	account := func(password, number string) map[string]any {
		return map[string]any{"carrier": "DHLExpress", "description": "our DHL Express contract",
			"credentials": map[string]any{"clientId": tenantDHLUser, "clientSecret": password, "accountNumber": number}}
	}
	m := wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account(tenantDHLPassword, "96000000")), http.StatusUnprocessableEntity, "invalid_field")
	if msg, _ := m["error"].(string); !strings.Contains(msg, "9-digit DHL Express account number") {
		t.Errorf("an 8-digit account number: %v", m)
	}
	wantError(t, b.do("POST", "/api/v1/carrier-accounts", live, account("wrong-password", tenantDHLAccount)), http.StatusUnprocessableEntity, "carrier_credentials_invalid")
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", live, account(tenantDHLPassword, tenantDHLAccount))
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	if a.Carrier != "DHLExpress" || a.AccountNumber != tenantDHLAccount || bytes.Contains(r.Body, []byte(tenantDHLPassword)) {
		t.Fatalf("carrier account %s", r.Body)
	}
	before := len(f.dhl.Callers(dhlexpressfake.OpRates))
	r = b.doT(t, "POST", "/api/v1/labels/quote", live, expressBody(berlinAddr(), parisAddr()))
	wantStatus(t, r, http.StatusOK)
	var q struct{ Rates []accountRate }
	r.Decode(t, &q)
	if len(q.Rates) == 0 || q.Rates[0].CarrierAccountID != a.ID {
		t.Fatalf("rates %+v, want the tenant account's", q.Rates)
	}
	if callers := f.dhl.Callers(dhlexpressfake.OpRates)[before:]; len(callers) != 1 || callers[0] != tenantDHLUser {
		t.Errorf("DHL was asked by %v, want the tenant's credentials", callers)
	}
	sh := createLabel(t, b, live, expressBody(berlinAddr(), parisAddr(), withField("carrier", "DHLExpress"), withField("service", "EconomySelect")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	if sold, _ := f.dhl.Sale(sh.str(sh.TrackingNumber)); sold.Reference != sh.ID || !slices.Contains(f.dhl.Callers(dhlexpressfake.OpShip), tenantDHLUser) {
		t.Errorf("the label %+v was not bought with the tenant's account", sold)
	}
}

// Live address verification: USPS keeps US addresses, DHL Express
// verifies the others' postal code and city (a warning: the street is not
// checked), and says when it serves no such area.
func TestDHLExpressVerifiesAbroad(t *testing.T) {
	t.Parallel()
	b, f, live := setupDHLExpress(t)
	verify := func(a map[string]any) (string, bool, string, []string) {
		r := b.doT(t, "POST", "/api/v1/addresses/verify", live, a)
		wantStatus(t, r, http.StatusCreated)
		var v struct {
			Status      string
			Deliverable bool
			Address     struct{ City string }
			Messages    []struct{ Code string }
		}
		r.Decode(t, &v)
		var codes []string
		for _, m := range v.Messages {
			codes = append(codes, m.Code)
		}
		return v.Status, v.Deliverable, v.Address.City, codes
	}
	if st, ok, _, _ := verify(map[string]any{"street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"}); st == "error" || !ok ||
		f.usps.Requests(uspsfake.OpAddress) != 1 || f.dhl.Requests(dhlexpressfake.OpAddress) != 0 {
		t.Errorf("a US address: %s; USPS %d, DHL %d calls", st, f.usps.Requests(uspsfake.OpAddress), f.dhl.Requests(dhlexpressfake.OpAddress))
	}
	st, ok, city, codes := verify(map[string]any{"street1": "Friedrichstr. 123", "city": "Berlin", "zip": "10117", "country": "DE"})
	if st != "warning" || !ok || city != "BERLIN" || !slices.Contains(codes, "street_not_verified") || f.dhl.Requests(dhlexpressfake.OpAddress) != 1 {
		t.Errorf("a German address: %s %v %s %v", st, ok, city, codes)
	}
	if st, ok, _, codes := verify(map[string]any{"street1": "Rue 1", "city": "Paris", "zip": "99999", "country": "FR"}); st != "error" || ok || !slices.Contains(codes, "address_not_found") {
		t.Errorf("an area DHL does not serve: %s %v %v", st, ok, codes)
	}
}
