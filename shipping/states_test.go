package shipping

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// table lists every allowed move of a state machine as "from --trigger--> to",
// walking every (status, trigger) pair, so that a move added or lost shows
// in the diff against the rules written out by hand.
func table[S, T ~string](statuses []S, triggers []T, next func(S, T) (S, bool)) []string {
	var moves []string
	for _, s := range statuses {
		for _, t := range triggers {
			if to, ok := next(s, t); ok {
				moves = append(moves, fmt.Sprintf("%s --%s--> %s", s, t, to))
			}
		}
	}
	return moves
}

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
