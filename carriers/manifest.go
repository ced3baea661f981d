package carriers

import "time"

// ManifestLabel is one label of a manifest as the carrier knows it.
type ManifestLabel struct {
	TrackingNumber    string
	CarrierShipmentID string // Label.CarrierShipmentID, "" when the carrier gave none
}

// ManifestRequest asks a carrier for the end-of-day form of labels that
// share one origin: USPS's SCAN form (PS Form 5630), FedEx's Ground close.
type ManifestRequest struct {
	// Reference is the shipd manifest id. As for BuyRequest, a carrier
	// treats it as an idempotency key where it can, so a job retried after a
	// crash does not make a second form.
	Reference string
	From      Address
	// ShipDate is the day the packages are handed over.
	ShipDate time.Time
	Labels   []ManifestLabel
	TestMode bool
	// Resumed: an earlier call under Reference may have reached the carrier
	// and its answer was lost (a crash, a time-out). A carrier that then
	// refuses because the labels are already manifested answers the form
	// that earlier call made (Recovered) where it can tell it.
	Resumed bool
}

// ManifestForm is what a carrier answered to a manifest.
type ManifestForm struct {
	// Number is the carrier's number of the form: the SCAN form's barcode
	// (USPS), the close's reference (FedEx).
	Number string
	// PDF is the form to print and hand over with the packages; nil for a
	// Recovered form the carrier cannot give again (USPS: the caller draws
	// the form of Number).
	PDF []byte
	// Recovered: the carrier had already made this form of the labels, under
	// an earlier call whose answer was lost (its refusal named the form, or
	// the form was had again), rather than making one now.
	Recovered bool
}

// OpManifest is the manifest call, as an Observe function is told it.
const OpManifest = "manifest"
