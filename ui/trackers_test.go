package ui_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestTrackersPage(t *testing.T) {
	t.Parallel()
	b := setup(t, withScanInterval(time.Hour))
	shipment := b.buyLabel(b.token)
	status, body := b.api("POST", "/trackers", b.token, map[string]any{"trackingNumber": "1Z999AA10123456784"})
	if status != http.StatusCreated {
		t.Fatalf("POST /trackers: %d %v", status, body)
	}
	standalone := body["id"].(string)
	br := b.browser()
	br.signIn(b.email)

	list := br.get("/settings/trackers")
	must(t, "trackers", list, http.StatusOK, standalone, "1Z999AA10123456784", "UPS", "Any package",
		`href="/settings/shipments/`+shipment+`"`, "Unknown", `<a href="/settings/trackers" aria-current="page">Trackers</a>`)
	if strings.Index(list.body, standalone) > strings.Index(list.body, shipment) {
		t.Error("the newer standalone tracker is not listed first")
	}
	must(t, "filter", br.get("/settings/trackers?status=delivered"), http.StatusOK, "No Delivered trackers")
	must(t, "bad filter", br.get("/settings/trackers?status=lost"), http.StatusOK, "There is no status lost")
	must(t, "bad cursor", br.get("/settings/trackers?after=bm9wZQ"), http.StatusBadRequest, "This page link is out of date")

	// The live mode's list is its own.
	if p := br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/trackers"}}); p.status != http.StatusSeeOther {
		t.Fatalf("switch to live: %d", p.status)
	}
	if p := br.get("/settings/trackers"); strings.Contains(p.body, standalone) || !strings.Contains(p.body, "No trackers in live mode") {
		t.Errorf("live mode's trackers page shows test trackers or no empty note:\n%s", p.body)
	}
}
