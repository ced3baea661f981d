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
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
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

// Exceptions are where USPS's documents are wrong or stricter than what
// USPS exchanges and the adapter and uspsfake were built for. Each is
// narrow: one document, one operation, one JSON path, one reason.
func Exceptions() []apidoc.Exception {
	// NotificationMethod is a oneOf of EmailNotification and
	// SMSNotification, neither with a required property, so every contact
	// matches both and the oneOf refuses it. The conflict is reported only
	// when the contact is valid against both alternatives.
	const bothContacts = `value matches more than one schema from "oneOf"`
	return []apidoc.Exception{
		// A multipart label answer (Accept: application/json, as the
		// adapter never asks but USPS may send) carries the label as a
		// binary part: the document says "format: binary", which
		// kin-openapi cannot read from a multipart body (it reports the part
		// with no reason). The JSON metadata part is checked.
		{Document: "domestic-labels.yaml", Path: "/label", In: "body", Pointer: "/labelImage"},
		{Document: "domestic-labels.yaml", Path: "/return-label", In: "body", Pointer: "/returnLabelImage"},
		{Document: "carrier-pickup.yaml", Path: "/carrier-pickup", In: "body",
			Pointer: "/pickupAddress/contact/*", Reason: bothContacts},
		{Document: "carrier-pickup.yaml", Path: "/carrier-pickup", In: "body",
			Pointer: "/carrierPickupRequest/pickupAddress/contact/*", Reason: bothContacts},
		{Document: "carrier-pickup.yaml", Path: "/carrier-pickup/{confirmationNumber}", In: "body",
			Pointer: "/*/carrierPickupRequest/pickupAddress/contact/*", Reason: bothContacts},
		// USPS answers null for the abbreviations it has none for (USPS's
		// own README example, testdata/examples/address_readme.json);
		// addresses.yaml does not say nullable. uspsfake answers the same;
		// the adapter reads neither.
		{Document: "addresses.yaml", Path: "/address", In: "body", Pointer: "/address/streetAddressAbbreviation",
			Reason: "Value is not nullable"},
		{Document: "addresses.yaml", Path: "/address", In: "body", Pointer: "/address/cityAbbreviation",
			Reason: "Value is not nullable"},
	}
}

// checker is the documents loaded once per process: parsing them takes a
// tenth of a second or more, and they never change.
var checker = sync.OnceValues(func() (*apidoc.Excused, error) {
	set, err := apidoc.Load(FS(), Names()...)
	if err != nil {
		return nil, err
	}
	return set.Excusing(Exceptions()...), nil
})

// Checker is the documents with their Exceptions: what the fake and the
// adapter's tests check every exchange against.
func Checker() (*apidoc.Excused, error) { return checker() }
