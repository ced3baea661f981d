package batches

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// table lists every allowed move of the batch state machine as "from
// --trigger--> to", walking every (status, trigger) pair.
func table() []string {
	var out []string
	for _, s := range BatchStatuses() {
		for _, t := range BatchTriggers() {
			if to, ok := s.Next(t); ok {
				out = append(out, fmt.Sprintf("%s --%s--> %s", s, t, to))
			}
		}
	}
	return out
}

func TestBatchTransitions(t *testing.T) {
	want := []string{"purchasing --items_finished--> completed"}
	got := table()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("batch moves (-want +got):\n%s", d)
	}
}
