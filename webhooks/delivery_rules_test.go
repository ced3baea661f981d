package webhooks

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDeliveryGuards: which jobs still attempt (wanted) and which outcomes
// are still recorded (recordable), for every kind of job run again or late.
func TestDeliveryGuards(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	chain := func(auto int) deliveryState {
		return deliveryState{Status: StatusPending, AutoAttempts: auto, NextAttemptAt: &due}
	}
	manual := func(s deliveryState) deliveryState { s.ManualRequest = "req_1"; return s }
	sent := func(o attemptOutcome) attemptOutcome { o.Sent = true; return o }
	cases := []struct {
		name             string
		state            deliveryState
		out              attemptOutcome
		wanted, recorded bool
	}{
		{"automatic attempt due", chain(1), sent(attemptOutcome{Auto: 2}), true, true},
		{"automatic attempt run again after it was recorded", chain(2), sent(attemptOutcome{Auto: 2}), false, false},
		{"automatic attempt of a delivered delivery", deliveryState{Status: StatusDelivered, AutoAttempts: 1}, sent(attemptOutcome{Auto: 2}), false, true},
		{"automatic attempt of a delivery settled since, dropped", deliveryState{Status: StatusFailed, AutoAttempts: 1}, attemptOutcome{Auto: 2}, false, false},
		{"automatic attempt after the chain ended", deliveryState{Status: StatusPending, AutoAttempts: 1, ManualRequest: "req_1"}, sent(attemptOutcome{Auto: 2}), false, true},
		{"manual attempt asked for", manual(chain(1)), sent(attemptOutcome{Request: "req_1"}), true, true},
		{"manual attempt dropped while asked for", manual(chain(1)), attemptOutcome{Request: "req_1"}, true, true},
		{"manual attempt run again after it was recorded", chain(1), sent(attemptOutcome{Request: "req_1"}), false, false},
		{"an older manual attempt's job", manual(chain(1)), sent(attemptOutcome{Request: "req_0"}), false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := [2]bool{wanted(tc.state, tc.out.Auto, tc.out.Request), recordable(tc.state, tc.out)}
			if diff := cmp.Diff([2]bool{tc.wanted, tc.recorded}, got); diff != "" {
				t.Errorf("[wanted, recordable] (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestManual: a manual attempt makes any delivery pending until its
// outcome; a second one while the first is queued is refused.
func TestRequestManual(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []deliveryState{
		{Status: StatusFailed, AutoAttempts: 5},
		{Status: StatusDelivered, AutoAttempts: 1},
		{Status: StatusPending, AutoAttempts: 2, NextAttemptAt: &due},
		{}, // Send test: a delivery made for the attempt
	} {
		got, err := requestManual(s, "req_1")
		want := s
		want.Status, want.ManualRequest = StatusPending, "req_1"
		if err != nil {
			t.Fatalf("requestManual(%+v): %v", s, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("requestManual(%+v) (-want +got):\n%s", s, diff)
		}
		if _, err := requestManual(got, "req_2"); !errors.Is(err, ErrDeliveryInProgress) {
			t.Errorf("a second manual attempt: %v, want ErrDeliveryInProgress", err)
		}
	}
}

// TestCancelled: deleting a subscription fails its pending deliveries and
// ends every attempt still to come; settled ones stay as they are.
func TestCancelled(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct{ in, want deliveryState }{
		{deliveryState{Status: StatusPending, AutoAttempts: 2, NextAttemptAt: &due}, deliveryState{Status: StatusFailed, AutoAttempts: 2}},
		{deliveryState{Status: StatusPending, AutoAttempts: 5, ManualRequest: "req_1"}, deliveryState{Status: StatusFailed, AutoAttempts: 5}},
		{deliveryState{Status: StatusPending}, deliveryState{Status: StatusFailed}},
		{deliveryState{Status: StatusDelivered, AutoAttempts: 1}, deliveryState{Status: StatusDelivered, AutoAttempts: 1}},
		{deliveryState{Status: StatusFailed, AutoAttempts: 5}, deliveryState{Status: StatusFailed, AutoAttempts: 5}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, cancelled(tc.in)); diff != "" {
			t.Errorf("cancelled(%+v) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestSummaryOf: an event's counts by status come from the store's counts by
// column value; a value the rule does not know counts only in the total.
func TestSummaryOf(t *testing.T) {
	t.Parallel()
	got := summaryOf(map[string]int{"pending": 1, "delivered": 2, "failed": 3, "unknown": 4})
	if diff := cmp.Diff(DeliverySummary{Total: 10, Pending: 1, Delivered: 2, Failed: 3}, got); diff != "" {
		t.Errorf("summaryOf (-want +got):\n%s", diff)
	}
	if got := summaryOf(nil); got != (DeliverySummary{}) {
		t.Errorf("summaryOf(nil) = %+v, want zero", got)
	}
}
