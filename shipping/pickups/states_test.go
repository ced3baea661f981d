package pickups

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// table lists every allowed move of the pickup state machine as "from
// --trigger--> to", walking every (status, trigger) pair.
func table() []string {
	var out []string
	for _, s := range PickupStatuses() {
		for _, t := range PickupTriggers() {
			if to, ok := s.Next(t); ok {
				out = append(out, fmt.Sprintf("%s --%s--> %s", s, t, to))
			}
		}
	}
	return out
}

func TestPickupTransitions(t *testing.T) {
	want := []string{
		"requesting --booked--> scheduled",
		"scheduled --cancel_confirmed--> cancelled",
	}
	got := table()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pickup moves (-want +got):\n%s", d)
	}
	cancel := map[PickupStatus]error{}
	for _, s := range PickupStatuses() {
		cancel[s] = s.CanCancel()
	}
	wantCancel := map[PickupStatus]error{PickupRequesting: ErrPickupRequesting, PickupScheduled: nil, PickupCancelled: ErrPickupCancelled}
	if d := cmp.Diff(wantCancel, cancel, cmp.Comparer(func(a, b error) bool { return a == b })); d != "" {
		t.Errorf("CanCancel (-want +got):\n%s", d)
	}
}
