package shipping

import (
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// TrackerStatus is a tracker's status: the carrier's latest word on the
// package (carriers.Status*). CanMoveTo is its state machine.
type TrackerStatus string

// The tracker statuses.
const (
	TrackerUnknown            TrackerStatus = carriers.StatusUnknown
	TrackerPreTransit         TrackerStatus = carriers.StatusPreTransit
	TrackerInTransit          TrackerStatus = carriers.StatusInTransit
	TrackerOutForDelivery     TrackerStatus = carriers.StatusOutForDelivery
	TrackerDelivered          TrackerStatus = carriers.StatusDelivered
	TrackerAvailableForPickup TrackerStatus = carriers.StatusAvailableForPickup
	TrackerReturnToSender     TrackerStatus = carriers.StatusReturnToSender
	TrackerFailure            TrackerStatus = carriers.StatusFailure
	TrackerCancelled          TrackerStatus = carriers.StatusCancelled
)

// TrackerStatuses lists every tracker status.
func TrackerStatuses() []TrackerStatus {
	return []TrackerStatus{TrackerUnknown, TrackerPreTransit, TrackerInTransit, TrackerOutForDelivery, TrackerDelivered,
		TrackerAvailableForPickup, TrackerReturnToSender, TrackerFailure, TrackerCancelled}
}

// Final reports whether the status ends the polling: delivered, returned
// to sender, cancelled. Nothing asks the carrier about the package again,
// so nothing moves the tracker again.
func (s TrackerStatus) Final() bool {
	switch s {
	case TrackerDelivered, TrackerReturnToSender, TrackerCancelled:
		return true
	}
	return false
}

// CanMoveTo says whether a scan or a poll reporting to may move a tracker
// in status s: from any status that is not final, to whatever the carrier
// says (carriers correct their scans: an exception is followed by in
// transit, a scan may come late), and from a final status to nothing.
func (s TrackerStatus) CanMoveTo(to TrackerStatus) bool {
	return !s.Final() && s != to
}

// PollGiveUpAfter is how long a tracker is followed: a label's polls stop
// 30 days after its purchase, and a standalone tracker ends then
// (EndExpired).
const PollGiveUpAfter = 30 * 24 * time.Hour
