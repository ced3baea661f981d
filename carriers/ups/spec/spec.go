// Package spec holds UPS's published OpenAPI documents for the operations
// the ups adapter calls, byte for byte as UPS publishes them at
// github.com/UPS-API/api-documentation (MIT; see NOTICE and LICENSE), so that
// tests and fakes can hold the adapter and upsfake to them with
// carriers/apidoc. The documents are never edited: where one is wrong, the
// work-around is in code and NOTICE says which.
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

// Names lists the documents in FS: one per UPS API the adapter calls.
func Names() []string {
	return []string{
		"OAuthClientCredentials.yaml", // POST /security/v1/oauth/token
		"Rating.yaml",                 // POST /api/rating/{version}/{requestoption}
		"Shipping.yaml",               // ship, void, label recovery
		"Tracking.yaml",               // GET /api/track/v1/details/{inquiryNumber}
		"AddressValidation.yaml",      // POST /api/addressvalidation/{version}/{requestoption}
		"Pickup.yaml",                 // pickup creation and cancel
	}
}

// Exceptions are where UPS's documents contradict themselves or are
// stricter than what UPS exchanges and the adapter and upsfake were built
// for. Each is narrow: one document, one operation, one JSON path, one
// reason.
func Exceptions() []apidoc.Exception {
	return []apidoc.Exception{
		// The requestoption parameter's own description lists
		// "Shoptimeintransit" (17 characters) as a valid value, and
		// maxLength is 10.
		{Document: "Rating.yaml", Path: "/rating/{version}/{requestoption}", In: "path", Name: "requestoption", Reason: "maximum string length is 10"},
		// UPS answers an empty Service Description in every RatedShipment
		// (karrio's fixtures captured from UPS, modules/connectors/ups/tests/
		// ups/test_rate.py, have "Description": ""); the adapter names
		// services by Code.
		{Document: "Rating.yaml", Path: "/rating/{version}/{requestoption}", In: "body", Pointer: "/RateResponse/RatedShipment/*/Service/Description", Reason: "minimum string length is 1"},
		// BillingWeight Weight is documented as exactly 8 characters (the
		// XML field width); UPS answers "3.0" (the same karrio fixtures).
		{Document: "Shipping.yaml", Path: "/shipments/{version}/ship", In: "body", Pointer: "/ShipmentResponse/ShipmentResults/BillingWeight/Weight", Reason: "minimum string length is 8"},
		// TrackingNumbers, "List of Roadie (1R) tracking numbers", is
		// required of every recovery, while TrackingNumber's description
		// says ReferenceNumber/Value and ShipperNumber may stand instead:
		// the recovery by reference the adapter does.
		{Document: "Shipping.yaml", Path: "/labels/{version}/recovery", In: "body", Pointer: "/LabelRecoveryRequest/TrackingNumbers", Reason: `property "TrackingNumbers" is missing`},
		// LabelImageFormat Code has minLength 4 while its valid values
		// (GIF, PDF, ZPL, EPL, SPL) have 3 characters.
		{Document: "Shipping.yaml", Path: "/labels/{version}/recovery", In: "body", Pointer: "/LabelRecoveryRequest/LabelSpecification/LabelImageFormat/Code", Reason: "minimum string length is 4"},
		// The adapter calls recovery v1; the documents say that before
		// v2403 an element that may repeat comes as a single object when
		// there is one. upsfake answers that shape and the adapter's
		// oneOrMany reads both.
		{Document: "Shipping.yaml", Path: "/labels/{version}/recovery", In: "body", Pointer: "/LabelRecoveryResponse/LabelResults", Reason: "value must be an array"},
		// PickupDate has maxLength 4 and the description "Format:
		// yyyyMMdd".
		{Document: "Pickup.yaml", Path: "/pickupcreation/{version}/pickup", In: "body", Pointer: "/PickupCreationRequest/PickupDateInfo/PickupDate", Reason: "maximum string length is 4"},
		// TotalWeight Weight has minLength 6 and the description "One
		// decimal digit is allowed. Example: 10.9".
		{Document: "Pickup.yaml", Path: "/pickupcreation/{version}/pickup", In: "body", Pointer: "/PickupCreationRequest/TotalWeight/Weight", Reason: "minimum string length is 6"},
		// Tracking.yaml documents no 401, which UPS answers on every API
		// to an expired or revoked token (the adapter refreshes it and asks
		// once more); the other documents list it.
		{Document: "Tracking.yaml", Path: "/track/v1/details/{inquiryNumber}", In: "status", Reason: "the status is not documented"},
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
