package server_test

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
)

// Live manifests end to end through the API against the fakes: a USPS SCAN
// form lists exactly the labels (the fake records which form each label is
// on), a FedEx Ground close covers the day's Ground labels, and UPS, which
// has no manifest step, is refused before anything is stored.
func TestLiveManifests(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	buy := func(carrier, service string) shipmentDoc {
		sh := createLabel(t, b, live, liveBody(withField("carrier", carrier), withField("service", service)))
		return waitForStatus(t, b, live, sh.ID, "purchased")
	}
	manifest := func(carrier string) manifestDoc {
		m := waitForManifestAs(t, b, live, createManifestAs(t, b, live, map[string]any{"carrier": carrier}).ID)
		if m.Status != "created" || m.FormNumber == nil {
			t.Fatalf("%s manifest: status %s, errorMessage %q", carrier, m.Status, deref(m.ErrorMessage))
		}
		r := b.doT(t, "GET", "/api/v1/manifests/"+m.ID+"/form.pdf", live, nil)
		wantStatus(t, r, http.StatusOK)
		if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Errorf("%s form is not a PDF: %q", carrier, r.Body[:min(16, len(r.Body))])
		}
		return m
	}

	one, two := buy("USPS", "Priority"), buy("USPS", "GroundAdvantage")
	m := manifest("USPS")
	if !slices.Equal(m.ShipmentIDs, []string{one.ID, two.ID}) {
		t.Errorf("USPS manifest: %v", m.ShipmentIDs)
	}
	for _, sh := range []shipmentDoc{one, two} {
		if got := f.usps.SCANForm(deref(sh.TrackingNumber)); got != *m.FormNumber {
			t.Errorf("label %s is on SCAN form %q at USPS, want %q", deref(sh.TrackingNumber), got, *m.FormNumber)
		}
	}
	if f.usps.Requests("scan-form") != 1 {
		t.Errorf("%d SCAN form calls, want 1", f.usps.Requests("scan-form"))
	}

	ground := buy("FedEx", "Ground")
	manifest("FedEx")
	if !f.fedex.Closed(deref(ground.TrackingNumber)) {
		t.Errorf("the FedEx Ground label %s was not closed", deref(ground.TrackingNumber))
	}

	buy("UPS", "Ground")
	wantError(t, b.doT(t, "POST", "/api/v1/manifests", live, map[string]any{"carrier": "UPS"}), http.StatusUnprocessableEntity, "manifest_not_supported")
}

// USPS refuses the SCAN form (a 400 with its message): the manifest fails
// with USPS's words and its labels are free again.
func TestLiveManifestRefused(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	sh := createLabel(t, b, live, liveBody(withField("carrier", "USPS"), withField("service", "Priority")))
	waitForStatus(t, b, live, sh.ID, "purchased")
	f.usps.FailNext("scan-form", http.StatusBadRequest, `{"apiVersion":"/scan-forms/v3","error":{"code":"400","message":"Bad Request","errors":[{"status":"400","code":"400000","title":"Bad Request","detail":"label is already on SCAN form 9475711899000000000001"}]}}`)
	r := b.doT(t, "POST", "/api/v1/manifests", live, map[string]any{"carrier": "USPS"})
	wantStatus(t, r, http.StatusAccepted)
	var m manifestDoc
	r.Decode(t, &m)
	waitUntil(t, "manifest failed", func() bool {
		b.doT(t, "GET", "/api/v1/manifests/"+m.ID, live, nil).Decode(t, &m)
		return m.Status != "creating"
	})
	if m.Status != "failed" || !bytes.Contains([]byte(deref(m.ErrorMessage)), []byte("already on SCAN form")) {
		t.Errorf("refused SCAN form: status %s, errorMessage %q", m.Status, deref(m.ErrorMessage))
	}
	if got := manifestIDOf(t, b, live, sh.ID); got != "" {
		t.Errorf("label still on manifest %q", got)
	}
}
