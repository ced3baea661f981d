package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/shipd-dev/shipd/openapi"
)

// TestRequestExamplesAreAccepted sends the contract's request examples as
// a client copying them would, in the order a day of shipping takes (the
// label the manifest and the refund act on is the one the create example
// buys): each is answered with its documented success. Not sent: the
// pickup example (its date and its label are the example's), and the
// carrier account examples (live mode, a carrier's real API).
func TestRequestExamplesAreAccepted(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	example := func(path, method string) any {
		t.Helper()
		mt := doc.Paths.Value(path).GetOperation(method).RequestBody.Value.Content.Get("application/json")
		for _, ex := range mt.Examples {
			return ex.Value.Value
		}
		t.Fatalf("%s %s has no request example", method, path)
		return nil
	}
	send := func(method, path, contractPath string, status int) map[string]any {
		t.Helper()
		r := b.do(method, path, b.token, example(contractPath, method))
		wantStatus(t, r, status)
		var out map[string]any
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	send("POST", "/api/v1/labels/quote", "/labels/quote", http.StatusOK)
	shipment := send("POST", "/api/v1/labels/create", "/labels/create", http.StatusAccepted)
	id := shipment["id"].(string)
	waitUntil(t, "the example's label to be purchased", func() bool {
		var sh map[string]any
		r := b.do("GET", "/api/v1/labels/"+id, b.token, nil)
		return json.Unmarshal(r.Body, &sh) == nil && sh["status"] == "purchased"
	})
	send("POST", "/api/v1/manifests", "/manifests", http.StatusAccepted)
	send("POST", "/api/v1/labels/"+id+"/refund", "/labels/{id}/refund", http.StatusAccepted)
	send("POST", "/api/v1/batches", "/batches", http.StatusAccepted)
	send("POST", "/api/v1/trackers", "/trackers", http.StatusCreated)
	send("POST", "/api/v1/addresses/verify", "/addresses/verify", http.StatusCreated)
	send("POST", "/api/v1/addresses", "/addresses", http.StatusCreated)
	hook := send("POST", "/api/v1/webhooks", "/webhooks", http.StatusCreated)
	send("PATCH", "/api/v1/webhooks/"+hook["id"].(string), "/webhooks/{id}", http.StatusOK)
}
