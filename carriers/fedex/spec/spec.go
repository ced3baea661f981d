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
