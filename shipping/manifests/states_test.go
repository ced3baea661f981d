package manifests

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// moves lists every allowed move of the manifest state machine as "from
// --trigger--> to", walking every (status, trigger) pair.
func moves() []string {
	var out []string
	for _, s := range ManifestStatuses() {
		for _, t := range ManifestTriggers() {
			if to, ok := s.Next(t); ok {
				out = append(out, fmt.Sprintf("%s --%s--> %s", s, t, to))
			}
		}
	}
	return out
}

func TestManifestTransitions(t *testing.T) {
	want := []string{
		"creating --form_made--> created",
		"creating --refused--> failed",
	}
	got := moves()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("manifest moves (-want +got):\n%s", d)
	}
	for _, s := range ManifestStatuses() {
		if s.Creating() != (s == ManifestCreating) {
			t.Errorf("%s.Creating() = %v", s, s.Creating())
		}
	}
}
