package carriers

import "time"

// Carrier operations of pickups, as an Observe function is told them.
const (
	OpSchedulePickup = "schedule_pickup"
	OpCancelPickup   = "cancel_pickup"
	OpFindPickup     = "find_pickup"
)

// PickupRequest asks a carrier to collect packages at an address.
type PickupRequest struct {
	// Reference is the shipd pickup id. A carrier that takes a reference
	// (or a key) gets it, so that a retried schedule can be told apart.
	Reference string
	Address   Address
	// ReadyAt and CloseAt are in the pickup address's offset, as given: the
	// carriers take a local date and local times.
	ReadyAt, CloseAt time.Time
	PackageCount     int
	// TotalWeightOz is 0 when not given.
	TotalWeightOz float64
	Instructions  string
	// TrackingNumbers are the labels collected, when the caller named them.
	TrackingNumbers []string
}

// PickupConfirmation is a carrier's answer to a scheduled pickup.
type PickupConfirmation struct {
	ConfirmationNumber string
	// Location is the carrier's own location code where it gives one
	// (FedEx), needed again to cancel.
	Location string
}

// PickupCancelRequest asks a carrier to cancel a pickup it confirmed.
type PickupCancelRequest struct {
	Reference          string
	ConfirmationNumber string
	Location           string
	Address            Address
	ReadyAt            time.Time
	Instructions       string
}
