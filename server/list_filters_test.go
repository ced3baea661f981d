package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/webhooks"
)

// TestListFiltersRefuseUnknownValues: a list filter with a value it does not
// know is 422 invalid_field naming the filter, not an empty page, on every
// list operation of the contract (every query parameter but the paging ones).
func TestListFiltersRefuseUnknownValues(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t)
	var filters []string
	for _, path := range doc.Paths.InMatchingOrder() {
		op := doc.Paths.Value(path).Get
		if op == nil {
			continue
		}
		for _, p := range op.Parameters {
			if p.Value.In != openapi3.ParameterInQuery || p.Value.Name == "cursor" || p.Value.Name == "limit" {
				continue
			}
			if strings.Contains(path, "{") {
				t.Fatalf("GET %s filters by %s: give the test an id for its path", path, p.Value.Name)
			}
			filters = append(filters, "GET "+path+"?"+p.Value.Name)
			t.Run(op.OperationID+" "+p.Value.Name, func(t *testing.T) {
				r := b.doT(t, "GET", "/api/v1"+path+"?"+url.Values{p.Value.Name: {"bogus"}}.Encode(), b.token, nil)
				if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != p.Value.Name {
					t.Errorf("field = %v, want %s", m["field"], p.Value.Name)
				}
			})
		}
	}
	// The filters the contract has today must be among those found, or the
	// walk above missed them.
	for _, want := range []string{"GET /events?type", "GET /labels?status"} {
		if !slices.Contains(filters, want) {
			t.Errorf("filters found %v lack %s", filters, want)
		}
	}
}

// TestEventTypeFilter: GET /events?type= takes the event types the history
// holds; any other value is 422 invalid_field with knownEvents, as an unknown
// type is on the webhooks endpoints.
func TestEventTypeFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, typ := range []string{"", "bogus", "shipment.teleported", "*", webhooks.EventTest, "SHIPMENT.PURCHASED", " shipment.purchased"} {
		r := b.doT(t, "GET", "/api/v1/events?"+url.Values{"type": {typ}}.Encode(), b.token, nil)
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != "type" {
			t.Errorf("type=%q: field = %v, want type", typ, m["field"])
		}
		var known []string
		for _, k := range m["knownEvents"].([]any) {
			known = append(known, k.(string))
		}
		if diff := cmp.Diff(webhooks.EventTypes(), known); diff != "" {
			t.Errorf("type=%q: knownEvents (-want +got):\n%s", typ, diff)
		}
	}
	for _, typ := range webhooks.EventTypes() {
		if r := b.doT(t, "GET", "/api/v1/events?type="+url.QueryEscape(typ), b.token, nil); r.Status != http.StatusOK {
			t.Errorf("type=%s: %d %s", typ, r.Status, r.Body)
		}
	}
}
