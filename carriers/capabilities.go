package carriers

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Capabilities are what a connector declares it can do. A Carrier offers
// every operation of the interface; the ones outside its capabilities
// answer ErrNotSupported (Unsupported), and the flows ask Capabilities
// before they call, never the value's type: the wrappers (instrumentation,
// quotas, batching) forward the set once and every call with it.
type Capabilities uint32

// The capabilities, one bit each.
const (
	// CapRates: Rates quotes a shipment.
	CapRates Capabilities = 1 << iota
	// CapBuy: Buy sells a label.
	CapBuy
	// CapVoid: Void voids (refunds) a label.
	CapVoid
	// CapTrack: Track asks the carrier's tracking API about one label,
	// polled by the tracking jobs.
	CapTrack
	// CapTrackMany: TrackMany asks about up to MaxTrackBatch numbers in one
	// call (FedEx), which the batching wrapper uses.
	CapTrackMany
	// CapTrackingPlan: TrackingPlan knows every scan of a label it sold at
	// purchase (the sandbox), so nothing is polled.
	CapTrackingPlan
	// CapNumberPlan: NumberPlan plans the scans of a number it did not
	// issue (the sandbox's standalone trackers).
	CapNumberPlan
	// CapPickups: SchedulePickup and CancelPickup.
	CapPickups
	// CapManifests: Manifest makes the end-of-day form (USPS SCAN form,
	// FedEx Ground close). A carrier that scans every package on pickup
	// (UPS) has none.
	CapManifests
	// CapReturns: return labels (BuyRequest.Shipment.Return), on the
	// services ReturnService names.
	CapReturns
	// CapMultiPiece: several pieces under one shipment, on the services
	// MultiPieceService names.
	CapMultiPiece
	// CapPaperless: customs documents sent to the carrier electronically
	// with the label (UPS paperless invoice, FedEx ETD).
	CapPaperless
	// CapAddressValidation: the connector verifies addresses (its client
	// is a verifier.Verifier).
	CapAddressValidation
	// CapLandedCost: a DDP quote includes the destination's duties and
	// taxes (Rate.DutiesCents).
	CapLandedCost
	// CapFindPurchase: FindPurchase says what the carrier sold under a
	// reference, so a purchase cut off mid-call adopts or voids it.
	CapFindPurchase
	// CapCheckCredentials: CheckCredentials proves credentials before a
	// carrier account is stored.
	CapCheckCredentials
	// CapFindPickup: FindPickup says whether the carrier booked a pickup
	// under a reference, so a schedule whose answer was lost adopts it
	// instead of booking a second one.
	CapFindPickup
)

// capabilityNames are the capabilities' names in documents and logs, in
// bit order.
var capabilityNames = [...]string{
	"rates", "buy", "void", "track", "track_many", "tracking_plan", "number_plan", "pickups",
	"manifests", "returns", "multi_piece", "paperless", "address_validation", "landed_cost",
	"find_purchase", "check_credentials", "find_pickup",
}

// Has reports whether every capability of want is in c.
func (c Capabilities) Has(want Capabilities) bool { return want != 0 && c&want == want }

// Names lists c's capabilities by name, in a fixed order.
func (c Capabilities) Names() []string {
	var out []string
	for i, name := range capabilityNames {
		if c&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

func (c Capabilities) String() string { return strings.Join(c.Names(), ",") }

// ErrNotSupported means the carrier does not offer the operation: it is
// outside its Capabilities.
var ErrNotSupported = errors.New("the carrier does not offer this operation")

// ErrPickupsNotSupported means the carrier has no pickup API here.
var ErrPickupsNotSupported = fmt.Errorf("this carrier cannot schedule pickups: %w", ErrNotSupported)

// ErrNoLookup means the carrier cannot say what it sold under a reference:
// a purchase cut off mid-call can only rely on Buy's own idempotency
// (USPS's idempotency key, the sandbox's labels derived from the reference).
var ErrNoLookup = fmt.Errorf("the carrier cannot look purchases up by reference: %w", ErrNotSupported)

// ErrNoPickupLookup means the carrier cannot say whether it booked a pickup
// under a reference (USPS, FedEx: no search of pickups), or cannot say it
// for that pickup (UPS lists the pending pickups of today and tomorrow
// only). A schedule whose answer was lost cannot be asked for again
// without risking a second visit.
var ErrNoPickupLookup = fmt.Errorf("the carrier cannot look pickups up by reference: %w", ErrNotSupported)

// Unsupported answers every operation of Carrier beyond Name, Capabilities
// and the three every connector has (Rates, Buy, Void) as not offered. A
// connector embeds it and defines what its Capabilities declare.
type Unsupported struct{}

func (Unsupported) Track(context.Context, string) (TrackingUpdate, error) {
	return TrackingUpdate{}, ErrNotSupported
}

func (Unsupported) TrackMany(context.Context, []string) ([]TrackResult, error) {
	return nil, ErrNotSupported
}

// MaxTrackBatch is 1: one number per call.
func (Unsupported) MaxTrackBatch() int { return 1 }

func (Unsupported) TrackingPlan(context.Context, Shipment, string) ([]TrackingScan, error) {
	return nil, ErrNotSupported
}

func (Unsupported) NumberPlan(context.Context, string) ([]TrackingScan, error) {
	return nil, ErrNotSupported
}

func (Unsupported) SchedulePickup(context.Context, PickupRequest) (PickupConfirmation, error) {
	return PickupConfirmation{}, ErrPickupsNotSupported
}

func (Unsupported) CancelPickup(context.Context, PickupCancelRequest) error {
	return ErrPickupsNotSupported
}

func (Unsupported) Manifest(context.Context, ManifestRequest) (ManifestForm, error) {
	return ManifestForm{}, fmt.Errorf("no manifest step: %w", ErrNotSupported)
}

func (Unsupported) FindPickup(context.Context, PickupRequest) (PickupConfirmation, bool, error) {
	return PickupConfirmation{}, false, ErrNoPickupLookup
}

func (Unsupported) FindPurchase(context.Context, BuyRequest) (Label, bool, error) {
	return Label{}, false, ErrNoLookup
}

func (Unsupported) CheckCredentials(context.Context) error {
	return fmt.Errorf("no credentials to check: %w", ErrNotSupported)
}

func (Unsupported) MultiPieceService(string) bool { return false }

func (Unsupported) ReturnService(string) bool { return false }
