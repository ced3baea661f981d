package store_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/store"
)

func TestTruncateError(t *testing.T) {
	t.Parallel()
	short := strings.Repeat("x", 1000)
	if got := store.TruncateError(short); got != short {
		t.Errorf("TruncateError of 1000 bytes changed it to %d bytes", len(got))
	}
	if got, want := store.TruncateError(short+"y"), short+"…"; got != want {
		t.Errorf("TruncateError of 1001 bytes = %d bytes ending %q, want the first 1000 and an ellipsis", len(got), got[len(got)-5:])
	}
	// A cut through a multi-byte character drops its partial bytes instead
	// of storing invalid UTF-8.
	long := strings.Repeat("x", 999) + "é and more" // é is 2 bytes: the cut falls inside it
	got := store.TruncateError(long)
	if !utf8.ValidString(got) || got != strings.Repeat("x", 999)+"…" {
		t.Errorf("TruncateError through a character = %q (valid UTF-8: %v), want 999 x and an ellipsis", got[990:], utf8.ValidString(got))
	}
}
