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

// OpManifest is the manifest call, as an Observe function is told it.
const OpManifest = "manifest"

// ManifesterOf returns c as a Manifester when a carrier under its wrappers
// (Instrument, quotas, batching) has a manifest step: the wrappers forward
// the call, so it is observed like the carrier's other calls.
func ManifesterOf(c Carrier) (Manifester, bool) {
	step, ok := manifestStep(c)
	if !ok {
		return nil, false
	}
	if m, ok := c.(Manifester); ok {
		return m, true
	}
	return step, true
}

// forwarder marks the wrappers that are Manifesters only to forward the
// call to the carrier they wrap.
type forwarder interface{ forwardsManifest() }

func (w *wrapped) forwardsManifest() {}
func (b *batched) forwardsManifest() {}

// manifestStep is the Manifester under c's forwarding wrappers, if any.
func manifestStep(c Carrier) (Manifester, bool) {
	for c != nil {
		if _, fwd := c.(forwarder); !fwd {
			if m, ok := c.(Manifester); ok {
				return m, true
			}
		}
		u, ok := c.(interface{ Unwrap() Carrier })
		if !ok {
			return nil, false
		}
		c = u.Unwrap()
	}
	return nil, false
}

// Manifest makes every wrapped carrier a Manifester: it forwards to the
// carrier's own, observed like its other calls (no call budget: the
// manifest APIs are not the ones budgets are kept for), and answers an
// ErrRejected for a carrier that has none (ManifesterOf does not offer it).
func (w *wrapped) Manifest(ctx context.Context, req ManifestRequest) (f ManifestForm, err error) {
	m, ok := ManifesterOf(w.c)
	if !ok {
		return ManifestForm{}, &Error{Carrier: w.name, Operation: OpManifest, Kind: ErrRejected,
			Message: w.name + " has no manifest step"}
	}
	err = w.around(ctx, OpManifest, func(ctx context.Context) error {
		f, err = m.Manifest(ctx, req)
		return err
	})
	return f, err
}

// Manifest keeps a batching carrier a Manifester.
func (b *batched) Manifest(ctx context.Context, req ManifestRequest) (ManifestForm, error) {
	m, ok := ManifesterOf(b.batchCarrier)
	if !ok {
		return ManifestForm{}, &Error{Carrier: b.batchCarrier.Name(), Operation: OpManifest, Kind: ErrRejected,
			Message: b.batchCarrier.Name() + " has no manifest step"}
	}
	return m.Manifest(ctx, req)
}
