package shipping

import (
	"fmt"

	"github.com/shipd-dev/shipd/carriers"
)

// Status is where a shipment (label) is in its life. The transition table
// below is the whole state machine; every state change goes through Next.
type Status string

// The statuses.
const (
	// Paying: accepted (202), the purchase job has not finished.
	Paying Status = "paying"
	// Pending: the carrier was unavailable; the purchase is retried with backoff.
	Pending Status = "pending"
	// Purchased: the carrier bought the label; it has a tracking number and a document.
	Purchased Status = "purchased"
	// Failed: the purchase was refused; terminal.
	Failed Status = "failed"
	// VoidRequested: a refund (void) was asked for and the carrier has not confirmed it.
	VoidRequested Status = "void_requested"
	// Voided: the carrier confirmed the void and the balance was credited; terminal.
	Voided Status = "voided"
)

// Statuses lists every status.
func Statuses() []Status {
	return []Status{Paying, Pending, Purchased, Failed, VoidRequested, Voided}
}

// Trigger is what moves a shipment from one status to another.
type Trigger string

// The triggers.
const (
	// PurchaseSucceeded: the carrier bought the label.
	PurchaseSucceeded Trigger = "purchase_succeeded"
	// PurchaseDeferred: the carrier was unavailable; the purchase will be retried.
	PurchaseDeferred Trigger = "purchase_deferred"
	// PurchaseFailed: the carrier refused, or stayed unavailable too long.
	PurchaseFailed Trigger = "purchase_failed"
	// RefundRequested: POST /labels/{id}/refund.
	RefundRequested Trigger = "refund_requested"
	// VoidConfirmed: the carrier confirmed the void.
	VoidConfirmed Trigger = "void_confirmed"
	// VoidRejected: the carrier refused the void (outside its window, already
	// scanned); the label is purchased again.
	VoidRejected Trigger = "void_rejected"
)

// Triggers lists every trigger.
func Triggers() []Trigger {
	return []Trigger{PurchaseSucceeded, PurchaseDeferred, PurchaseFailed, RefundRequested, VoidConfirmed, VoidRejected}
}

// transitions is the state machine: the status each trigger leads to from
// each status where it is allowed. A pair that is absent is refused.
var transitions = map[Status]map[Trigger]Status{
	Paying:        {PurchaseSucceeded: Purchased, PurchaseDeferred: Pending, PurchaseFailed: Failed},
	Pending:       {PurchaseSucceeded: Purchased, PurchaseDeferred: Pending, PurchaseFailed: Failed},
	Purchased:     {RefundRequested: VoidRequested},
	VoidRequested: {VoidConfirmed: Voided, VoidRejected: Purchased},
}

// Next returns the status t leads to from s; false when s does not allow t.
func (s Status) Next(t Trigger) (Status, bool) {
	to, ok := transitions[s][t]
	return to, ok
}

// Purchasing reports whether a purchase of the shipment is still to be made
// (the purchase job acts only then; a job run twice finds it done).
func (s Status) Purchasing() bool {
	_, ok := s.Next(PurchaseSucceeded)
	return ok
}

// LabelPending reports whether the label document is not ready yet because
// the purchase has not finished.
func (s Status) LabelPending() bool { return s.Purchasing() }

// RefundConflictError is why a shipment cannot be refunded now (409).
type RefundConflictError struct {
	Status  Status
	Code    string
	Message string
}

func (e *RefundConflictError) Error() string { return e.Message }

// CanRefund says in which statuses a label may be refunded: only when
// purchased. Every other status has its own reason, which is the API's 409
// code. CanRefundLabel adds the carrier's rule that a used label is not
// refunded.
func (s Status) CanRefund() error {
	if _, ok := s.Next(RefundRequested); ok {
		return nil
	}
	e := &RefundConflictError{Status: s}
	switch s {
	case Paying:
		e.Code, e.Message = "not_purchased", "the label is not purchased yet; wait for status purchased"
	case VoidRequested:
		e.Code, e.Message = "refund_in_progress", "a refund of this label is already in progress"
	case Voided:
		e.Code, e.Message = "already_voided", "this label is already voided"
	default:
		e.Code, e.Message = "ineligible_state", fmt.Sprintf("a label in status %s cannot be refunded", s)
	}
	return e
}

// Used reports whether a tracking status means the carrier has the package:
// a physical scan (in transit, out for delivery, delivered, at a pickup
// point, returning, an exception). Carriers refund only unused labels, so a
// used label cannot be refunded. Pre-transit (the label was created, the
// carrier has only its data), unknown and cancelled are not uses.
func Used(trackingStatus string) bool {
	switch trackingStatus {
	case carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered,
		carriers.StatusAvailableForPickup, carriers.StatusReturnToSender, carriers.StatusFailure:
		return true
	}
	return false
}

// CanRefundLabel says whether a label in status s whose tracker reports
// trackingStatus ("" before any scan) may be refunded: only a purchased label
// the carrier has not scanned yet (409 ineligible_state otherwise).
func CanRefundLabel(s Status, trackingStatus string) error {
	if err := s.CanRefund(); err != nil {
		return err
	}
	if Used(trackingStatus) {
		return &RefundConflictError{Status: s, Code: "ineligible_state", Message: fmt.Sprintf(
			"the carrier has scanned this label (tracking status %s): carriers refund only unused labels", trackingStatus)}
	}
	return nil
}

// ScanAction is what a tracking scan does to a shipment in a status.
type ScanAction int

// The scan actions.
const (
	// ScanApply records the scan.
	ScanApply ScanAction = iota
	// ScanHold waits: a void is being decided, and a rejected void puts the
	// label back to purchased, whose tracking must go on.
	ScanHold
	// ScanDrop ignores the scan: the label never moves again.
	ScanDrop
)

// OnScan says what a tracking scan does to a shipment in status s.
func (s Status) OnScan() ScanAction {
	switch s {
	case Purchased:
		return ScanApply
	case VoidRequested:
		return ScanHold
	}
	return ScanDrop
}
