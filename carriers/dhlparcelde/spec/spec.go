// Package spec holds DHL's published OpenAPI documents for the APIs the
// dhlparcelde adapter calls, byte for byte as they were published (see
// NOTICE: where each was copied from, its licence status, its defects), so
// that tests and the fake can hold the adapter and dhlparceldefake to them
// with carriers/apidoc. The documents are never edited: where one is wrong,
// the work-around is in code, NOTICE says which, and Exceptions excuses
// the problem it reports.
package spec

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
)

//go:embed *.yaml
var documents embed.FS

// FS returns the documents, named as they were published.
func FS() fs.FS { return documents }

// Placeholder is the document karrio vendors as DHL Parcel DE's tracking
// API: a placeholder of one path ("see WADL and Testsuite") that
// documents nothing. It is kept, as vendored, beside the document that
// does describe the API the adapter calls (Tracking, DHL's unified
// Shipment Tracking API), and is not loaded.
const Placeholder = "Shipment Tracking_2_0.yaml"

// The documents the adapter is held to, one per DHL API it calls.
const (
	// Shipping is the Parcel DE Shipping API v2 (/parcel/de/shipping/v2):
	// orders (labels) created and deleted, manifests.
	Shipping = "parcel-de-shipping-v2_2.yaml"
	// Returns is the Parcel DE Returns API v1
	// (/parcel/de/shipping/returns/v1): return labels.
	Returns = "pp-parcel-returns.yaml"
	// Pickup is the Parcel DE Pickup API v3
	// (/parcel/de/transportation/pickup/v3): pickups ordered, cancelled.
	Pickup = "parcel-de-pickup-v3.yaml"
	// Tracking is DHL's unified Shipment Tracking API 1.4.1 (/track).
	Tracking = "utapi-traking-api-1.4.1.yaml"
)

// Names lists the documents Checker loads: every one but Placeholder.
func Names() []string { return []string{Shipping, Returns, Pickup, Tracking} }

// Exceptions are where DHL's documents contradict themselves, or what DHL
// exchanges, and the adapter and the fake were built for the latter. Each
// is narrow: one document, one operation, one place, one reason.
func Exceptions() []apidoc.Exception {
	return []apidoc.Exception{
		// The tracking document lists 200 and 404 for GET /shipments and
		// defines an unauthorizedError response no operation names; DHL
		// answers 401 to a missing or wrong API key there, as every other
		// API of the portal does.
		{Document: Tracking, Path: "/shipments", In: "status", Reason: "the status is not documented"},
	}
}

// checker is the documents loaded once per process: parsing them takes a
// tenth of a second, and they never change.
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
