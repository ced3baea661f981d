package store_test

import (
	"regexp"
	"testing"

	"github.com/shipd-dev/shipd/store"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^shp_[0-9a-f]{24}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewID("shp")
		if !shape.MatchString(id) {
			t.Fatalf("NewID(\"shp\") = %q, want shp_ and 24 hex characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID returned %q twice", id)
		}
		seen[id] = true
	}
}
