package carriers

import (
	"context"
	"time"
)

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
}

// ManifestForm is what a carrier answered to a manifest.
type ManifestForm struct {
	// Number is the carrier's number of the form: the SCAN form's barcode
	// (USPS), the close's reference (FedEx).
	Number string
	// PDF is the form to print and hand over with the packages.
	PDF []byte
}

// Manifester is a carrier with a manifest step. A carrier that scans every
// package on pickup (UPS) is not one, and a manifest of its labels is
// refused before anything is stored.
type Manifester interface {
	// Manifest makes the form, or fails with an error that wraps
	// ErrRejected (the carrier refused the labels as given) or
	// ErrUnavailable (retry later).
	Manifest(ctx context.Context, req ManifestRequest) (ManifestForm, error)
}

// ManifesterOf finds c's Manifester through the wrappers of Instrument and
// quotas, which do not know the manifest call.
func ManifesterOf(c Carrier) (Manifester, bool) {
	for c != nil {
		if m, ok := c.(Manifester); ok {
			return m, true
		}
		u, ok := c.(interface{ Unwrap() Carrier })
		if !ok {
			return nil, false
		}
		c = u.Unwrap()
	}
	return nil, false
}
