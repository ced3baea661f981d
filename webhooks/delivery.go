package webhooks

import (
	"fmt"
	"time"
)

// How a delivery is retried. A delivery is one event on its way to one
// subscription. Automatic attempts follow the retry schedule; manual
// attempts (the retry endpoint, Send test) are extra, made once when asked,
// and never extend the schedule. next is the whole rule, without I/O: the
// workers apply its answer in the transaction that records the attempt.

// DeliveryStatus is where a delivery stands. It is defined here, with the
// rule that moves it, and nowhere else: the store keeps it as a plain column
// value (its schema's CHECK constraint lists the same three words), and
// stateOf and the writes in deliver.go are the only conversions.
type DeliveryStatus string

// Delivery statuses.
const (
	// StatusPending: an attempt of either kind is still to come.
	StatusPending DeliveryStatus = "pending"
	// StatusDelivered: the latest attempt was answered 2xx.
	StatusDelivered DeliveryStatus = "delivered"
	// StatusFailed: the latest attempt failed and none is to come.
	StatusFailed DeliveryStatus = "failed"
)

// deliveryState is what the rule reads of a delivery.
type deliveryState struct {
	Status DeliveryStatus
	// AutoAttempts is the number of automatic attempts made.
	AutoAttempts int
	// NextAttemptAt is when the next automatic attempt is due; nil when the
	// automatic chain is over (delivered, failed, cancelled).
	NextAttemptAt *time.Time
	// ManualRequest is the nonce of the manual attempt queued and not yet
	// made; "" when none is.
	ManualRequest string
}

// attemptOutcome is what one attempt came to.
type attemptOutcome struct {
	// Auto is the automatic attempt's number (from 1); 0 for a manual attempt.
	Auto int
	// Request is a manual attempt's nonce (its job's); "" for an automatic attempt.
	Request string
	// Sent is false when the attempt was dropped unsent (subscription deleted
	// or paused); Reason says why.
	Sent   bool
	Reason string
	// Delivered: the receiver answered 2xx.
	Delivered bool
	// Retryable: a network error, a time-out, 5xx, 408 or 429.
	Retryable bool
	At        time.Time
	// SubscriptionActive: the subscription still exists and is enabled.
	SubscriptionActive bool
}

// retryPolicy is the automatic schedule.
type retryPolicy struct {
	MaxAttempts int
	// Schedule[n-1] is the wait after failed automatic attempt n; the last entry repeats.
	Schedule []time.Duration
}

func (p retryPolicy) wait(n int) time.Duration {
	return p.Schedule[min(n, len(p.Schedule))-1]
}

// transition is next's answer.
type transition struct {
	State deliveryState
	// ScheduleAuto is the automatic attempt to queue (0: none), due after Wait.
	ScheduleAuto int
	Wait         time.Duration
	// Note tells what will happen next, for the attempt's entry in the log.
	Note string
}

// next applies one attempt's outcome to a delivery.
func next(s deliveryState, o attemptOutcome, p retryPolicy) transition {
	chainLive := s.NextAttemptAt != nil
	if o.Auto > 0 {
		s.AutoAttempts = max(s.AutoAttempts, o.Auto)
	} else {
		s.ManualRequest = ""
	}
	t := transition{State: s}
	switch {
	case o.Delivered:
		t.State.Status, t.State.NextAttemptAt = StatusDelivered, nil
		t.Note = "delivered"
	case !o.Sent && o.Auto > 0:
		// A dropped automatic attempt ends the automatic chain.
		t.State.NextAttemptAt = nil
		t.State.Status = settled(t.State)
		t.Note = o.Reason + "; no more automatic attempts"
	case !o.Sent:
		t.State.Status = settled(t.State)
		t.Note = o.Reason
	case o.Auto > 0 && !chainLive:
		// Cancelled or superseded while in flight: the attempt is logged, the state stays.
		t.Note = "not retried: the delivery was settled while this attempt was in flight"
	case o.Auto > 0 && !o.Retryable:
		t.State.NextAttemptAt = nil
		t.State.Status = settled(t.State)
		t.Note = "not retried: only network errors, time-outs, 5xx, 408 and 429 are retried"
	case o.Auto > 0 && o.Auto >= p.MaxAttempts:
		t.State.NextAttemptAt = nil
		t.State.Status = settled(t.State)
		t.Note = fmt.Sprintf("not retried: all %d automatic attempts made", p.MaxAttempts)
	case o.Auto > 0 && !o.SubscriptionActive:
		t.State.NextAttemptAt = nil
		t.State.Status = settled(t.State)
		t.Note = "not retried: the subscription is paused or deleted"
	case o.Auto > 0:
		t.Wait = p.wait(o.Auto)
		due := o.At.Add(t.Wait)
		t.State.Status, t.State.NextAttemptAt = StatusPending, &due
		t.ScheduleAuto = o.Auto + 1
		t.Note = fmt.Sprintf("automatic attempt %d of %d at %s", o.Auto+1, p.MaxAttempts, due.UTC().Format(time.RFC3339))
	case chainLive:
		// A failed manual attempt leaves the automatic schedule as it was.
		t.State.Status = StatusPending
		t.Note = fmt.Sprintf("manual attempts are not retried; automatic attempt %d of %d at %s",
			s.AutoAttempts+1, p.MaxAttempts, s.NextAttemptAt.UTC().Format(time.RFC3339))
	default:
		t.State.Status = settled(t.State)
		t.Note = "manual attempts are not retried"
	}
	return t
}

// settled is the status of a delivery that this attempt did not deliver:
// pending while an attempt of either kind is still to come, else failed (the
// latest attempt's outcome is the status, even after an earlier success).
func settled(s deliveryState) DeliveryStatus {
	if s.NextAttemptAt != nil || s.ManualRequest != "" {
		return StatusPending
	}
	return StatusFailed
}

// wanted reports whether the attempt a job stands for (automatic attempt
// auto, or the manual attempt with nonce request) is still to be made: a job
// run twice after a crash, or one whose delivery was settled since it was
// queued, does nothing.
func wanted(s deliveryState, auto int, request string) bool {
	if auto > 0 {
		return s.Status == StatusPending && s.NextAttemptAt != nil && s.AutoAttempts < auto
	}
	return s.ManualRequest != "" && s.ManualRequest == request
}

// recordable reports whether an attempt's outcome is still to be recorded:
// each attempt is recorded once (a job run again after a crash records
// nothing), and an attempt dropped unsent only while it is still wanted.
func recordable(s deliveryState, o attemptOutcome) bool {
	switch {
	case !o.Sent && !wanted(s, o.Auto, o.Request):
		return false
	case o.Auto > 0:
		return s.AutoAttempts < o.Auto
	default:
		return s.ManualRequest != "" && s.ManualRequest == o.Request
	}
}

// requestManual queues one manual attempt (the retry endpoint, Send test)
// with nonce request: the delivery is pending until its outcome is known,
// whatever it was. One manual attempt at a time: while one is queued,
// another is ErrDeliveryInProgress.
func requestManual(s deliveryState, request string) (deliveryState, error) {
	if s.ManualRequest != "" {
		return s, ErrDeliveryInProgress
	}
	s.ManualRequest, s.Status = request, StatusPending
	return s, nil
}

// cancelled is a pending delivery once its subscription is deleted: failed,
// with no attempt of either kind to come; its queued jobs, finding it
// settled, send nothing. A delivered or failed one stays as it is.
func cancelled(s deliveryState) deliveryState {
	if s.Status != StatusPending {
		return s
	}
	s.Status, s.NextAttemptAt, s.ManualRequest = StatusFailed, nil, ""
	return s
}
