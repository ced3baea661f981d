package ui_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A multi-piece shipment's page lists its boxes, the master first, and
// names the box of a scan that is one box's.
func TestShipmentPageListsItsBoxes(t *testing.T) {
	t.Parallel()
	b := setup(t, withScanInterval(10*time.Millisecond))
	status, body := b.api("POST", "/labels/create", b.token, map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Ada Lovelace", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcels":     []any{map[string]any{"weightOz": 16}, map[string]any{"weightOz": 24}},
	})
	if status != http.StatusAccepted {
		t.Fatalf("POST /labels/create: %d %v", status, body)
	}
	id := body["id"].(string)
	var packages []any
	eventually(t, func() bool {
		_, sh := b.api("GET", "/labels/"+id, b.token, nil)
		packages, _ = sh["packages"].([]any)
		events, _ := sh["trackingEvents"].([]any)
		return sh["trackingStatus"] == "delivered" && len(packages) == 2 && len(events) > 0
	})
	second := packages[1].(map[string]any)["trackingNumber"].(string)
	br := b.browser()
	br.signIn(b.email)
	page := br.get("/settings/shipments/" + id)
	must(t, "detail", page, http.StatusOK, "Boxes", packages[0].(map[string]any)["trackingNumber"].(string), "24 oz", "box <code>"+second+"</code>")
	if n := strings.Count(page.body, second); n != 2 {
		t.Errorf("the second box's number appears %d times, want 2 (its box and its scan)", n)
	}
}
