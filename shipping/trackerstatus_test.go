package shipping

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrackerTransitions(t *testing.T) {
	var final []TrackerStatus
	moves := map[TrackerStatus]int{}
	for _, s := range TrackerStatuses() {
		if s.Final() {
			final = append(final, s)
		}
		for _, to := range TrackerStatuses() {
			if s.CanMoveTo(to) {
				moves[s]++
			}
		}
	}
	if d := cmp.Diff([]TrackerStatus{TrackerDelivered, TrackerReturnToSender, TrackerCancelled}, final); d != "" {
		t.Errorf("final statuses (-want +got):\n%s", d)
	}
	// Every status that is not final moves to each of the others; a final one to none.
	n := len(TrackerStatuses())
	want := map[TrackerStatus]int{}
	for _, s := range TrackerStatuses() {
		if !s.Final() {
			want[s] = n - 1
		}
	}
	if d := cmp.Diff(want, moves); d != "" {
		t.Errorf("moves out of each status (-want +got):\n%s", d)
	}
}
