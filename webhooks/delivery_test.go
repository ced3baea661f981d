package webhooks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestNextDelivery walks the retry rule over every kind of state (automatic
// chain live or over, a manual attempt queued or not) and every outcome of
// an automatic or manual attempt.
func TestNextDelivery(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	due := at.Add(time.Minute)
	p := retryPolicy{MaxAttempts: 5, Schedule: []time.Duration{time.Minute, 5 * time.Minute, 25 * time.Minute, 2 * time.Hour}}
	pending := func(auto int, next *time.Time, manual bool) deliveryState {
		s := deliveryState{Status: StatusPending, AutoAttempts: auto, NextAttemptAt: next}
		if manual {
			s.ManualRequest = "req_1"
		}
		return s
	}
	delivered := deliveryState{Status: StatusDelivered}
	failed := deliveryState{Status: StatusFailed}
	ok := attemptOutcome{Sent: true, Delivered: true, At: at, SubscriptionActive: true}
	retryable := attemptOutcome{Sent: true, Retryable: true, At: at, SubscriptionActive: true}
	final := attemptOutcome{Sent: true, At: at, SubscriptionActive: true}
	dropped := attemptOutcome{Reason: "not sent: the subscription was deleted", At: at}
	auto := func(n int, o attemptOutcome) attemptOutcome { o.Auto = n; return o }
	paused := func(o attemptOutcome) attemptOutcome { o.SubscriptionActive = false; return o }
	in := func(d time.Duration) *time.Time { x := at.Add(d); return &x }

	type want struct {
		Status       DeliveryStatus
		AutoAttempts int
		Next         *time.Time
		Manual       bool
		ScheduleAuto int
		Wait         time.Duration
		Note         string // a substring of the log note
	}
	cases := []struct {
		name  string
		state deliveryState
		out   attemptOutcome
		want  want
	}{
		{"first automatic attempt delivered", pending(0, &due, false), auto(1, ok), want{StatusDelivered, 1, nil, false, 0, 0, "delivered"}},
		{"first automatic attempt retryable", pending(0, &due, false), auto(1, retryable), want{StatusPending, 1, in(time.Minute), false, 2, time.Minute, "automatic attempt 2 of 5"}},
		{"third automatic attempt retryable waits 25 min", pending(2, &due, false), auto(3, retryable), want{StatusPending, 3, in(25 * time.Minute), false, 4, 25 * time.Minute, "automatic attempt 4 of 5"}},
		{"fifth automatic attempt retryable is the last", pending(4, &due, false), auto(5, retryable), want{StatusFailed, 5, nil, false, 0, 0, "all 5 automatic attempts made"}},
		{"last automatic attempt while a manual one is queued", pending(4, &due, true), auto(5, retryable), want{StatusPending, 5, nil, true, 0, 0, "all 5 automatic attempts"}},
		{"automatic attempt answered 404", pending(0, &due, false), auto(1, final), want{StatusFailed, 1, nil, false, 0, 0, "not retried: only"}},
		{"automatic attempt while paused", pending(1, &due, false), paused(auto(2, retryable)), want{StatusFailed, 2, nil, false, 0, 0, "paused or deleted"}},
		{"automatic attempt of a settled delivery", failed, auto(3, retryable), want{StatusFailed, 3, nil, false, 0, 0, "settled while this attempt was in flight"}},
		{"automatic attempt dropped unsent", pending(1, &due, false), auto(2, dropped), want{StatusFailed, 2, nil, false, 0, 0, "no more automatic attempts"}},
		{"automatic attempt dropped, manual queued", pending(1, &due, true), auto(2, dropped), want{StatusPending, 2, nil, true, 0, 0, "no more automatic attempts"}},
		{"manual attempt delivered ends the chain", pending(2, &due, true), ok, want{StatusDelivered, 2, nil, false, 0, 0, "delivered"}},
		{"manual attempt fails, chain goes on", pending(2, &due, true), retryable, want{StatusPending, 2, &due, false, 0, 0, "automatic attempt 3 of 5"}},
		{"manual attempt fails after the chain", pending(5, nil, true), retryable, want{StatusFailed, 5, nil, false, 0, 0, "manual attempts are not retried"}},
		{"test event fails", pending(0, nil, true), final, want{StatusFailed, 0, nil, false, 0, 0, "manual attempts are not retried"}},
		{"manual attempt of a delivered delivery fails", deliveryState{Status: StatusDelivered, AutoAttempts: 1, ManualRequest: "req_1"}, final, want{StatusFailed, 1, nil, false, 0, 0, "not retried"}},
		{"manual attempt dropped unsent", pending(0, nil, true), dropped, want{StatusFailed, 0, nil, false, 0, 0, "not sent"}},
		{"manual attempt of a delivered delivery dropped", deliveryState{Status: StatusDelivered, ManualRequest: "req_1"}, dropped, want{StatusFailed, 0, nil, false, 0, 0, "not sent"}},
		{"manual attempt redelivers", delivered, ok, want{StatusDelivered, 0, nil, false, 0, 0, "delivered"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := next(tc.state, tc.out, p)
			got := want{tr.State.Status, tr.State.AutoAttempts, tr.State.NextAttemptAt, tr.State.ManualRequest != "", tr.ScheduleAuto, tr.Wait, tc.want.Note}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("next (-want +got):\n%s", diff)
			}
			if !strings.Contains(tr.Note, tc.want.Note) {
				t.Errorf("note %q does not say %q", tr.Note, tc.want.Note)
			}
		})
	}
}

// The schedule's last entry repeats for attempts beyond it.
func TestRetryPolicyWait(t *testing.T) {
	t.Parallel()
	p := retryPolicy{MaxAttempts: 8, Schedule: []time.Duration{time.Minute, 5 * time.Minute}}
	var got []string
	for n := 1; n <= 4; n++ {
		got = append(got, fmt.Sprint(p.wait(n)))
	}
	if diff := cmp.Diff([]string{"1m0s", "5m0s", "5m0s", "5m0s"}, got); diff != "" {
		t.Error(diff)
	}
}
