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

// PurchaseBatchArgs buys several labels of one batch in one job, one after
// the other: each as a PurchaseArgs job would (purchase.go's), but River
// fetches, runs and completes one job for them all, which made a 5,000-label
// batch's purchases a quarter faster. Only labels still waiting for their
// first attempt are bought: one the carrier deferred has a PurchaseArgs job
// of its own, which the batch's job, run again, leaves alone. An error the
// job cannot settle (the database's, a shutdown, the carrier's call budget)
// makes River run the whole job again later; labels bought by then are
// skipped.
type PurchaseBatchArgs struct {
	ShipmentIDs []string `json:"shipment_ids"`
}

func (PurchaseBatchArgs) Kind() string { return "purchase_labels" }

// InsertOpts: the purchases' queue, and unique like PurchaseArgs.
func (PurchaseBatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: PurchaseQueue, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// MaxPurchaseBatch bounds the labels one PurchaseBatchArgs job buys, so that
// a job of a carrier answering slowly stays well within River's job timeout
// (a minute), and a batch's purchases still spread over every worker.
const MaxPurchaseBatch = 8

// purchaseJobs are the jobs buying the labels ids (a batch's, in its order):
// PurchaseArgs jobs while the labels are no more than the workers, so that a
// small batch is bought as fast as its labels one by one; past that,
// PurchaseBatchArgs jobs of up to MaxPurchaseBatch labels, enough of them to
// keep every worker busy.
func purchaseJobs(ids []string, workers int) []river.InsertManyParams {
	if workers <= 0 {
		workers = DefaultPurchaseWorkers
	}
	per := min(MaxPurchaseBatch, max(1, (len(ids)+workers-1)/workers))
	jobs := make([]river.InsertManyParams, 0, (len(ids)+per-1)/per)
	for rest := ids; len(rest) > 0; {
		n := min(per, len(rest))
		if n == 1 {
			jobs = append(jobs, river.InsertManyParams{Args: PurchaseArgs{ShipmentID: rest[0]}})
		} else {
			jobs = append(jobs, river.InsertManyParams{Args: PurchaseBatchArgs{ShipmentIDs: rest[:n:n]}})
		}
		rest = rest[n:]
	}
	return jobs
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
