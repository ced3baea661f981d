package shipping

import (
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
)

// PurchaseArgs buys a shipment's selected rate; its worker is
// shipping/purchase's. A retry after the carrier was unavailable is a new
// job with the next Attempt, inserted with the move to pending, rather
// than a River retry: the schedule is then ours, and the attempt count
// survives restarts in the job itself.
type PurchaseArgs struct {
	ShipmentID string `json:"shipment_id"`
	Attempt    int    `json:"attempt,omitempty"`
}

func (PurchaseArgs) Kind() string { return "purchase_label" }

// InsertOpts puts purchases on their own queue (backlog.go) and makes each
// attempt unique, so a retried insert never doubles a purchase attempt.
func (PurchaseArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: PurchaseQueue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// LabelKey is where a shipment's label document is stored. Documents are
// spread over 256 directories by the last two hex digits of the (random)
// shipment id: every purchase creating its file in one directory contends on
// that directory's lock, which cost more CPU than rendering the label with
// 64 purchases at once. Existing rows keep the key they were stored under.
func LabelKey(shipmentID string) string {
	shard := "00"
	if n := len(shipmentID); n >= 2 {
		shard = shipmentID[n-2:]
	}
	return "labels/" + shard + "/" + shipmentID + ".pdf"
}

// AuditActor is who the audit entries of shipd's own acts name: shipd itself.
const AuditActor = "shipd"

// OverQuotaWait says whether err is a call shipd did not make for the
// carrier's budget (carriers.ErrOverQuota), and how long until a call may
// go (at least a second).
func OverQuotaWait(err error) (time.Duration, bool) {
	if !errors.Is(err, carriers.ErrOverQuota) {
		return 0, false
	}
	wait := time.Second
	var ce *carriers.Error
	if errors.As(err, &ce) && ce.RetryAfter > wait {
		wait = ce.RetryAfter
	}
	return wait, true
}

// VoidArgs voids a shipment's label with the carrier; its worker is
// shipping/labeljobs's.
type VoidArgs struct {
	ShipmentID string `json:"shipment_id"`
	// Recheck counts the days a void the carrier only accepted was asked about again.
	Recheck int `json:"recheck,omitempty"`
}

func (VoidArgs) Kind() string { return "refund_label" }

// InsertOpts makes each recheck unique, so a retried insert never doubles one.
func (VoidArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
