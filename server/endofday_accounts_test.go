package server_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// setupOwnFakes is setupLive where carrier accounts' clients reach fakes of
// their own, apart from the operator's: which fake a call reached says
// whose credentials made it.
func setupOwnFakes(t *testing.T, opts ...setupOption) (b *bundle, operator, own *liveFakes, live string) {
	t.Helper()
	own = &liveFakes{ups: upsfake.New(t), fedex: fedexfake.New(t), usps: uspsfake.New(t)}
	b, operator, live = setupLive(t, append([]setupOption{unscanned, func(c *app.Config) { c.CarrierAccounts = reaching(own) }}, opts...)...)
	return b, operator, own, live
}

func connectUSPS(t *testing.T, b *bundle, token string) carrierAccountDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/carrier-accounts", token, map[string]any{"carrier": "USPS", "credentials": map[string]any{
		"clientId": uspsfake.ClientID, "clientSecret": uspsfake.ClientSecret, "accountNumber": uspsfake.AccountNumber,
		"crid": uspsfake.CRID, "mid": uspsfake.MID}})
	wantStatus(t, r, http.StatusCreated)
	var a carrierAccountDoc
	r.Decode(t, &a)
	return a
}

// A SCAN form is made with the credentials that bought its labels: the
// labels of a carrier account go on a form of their own, made through that
// account, and the operator's labels on another, through the operator's.
func TestManifestGoesThroughTheLabelsCarrierAccount(t *testing.T) {
	t.Parallel()
	b, operator, own, live := setupOwnFakes(t)
	buy := func() string {
		sh := createLabel(t, b, live, liveBody(withField("carrier", "USPS"), withField("service", "Priority")))
		return waitForStatus(t, b, live, sh.ID, "purchased").ID
	}
	manifest := func(body map[string]any) manifestDoc {
		m := waitForManifestAs(t, b, live, createManifestAs(t, b, live, body).ID)
		if m.Status != "created" {
			t.Fatalf("manifest %s: %s, %q", m.ID, m.Status, deref(m.ErrorMessage))
		}
		return m
	}

	platformLabel := buy() // before the carrier account: the operator's USPS
	ca := connectUSPS(t, b, live)
	accountLabel := buy()
	if n := own.usps.Requests(uspsfake.OpLabel); n != 1 {
		t.Fatalf("%d labels bought through the carrier account, want 1", n)
	}

	m := wantError(t, b.do("POST", "/api/v1/manifests", live, map[string]any{"carrier": "USPS"}), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "carrierAccountId" {
		t.Errorf("labels of two carrier accounts: field %v, want carrierAccountId: %v", m["field"], m["error"])
	}
	wantError(t, b.do("POST", "/api/v1/manifests", live, map[string]any{"carrier": "USPS", "shipmentIds": []string{platformLabel, accountLabel}}),
		http.StatusUnprocessableEntity, "missing_field")
	m = wantError(t, b.do("POST", "/api/v1/manifests", live, map[string]any{"carrier": "USPS", "carrierAccountId": ca.ID, "shipmentIds": []string{platformLabel}}),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "shipmentIds.0" {
		t.Errorf("a label of another carrier account: field %v, want shipmentIds.0", m["field"])
	}
	wantError(t, b.do("POST", "/api/v1/manifests", live, map[string]any{"carrier": "USPS", "carrierAccountId": "ca_nosuchaccount0000000000"}),
		http.StatusUnprocessableEntity, "invalid_field")
	wantError(t, b.do("POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "carrierAccountId": ca.ID}),
		http.StatusUnprocessableEntity, "invalid_field")

	mine := manifest(map[string]any{"carrier": "USPS", "carrierAccountId": ca.ID})
	if diff := cmp.Diff([]string{accountLabel}, mine.ShipmentIDs); diff != "" || deref(mine.CarrierAccountID) != ca.ID {
		t.Errorf("the carrier account's manifest: carrierAccountId %q, labels (-want +got):\n%s", deref(mine.CarrierAccountID), diff)
	}
	if o, a := operator.usps.Requests(uspsfake.OpSCANForm), own.usps.Requests(uspsfake.OpSCANForm); o != 0 || a != 1 {
		t.Errorf("SCAN forms: %d through the operator's credentials, %d through the carrier account's; want 0 and 1", o, a)
	}
	platform := manifest(map[string]any{"carrier": "USPS"})
	if diff := cmp.Diff([]string{platformLabel}, platform.ShipmentIDs); diff != "" || platform.CarrierAccountID != nil {
		t.Errorf("the operator's manifest: carrierAccountId %v, labels (-want +got):\n%s", platform.CarrierAccountID, diff)
	}
	if o, a := operator.usps.Requests(uspsfake.OpSCANForm), own.usps.Requests(uspsfake.OpSCANForm); o != 1 || a != 1 {
		t.Errorf("SCAN forms: %d through the operator's credentials, %d through the carrier account's; want 1 and 1", o, a)
	}
}

// A pickup is booked, and cancelled, on the carrier account that pays for
// it: the account's only one of the carrier, or the one named when it has
// several.
func TestPickupGoesThroughACarrierAccount(t *testing.T) {
	t.Parallel()
	b, operator, own, live := setupOwnFakes(t)
	day := pickupDay(b.clock.Now())
	schedule := func(mods ...func(m map[string]any)) pickupDoc {
		r := b.doT(t, "POST", "/api/v1/pickups", live, pickupBody(day, append([]func(m map[string]any){withField("carrier", "UPS")}, mods...)...))
		wantStatus(t, r, http.StatusCreated)
		var p pickupDoc
		r.Decode(t, &p)
		return p
	}
	zed := connectUPS(t, b, live, upsfake.ClientID, upsfake.ClientSecret, upsfake.AccountNumber)
	p := schedule()
	if deref(p.CarrierAccountID) != zed.ID || p.Status != "scheduled" {
		t.Errorf("pickup: %s, carrierAccountId %q, want scheduled through %s", p.Status, deref(p.CarrierAccountID), zed.ID)
	}
	wantStatus(t, b.doT(t, "POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if diff := cmp.Diff([]string{upsfake.ClientID, upsfake.ClientID}, append(own.ups.Callers(upsfake.OpPickup), own.ups.Callers(upsfake.OpCancelPickup)...)); diff != "" {
		t.Errorf("pickup and cancel through the carrier account (-want +got):\n%s", diff)
	}
	if n := operator.ups.Requests(upsfake.OpPickup) + operator.ups.Requests(upsfake.OpCancelPickup); n != 0 {
		t.Errorf("%d pickup calls with the operator's credentials, want 0", n)
	}

	own.ups.AddClient(acmeClientID, acmeSecret, acmeShipper)
	acme := connectUPS(t, b, live, acmeClientID, acmeSecret, acmeShipper)
	m := wantError(t, b.do("POST", "/api/v1/pickups", live, pickupBody(day, withField("carrier", "UPS"))), http.StatusUnprocessableEntity, "missing_field")
	if m["field"] != "carrierAccountId" {
		t.Errorf("two UPS carrier accounts: field %v, want carrierAccountId: %v", m["field"], m["error"])
	}
	p = schedule(withField("carrierAccountId", acme.ID))
	if got := own.ups.Callers(upsfake.OpPickup); deref(p.CarrierAccountID) != acme.ID || got[len(got)-1] != acmeClientID {
		t.Errorf("pickup through %q by client %v, want %s by %s", deref(p.CarrierAccountID), got, acme.ID, acmeClientID)
	}
	wantStatus(t, b.do("PATCH", "/api/v1/carrier-accounts/"+acme.ID, live, map[string]any{"enabled": false}), http.StatusOK)
	m = wantError(t, b.do("POST", "/api/v1/pickups", live, pickupBody(day, withField("carrier", "UPS"), withField("carrierAccountId", acme.ID))),
		http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "carrierAccountId" {
		t.Errorf("a disabled carrier account: field %v", m["field"])
	}
	// Cancelled through the account that booked it, disabled since or not.
	wantStatus(t, b.doT(t, "POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if got := own.ups.Callers(upsfake.OpCancelPickup); got[len(got)-1] != acmeClientID {
		t.Errorf("cancel by %v, want %s last", got, acmeClientID)
	}
	wantError(t, b.do("POST", "/api/v1/pickups", b.token, pickupBody(day, withField("carrierAccountId", zed.ID))),
		http.StatusUnprocessableEntity, "invalid_field")
}

// Pickups and manifests draw on the carrier's budgets of their own APIs: a
// pickup past it is 503 carrier_unavailable with Retry-After and reaches no
// carrier; a manifest past it waits, creating, without spending an attempt,
// and the form is made once.
func TestPickupAndManifestBudgets(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned, func(c *app.Config) {
		c.CarrierQuotas = carriers.Quotas{
			{Carrier: "usps", API: carriers.APIPickups}:   {Calls: 1, Per: time.Hour},
			{Carrier: "usps", API: carriers.APIManifests}: {Calls: 1, Per: time.Hour},
		}
	})
	day := pickupDay(b.clock.Now())
	wantStatus(t, b.doT(t, "POST", "/api/v1/pickups", live, pickupBody(day)), http.StatusCreated)
	r := b.doT(t, "POST", "/api/v1/pickups", live, pickupBody(day))
	wantError(t, r, http.StatusServiceUnavailable, "carrier_unavailable")
	if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 60 {
		t.Errorf("Retry-After = %q, want the budget's next call (about an hour)", r.Header.Get("Retry-After"))
	}
	if n := f.usps.Requests(uspsfake.OpPickup); n != 1 {
		t.Errorf("%d pickup calls reached USPS, want 1", n)
	}

	buy := func() {
		sh := createLabel(t, b, live, liveBody(withField("carrier", "USPS"), withField("service", "Priority")))
		waitForStatus(t, b, live, sh.ID, "purchased")
	}
	manifest := func() manifestDoc { return createManifestAs(t, b, live, map[string]any{"carrier": "USPS"}) }
	buy()
	first := waitForManifestAs(t, b, live, manifest().ID)
	if first.Status != "created" {
		t.Fatalf("first manifest %s: %q", first.Status, deref(first.ErrorMessage))
	}
	buy()
	second := manifest()
	refused := map[string]string{"carrier": "USPS", "api": "manifests", "decision": "refused"}
	waitUntil(t, "the second manifest refused for its budget", func() bool {
		return scrapeMetrics(t, b).value("shipd_carrier_quota_decisions_total", refused) >= 1
	})
	b.doT(t, "GET", "/api/v1/manifests/"+second.ID, live, nil).Decode(t, &second)
	if second.Status != "creating" || f.usps.Requests(uspsfake.OpSCANForm) != 1 {
		t.Errorf("second manifest %s after its budget refused it, %d SCAN form calls; want creating and 1", second.Status, f.usps.Requests(uspsfake.OpSCANForm))
	}
}

// A server whose own carriers are UPS alone still makes a tenant's SCAN
// form and books its USPS pickup through the tenant's USPS carrier account.
func TestEndOfDayThroughACarrierOfNoOwnCredentials(t *testing.T) {
	t.Parallel()
	u, err := ups.New(ups.Config{ClientID: upsfake.ClientID, ClientSecret: upsfake.ClientSecret, AccountNumber: upsfake.AccountNumber, BaseURL: upsfake.New(t).URL()})
	if err != nil {
		t.Fatal(err)
	}
	b, _, own, live := setupOwnFakes(t, withCarriers(sandbox.New(sandbox.Config{}), []carriers.Carrier{u}))
	connectUSPS(t, b, live)
	sh := createLabel(t, b, live, liveBody(withField("carrier", "USPS"), withField("service", "Priority")))
	waitForStatus(t, b, live, sh.ID, "purchased")
	m := waitForManifestAs(t, b, live, createManifestAs(t, b, live, map[string]any{"carrier": "USPS"}).ID)
	if m.Status != "created" || own.usps.Requests(uspsfake.OpSCANForm) != 1 {
		t.Errorf("manifest %s, %d SCAN forms through the carrier account; want created and 1", m.Status, own.usps.Requests(uspsfake.OpSCANForm))
	}
	wantStatus(t, b.doT(t, "POST", "/api/v1/pickups", live, pickupBody(pickupDay(b.clock.Now()))), http.StatusCreated)
	if n := own.usps.Requests(uspsfake.OpPickup); n != 1 {
		t.Errorf("%d USPS pickups through the carrier account, want 1", n)
	}
	wantError(t, b.doT(t, "POST", "/api/v1/manifests", live, map[string]any{"carrier": "DHL"}), http.StatusUnprocessableEntity, "invalid_field")
}
