package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestZone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to string
		want     int
	}{
		{"10118", "10120", 1},
		{"10118", "10601", 2},
		{"10118", "14201", 3},
		{"10118", "22201", 4},
		{"10118", "30301", 5},
		{"10118", "45201", 6},
		{"10118", "60601", 7},
		{"10118", "94105", 8},
		{"94105", "10118", 8}, // symmetric
		{"94105-1234", " 94107 ", 1},
		{"94105", "SW1A 2AA", maxZone}, // unreadable ZIP: never cheaper than the real zone
		{"", "10118", maxZone},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, zone(tt.from, tt.to)); diff != "" {
				t.Errorf("zone(%q, %q) (-want +got):\n%s", tt.from, tt.to, diff)
			}
		})
	}
}
