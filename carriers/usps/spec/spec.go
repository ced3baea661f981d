// Package spec holds USPS's published OpenAPI documents (the v3 APIs of
// developers.usps.com) for the operations the usps adapter calls, byte for
// byte as vendored by the karrio project (see NOTICE), so that tests and
// fakes can hold the adapter and uspsfake to them with carriers/apidoc. The
// documents are never edited: where one is wrong, the work-around is in code
// and NOTICE says which. USPS publishes no document for two endpoints the
// adapter calls, the OAuth token and Tracking 3.0's POST /tracking/v3r2/tracking;
// NOTICE names them and the tests check them by hand.
package spec

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var documents embed.FS

// FS returns the documents, named as upstream names them.
func FS() fs.FS { return documents }

// Names lists the documents in FS: one per USPS API the adapter calls.
func Names() []string {
	return []string{
		"shipping-options.yaml",     // POST /shipments/v3/options/search
		"payments.yaml",             // POST /payments/v3/payment-authorization
		"domestic-labels.yaml",      // /labels/v3/label, /labels/v3/return-label
		"international-labels.yaml", // /international-labels/v3/international-label
		"addresses.yaml",            // GET /addresses/v3/address
		"carrier-pickup.yaml",       // /pickup/v3/carrier-pickup
		"scan-forms.yaml",           // POST /scan-forms/v3/scan-form
	}
}
