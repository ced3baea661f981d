package server_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/store/storetest"
)

type manifestDoc struct {
	ID           string         `json:"id"`
	Mode         string         `json:"mode"`
	Carrier      string         `json:"carrier"`
	Status       string         `json:"status"`
	ShipmentIDs  []string       `json:"shipmentIds"`
	FromAddress  map[string]any `json:"fromAddress"`
	FormNumber   *string        `json:"formNumber"`
	FormURL      *string        `json:"formUrl"`
	ErrorMessage *string        `json:"errorMessage"`
	// CarrierAccountID is the carrier account that makes the form (live mode).
	CarrierAccountID *string `json:"carrierAccountId"`
}

// uspsLabel buys a USPS Priority label (mods change the body) and waits for it.
func uspsLabel(t *testing.T, b *bundle, mods ...func(m map[string]any)) string {
	t.Helper()
	mods = append([]func(m map[string]any){withField("carrier", "USPS"), withField("service", "Priority")}, mods...)
	s := createLabel(t, b, b.token, labelBody(mods...))
	waitForStatus(t, b, b.token, s.ID, "purchased")
	return s.ID
}

func withFromStreet(street string) func(m map[string]any) {
	return func(m map[string]any) { m["fromAddress"].(map[string]any)["street1"] = street }
}

func withFromName(name string) func(m map[string]any) {
	return func(m map[string]any) { m["fromAddress"].(map[string]any)["name"] = name }
}

func createManifest(t *testing.T, b *bundle, body map[string]any) manifestDoc {
	t.Helper()
	return createManifestAs(t, b, b.token, body)
}

// createManifestAs is createManifest with token.
func createManifestAs(t *testing.T, b *bundle, token string, body map[string]any) manifestDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/manifests", token, body)
	wantStatus(t, r, http.StatusAccepted)
	var m manifestDoc
	r.Decode(t, &m)
	return m
}

func waitForManifest(t *testing.T, b *bundle, id string) manifestDoc {
	t.Helper()
	return waitForManifestAs(t, b, b.token, id)
}

// waitForManifestAs is waitForManifest with token.
func waitForManifestAs(t *testing.T, b *bundle, token, id string) manifestDoc {
	t.Helper()
	var m manifestDoc
	waitUntil(t, "manifest "+id+" done", func() bool {
		r := b.doT(t, "GET", "/api/v1/manifests/"+id, token, nil)
		wantStatus(t, r, http.StatusOK)
		r.Decode(t, &m)
		return m.Status != "creating"
	})
	return m
}

func manifestIDOf(t *testing.T, b *bundle, token, shipmentID string) string {
	t.Helper()
	r := b.doT(t, "GET", "/api/v1/labels/"+shipmentID, token, nil)
	wantStatus(t, r, http.StatusOK)
	m := r.JSON(t)
	id, _ := m["manifestId"].(string)
	return id
}

// Without shipmentIds every purchased USPS label on no manifest goes on the
// manifest; the job makes the SCAN form, emits manifest.created, and each
// label shows the manifest. A second manifest finds nothing left.
func TestManifestTakesEveryWaitingLabel(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	first, second := uspsLabel(t, b), uspsLabel(t, b)
	ups := createLabel(t, b, b.token, labelBody(withField("carrier", "UPS"), withField("service", "Ground")))
	waitForStatus(t, b, b.token, ups.ID, "purchased")

	m := createManifest(t, b, map[string]any{"carrier": "usps"})
	if diff := cmp.Diff(manifestDoc{ID: m.ID, Mode: "test", Carrier: "USPS", Status: "creating", ShipmentIDs: []string{first, second},
		FromAddress: m.FromAddress}, m); diff != "" {
		t.Errorf("POST /manifests (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(m.ID, "man_") || m.FromAddress["street1"] != "350 Fifth Avenue" {
		t.Errorf("manifest id %q, fromAddress %v", m.ID, m.FromAddress)
	}
	done := waitForManifest(t, b, m.ID)
	if done.Status != "created" || done.FormNumber == nil || done.FormURL == nil || !strings.HasSuffix(*done.FormURL, "/api/v1/manifests/"+m.ID+"/form.pdf") {
		t.Fatalf("manifest after its job: %+v", done)
	}
	for _, id := range []string{first, second} {
		if got := manifestIDOf(t, b, b.token, id); got != m.ID {
			t.Errorf("label %s manifestId %q, want %q", id, got, m.ID)
		}
	}
	if got := manifestIDOf(t, b, b.token, ups.ID); got != "" {
		t.Errorf("the UPS label is on manifest %q", got)
	}
	events := b.doT(t, "GET", "/api/v1/events?type=manifest.created", b.token, nil).JSON(t)["data"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["data"].(map[string]any)["id"] != m.ID {
		t.Errorf("manifest.created events: %v", events)
	}

	r := b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", b.token, nil)
	wantStatus(t, r, http.StatusOK)
	body := string(r.Body)
	// The form is uncompressed: its text is in the content stream.
	for _, want := range []string{"%PDF-", "USPS SCAN FORM - PS FORM 5630", "(" + *done.FormNumber + ")", "(2)", "350 FIFTH AVENUE"} {
		if !strings.Contains(body, want) {
			t.Errorf("form has no %q", want)
		}
	}
	for _, id := range []string{first, second} {
		tn := deref(getLabel(t, b, b.token, id).TrackingNumber)
		if !strings.Contains(body, tn) {
			t.Errorf("form does not list tracking number %s", tn)
		}
	}

	wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS"}), http.StatusUnprocessableEntity, "nothing_to_manifest")

	// USPS refunds a label on a SCAN form that was never scanned: the
	// refund goes through and the label stays listed on its manifest.
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+first+"/refund", b.token, map[string]any{}), http.StatusAccepted)
	waitForStatus(t, b, b.token, first, "voided")
	if got := manifestIDOf(t, b, b.token, first); got != m.ID {
		t.Errorf("a refunded label left its manifest: manifestId %q, want %q", got, m.ID)
	}
	list := b.doT(t, "GET", "/api/v1/manifests", b.token, nil).JSON(t)["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != m.ID {
		t.Errorf("GET /manifests: %v", list)
	}
}

func TestManifestErrors(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	one := uspsLabel(t, b)
	elsewhere := uspsLabel(t, b, withFromStreet("1 Market St"), func(m map[string]any) {
		f := m["fromAddress"].(map[string]any)
		f["city"], f["state"], f["zip"] = "San Francisco", "CA", "94105"
	})
	fedex := createLabel(t, b, b.token, labelBody(withField("carrier", "FedEx"), withField("service", "Ground")))
	waitForStatus(t, b, b.token, fedex.ID, "purchased")
	paying := createLabel(t, b, b.token, labelBody(withField("carrier", "USPS"), withField("service", "Priority"), withToName("Fail Purchase")))
	waitForStatus(t, b, b.token, paying.ID, "failed")

	e := wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS"}), http.StatusUnprocessableEntity, "invalid_field")
	if e["field"] != "fromAddress" || !strings.Contains(e["error"].(string), "350 Fifth Avenue") || !strings.Contains(e["error"].(string), "1 Market St") {
		t.Errorf("several origins: %v", e)
	}
	wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "UPS"}), http.StatusUnprocessableEntity, "manifest_not_supported")
	e = wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "shipmentIds": []string{one, fedex.ID}}), http.StatusUnprocessableEntity, "invalid_field")
	if e["field"] != "shipmentIds.1" {
		t.Errorf("a FedEx label on a USPS manifest: %v", e)
	}
	wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "shipmentIds": []string{paying.ID}}), http.StatusConflict, "not_purchased")
	e = wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "shipmentIds": []string{one, elsewhere}}), http.StatusUnprocessableEntity, "invalid_field")
	if e["field"] != "fromAddress" {
		t.Errorf("listed labels of two origins: %v", e)
	}

	// fromAddress picks one origin among several.
	m := createManifest(t, b, map[string]any{"carrier": "USPS", "fromAddress": map[string]any{"street1": "350 fifth  avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"}})
	if !slices.Equal(m.ShipmentIDs, []string{one}) {
		t.Errorf("manifest of 350 Fifth Avenue: %v, want [%s]", m.ShipmentIDs, one)
	}
	e = wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "shipmentIds": []string{one}}), http.StatusConflict, "already_manifested")
	if !strings.Contains(e["error"].(string), one) || !strings.Contains(e["error"].(string), m.ID) {
		t.Errorf("already_manifested does not name the label and its manifest: %v", e)
	}
	// The other origin's label is still waiting, alone now.
	rest := createManifest(t, b, map[string]any{"carrier": "USPS"})
	if !slices.Equal(rest.ShipmentIDs, []string{elsewhere}) {
		t.Errorf("second manifest: %v, want [%s]", rest.ShipmentIDs, elsewhere)
	}
}

// The carrier refuses the manifest: failed with the reason, manifest.failed,
// and the labels are free for another manifest.
func TestManifestRefusedFreesItsLabels(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	id := uspsLabel(t, b, withFromName("Manifest Rejected"))
	m := createManifest(t, b, map[string]any{"carrier": "USPS"})
	done := waitForManifest(t, b, m.ID)
	if done.Status != "failed" || done.ErrorMessage == nil || !strings.Contains(*done.ErrorMessage, "refused") || done.FormURL != nil {
		t.Fatalf("refused manifest: %+v", done)
	}
	if got := manifestIDOf(t, b, b.token, id); got != "" {
		t.Errorf("label still on manifest %q after the carrier refused it", got)
	}
	wantError(t, b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", b.token, nil), http.StatusNotFound, "label_unavailable")
	events := b.doT(t, "GET", "/api/v1/events?type=manifest.failed", b.token, nil).JSON(t)["data"].([]any)
	if len(events) != 1 {
		t.Errorf("manifest.failed events: %v", events)
	}

	again := createManifest(t, b, map[string]any{"carrier": "USPS", "shipmentIds": []string{id}})
	if !slices.Equal(again.ShipmentIDs, []string{id}) {
		t.Errorf("the freed label: %v", again.ShipmentIDs)
	}
}

func TestManifestFormPendingWhileCreating(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	uspsLabel(t, b, withFromName("Slow Carrier"))
	m := createManifest(t, b, map[string]any{"carrier": "USPS"})
	r := b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", b.token, nil)
	wantError(t, r, http.StatusAccepted, "label_pending")
	if r.Header.Get("Retry-After") == "" {
		t.Error("202 label_pending without Retry-After")
	}
	waitForManifest(t, b, m.ID)
	wantStatus(t, b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", b.token, nil), http.StatusOK)
}

// Two instances on one database take POST /manifests at once for the same
// labels: each label lands on one manifest; the loser gets the rest (none
// here) as 422 nothing_to_manifest. On PostgreSQL (SHIPD_TEST_DATABASE_URL)
// the two transactions really overlap; on SQLite they are serial.
func TestManifestConcurrentCreatesShareNoLabel(t *testing.T) {
	t.Parallel()
	// On SQLite, which serve gives one server, neither instance serves the
	// file as serve would (no ServerLock, nothing cached): a serving one
	// would keep its own cached "paying" while the other buys the label.
	dsn, docs := storetest.NewDatabase(t), t.TempDir()
	clock := fakeclock.New(time.Now().UTC())
	b := startInstance(t, dsn, docs, clock, false, withoutRateLimits())
	other := startInstance(t, dsn, docs, clock, false, withoutRateLimits())
	b.account = b.newAccount("Acme", true)
	b.tokenID, b.token = b.newToken(b.account.ID, "test", allScopes...)
	other.account, other.tokenID, other.token = b.account, b.tokenID, b.token
	var ids []string
	for range 4 {
		ids = append(ids, uspsLabel(t, b))
	}

	for round, body := range []map[string]any{{"carrier": "USPS"}, {"carrier": "USPS", "shipmentIds": ids}} {
		if round == 1 {
			// The first round's labels are on its manifest: listing them
			// would only be already_manifested; race for new ones.
			ids = nil
			for range 4 {
				ids = append(ids, uspsLabel(t, b))
			}
			body["shipmentIds"] = ids
		}
		var wg sync.WaitGroup
		results := make([]response, 2)
		for i, inst := range []*bundle{b, other} {
			wg.Go(func() { results[i] = inst.doT(t, "POST", "/api/v1/manifests", inst.token, body) })
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			switch r.Status {
			case http.StatusAccepted:
				won++
				var m manifestDoc
				r.Decode(t, &m)
				if !slices.Equal(m.ShipmentIDs, ids) {
					t.Errorf("round %d: the winner has %v, want %v", round, m.ShipmentIDs, ids)
				}
			case http.StatusUnprocessableEntity, http.StatusConflict:
				code := r.JSON(t)["code"]
				if code != "nothing_to_manifest" && code != "already_manifested" {
					t.Errorf("round %d: the loser got %d %v", round, r.Status, code)
				}
			default:
				t.Errorf("round %d: %d %s", round, r.Status, r.Body)
			}
		}
		if won != 1 {
			t.Errorf("round %d: %d manifests made, want 1", round, won)
		}
		var onTwo int
		if err := b.sql(t).Get(&onTwo, `SELECT COUNT(*) FROM shipments WHERE manifest_id IS NOT NULL AND id IN ('`+strings.Join(ids, "','")+`')`); err != nil {
			t.Fatal(err)
		}
		if onTwo != len(ids) {
			t.Errorf("round %d: %d of %d labels on a manifest", round, onTwo, len(ids))
		}
	}
}

// A return label ships from the customer, who hands it over: it is never
// on the merchant's manifest, neither by default nor listed.
func TestManifestLeavesReturnLabelsOut(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	out := uspsLabel(t, b)
	ret := createReturn(t, b, b.token, map[string]any{"returnOf": out, "carrier": "USPS", "service": "Priority"})
	waitForStatus(t, b, b.token, ret.ID, "purchased")

	e := wantError(t, b.doT(t, "POST", "/api/v1/manifests", b.token, map[string]any{"carrier": "USPS", "shipmentIds": []string{ret.ID}}), http.StatusUnprocessableEntity, "invalid_field")
	if e["field"] != "shipmentIds.0" {
		t.Errorf("a listed return label: %v", e)
	}
	m := createManifest(t, b, map[string]any{"carrier": "USPS"})
	if !slices.Equal(m.ShipmentIDs, []string{out}) {
		t.Errorf("manifest %v, want the outbound label %s alone", m.ShipmentIDs, out)
	}
}
