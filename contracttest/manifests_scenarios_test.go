package contracttest

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// manifestScenarios: POST /manifests and its reads (issue 30).
func manifestScenarios() []Scenario {
	params := map[string]string{"id": "man_contract0000000000000000"}
	// uspsLabel is a purchased USPS label of the token's account, shipped
	// from an origin named fromName.
	uspsLabel := func(e *Env, tok, fromName string) string {
		body := With(With(With(Shipment("Ada Lovelace"), "carrier", "USPS"), "service", "Priority"), "fromAddress.name", fromName)
		return ID(e.WaitStatus(tok, ID(e.CreateShipment(tok, body)), "purchased"))
	}
	created := func(e *Env, tok string) string {
		uspsLabel(e, tok, "Shop")
		m := e.Want(e.Call("POST", "/manifests", tok, map[string]any{"carrier": "USPS"}), 202)
		deadline := time.Now().Add(30 * time.Second)
		for e.Want(e.Call("GET", "/manifests/"+ID(m), tok, nil), 200)["status"] == "creating" {
			if time.Now().After(deadline) {
				e.Failf("manifest %s still creating after 30 s", ID(m))
			}
			time.Sleep(20 * time.Millisecond)
		}
		return ID(m)
	}
	return []Scenario{
		// createManifest
		{Name: "every waiting USPS label", Op: "createManifest", Status: 202,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				uspsLabel(e, tok, "Shop")
				return Request{Token: tok, Body: map[string]any{"carrier": "USPS"}}
			}},
		{Name: "a label already on a manifest", Op: "createManifest", Status: 409, Code: "already_manifested",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				id := uspsLabel(e, tok, "Shop")
				e.Want(e.Call("POST", "/manifests", tok, map[string]any{"carrier": "USPS"}), 202)
				return Request{Token: tok, Body: map[string]any{"carrier": "USPS", "shipmentIds": []string{id}}}
			}},
		{Name: "a label not purchased", Op: "createManifest", Status: 409, Code: "not_purchased",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				body := With(With(Shipment("Fail Purchase"), "carrier", "USPS"), "service", "Priority")
				id := ID(e.WaitStatus(tok, ID(e.CreateShipment(tok, body)), "failed"))
				return Request{Token: tok, Body: map[string]any{"carrier": "USPS", "shipmentIds": []string{id}}}
			}},
		{Name: "nothing to manifest", Op: "createManifest", Status: 422, Code: "nothing_to_manifest",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: map[string]any{"carrier": "USPS"}} }},
		{Name: "a carrier account in test mode", Op: "createManifest", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: map[string]any{"carrier": "USPS", "carrierAccountId": "ca_4f3e2d1c0b9a8f7e6d5c4b3a"}}
			},
			Check: wantField("field", "carrierAccountId")},
		{Name: "UPS has no manifest step", Op: "createManifest", Status: 422, Code: "manifest_not_supported",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Body: map[string]any{"carrier": "UPS"}} }},
		{Name: "labels of two origins", Op: "createManifest", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				uspsLabel(e, tok, "Shop")
				body := With(With(With(Shipment("Ada Lovelace"), "carrier", "USPS"), "service", "Priority"), "fromAddress.street1", "2 Market St")
				e.WaitStatus(tok, ID(e.CreateShipment(tok, body)), "purchased")
				return Request{Token: tok, Body: map[string]any{"carrier": "USPS"}}
			},
			Check: wantField("field", "fromAddress")},

		// listManifests
		{Name: "a page of manifests", Op: "listManifests", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				uspsLabel(e, tok, "Shop")
				e.Want(e.Call("POST", "/manifests", tok, map[string]any{"carrier": "USPS"}), 202)
				return Request{Token: tok}
			}},
		{Name: "limit 0", Op: "listManifests", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Query: url.Values{"limit": {"0"}}}
			}},

		// getManifest
		{Name: "a created manifest", Op: "getManifest", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": created(e, tok)}}
			}},
		{Name: "test manifest with a live token", Op: "getManifest", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: e.Token("live"), Params: map[string]string{"id": created(e, tok)}}
			}},
		{Name: "no such manifest", Op: "getManifest", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: params} }},

		// getManifestForm
		{Name: "the SCAN form", Op: "getManifestForm", Status: 200,
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: tok, Params: map[string]string{"id": created(e, tok)}}
			},
			Check: func(x *Exchange) error {
				if !strings.HasPrefix(string(x.Body), "%PDF-") {
					return fmt.Errorf("not a PDF: %q", truncate(x.Body, 40))
				}
				return nil
			}},
		{Name: "Slow Carrier still creating", Op: "getManifestForm", Status: 202, Code: "label_pending",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				uspsLabel(e, tok, "Slow Carrier")
				m := e.Want(e.Call("POST", "/manifests", tok, map[string]any{"carrier": "USPS"}), 202)
				return Request{Token: tok, Params: map[string]string{"id": ID(m)}}
			},
			Check: wantHeaders("Retry-After")},
		{Name: "test manifest with a live token", Op: "getManifestForm", Status: 403, Code: "wrong_mode",
			Request: func(e *Env) Request {
				tok := e.Token("test")
				return Request{Token: e.Token("live"), Params: map[string]string{"id": created(e, tok)}}
			}},
		{Name: "no such manifest", Op: "getManifestForm", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: params} }},
	}
}
