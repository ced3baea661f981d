package server

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/shipping"
)

func visit(t *testing.T, r gen.GetLabelResponseObject) (string, string) {
	t.Helper()
	w := httptest.NewRecorder()
	if err := r.VisitGetLabelResponse(w); err != nil {
		t.Fatal(err)
	}
	return w.Header().Get("Content-Type"), w.Body.String()
}

// A kept answer is the generated response's bytes, and is kept by ID, base
// and revision: a shipment without a revision is rendered every time.
func TestRenderedLabelsKeepByRevision(t *testing.T) {
	t.Parallel()
	r := newRenderedLabels()
	sh := shipping.Shipment{ID: "shp_1", Status: "purchased", CreatedAt: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), HasLabel: true, Detail: true,
		Revision: shipping.Revision{Row: 7, Scans: 9}}
	const base = "https://ship.example.com"
	wantType, want := visit(t, gen.GetLabel200JSONResponse(shipmentView(base, sh)))
	answer := func(base string, sh shipping.Shipment) string {
		t.Helper()
		a, err := r.answer(base, sh)
		if err != nil {
			t.Fatal(err)
		}
		gotType, got := visit(t, a)
		if gotType != wantType {
			t.Errorf("Content-Type %q, want %q", gotType, wantType)
		}
		return got
	}
	if d := cmp.Diff(want, answer(base, sh)); d != "" {
		t.Fatalf("first answer differs from the generated response (-want +got):\n%s", d)
	}

	// Same revision: the kept answer, even though this value says otherwise
	// (a revision promises that nothing changed; this proves it was kept).
	changed := sh
	changed.Status = "voided"
	if d := cmp.Diff(want, answer(base, changed)); d != "" {
		t.Errorf("same revision: not the kept answer (-want +got):\n%s", d)
	}
	// A new revision of the row or of the scans, or another base: rendered again.
	for name, c := range map[string]struct {
		base string
		rev  shipping.Revision
	}{
		"row":   {base, shipping.Revision{Row: 8, Scans: 9}},
		"scans": {base, shipping.Revision{Row: 7, Scans: 10}},
		"base":  {"http://localhost:8080", sh.Revision},
		"none":  {base, shipping.Revision{}},
	} {
		changed.Revision = c.rev
		_, fresh := visit(t, gen.GetLabel200JSONResponse(shipmentView(c.base, changed)))
		if d := cmp.Diff(fresh, answer(c.base, changed)); d != "" {
			t.Errorf("%s: not rendered again (-want +got):\n%s", name, d)
		}
	}
	if len(r.answers) != 2 {
		t.Errorf("%d answers kept, want 2: one per ID and base, the latest revision's", len(r.answers))
	}
}
