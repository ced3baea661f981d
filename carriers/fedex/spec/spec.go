// Package spec holds FedEx's published OpenAPI documents for the operations
// the fedex adapter calls, byte for byte as vendored by the karrio project
// (see NOTICE), so that tests and fakes can hold the adapter and fedexfake
// to them with carriers/apidoc. The documents are never edited: where one is
// wrong, the work-around is in code and NOTICE says which. FedEx publishes
// no document for two endpoints the adapter calls, the OAuth token and the
// Ground end-of-day close; NOTICE names them and the tests check them by
// hand.
package spec

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
)

//go:embed *.json
var documents embed.FS

// FS returns the documents, named as upstream names them.
func FS() fs.FS { return documents }

// Names lists the documents in FS: one per FedEx API the adapter calls.
func Names() []string {
	return []string{
		"rate-api.json",   // POST /rate/v1/rates/quotes
		"ship-api.json",   // POST /ship/v1/shipments, PUT /ship/v1/shipments/cancel
		"track.json",      // tracking numbers, reference numbers, associated shipments
		"pickup-api.json", // POST /pickup/v1/pickups, PUT /pickup/v1/pickups/cancel
	}
}

// Exceptions are where FedEx's documents are wrong or stricter than
// what FedEx exchanges and the adapter and fedexfake were built for. Each
// is narrow: one document, one operation, one JSON path, one reason.
func Exceptions() []apidoc.Exception {
	const notFoundCarrierCode = "/output/completeTrackResults/*/trackResults/*/trackingNumberInfo/carrierCode"
	return []apidoc.Exception{
		// A commodity's weight units (Weight_4) allow KG only, while the
		// description says "The package and commodity weight unit should be
		// the same", and package weights (Weight_3) take KG or LB: the
		// adapter weighs packages and commodities alike in LB.
		{Document: "ship-api.json", Path: "/ship/v1/shipments", In: "body",
			Pointer: "/requestedShipment/customsClearanceDetail/commodities/*/weight/units",
			Reason:  "value is not one of the allowed values"},
		// shipDateBegin and shipDateEndDate are required, while both
		// descriptions say they "are recommended to narrow the search": the
		// adapter looks a purchase up by its reference and account alone.
		{Document: "track.json", Path: "/track/v1/referencenumbers", In: "body", Pointer: "/referencesInformation/shipDateBegin",
			Reason: `property "shipDateBegin" is missing`},
		{Document: "track.json", Path: "/track/v1/referencenumbers", In: "body", Pointer: "/referencesInformation/shipDateEndDate",
			Reason: `property "shipDateEndDate" is missing`},
		// For a number it does not know, FedEx answers carrierCode "" with
		// the TRACKING.TRACKINGNUMBER.NOTFOUND error (karrio's fixture
		// captured from FedEx, modules/connectors/fedex/tests/fedex/
		// test_tracking.py); the enum has no empty value. fedexfake answers
		// the same for numbers and references it does not know.
		{Document: "track.json", Path: "/track/v1/trackingnumbers", In: "body", Pointer: notFoundCarrierCode,
			Reason: "value is not one of the allowed values"},
		{Document: "track.json", Path: "/track/v1/referencenumbers", In: "body", Pointer: notFoundCarrierCode,
			Reason: "value is not one of the allowed values"},
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
