package fedex

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// Tracking a multi-piece shipment's master also asks for its children
// (track by associated shipments, STANDARD_MPS), whose scans come named by
// their number; the batched TrackMany does the same. When that second call
// fails, the master's own update stands.
func TestTrackPieces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake := newTestCarrier(t)
	l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef0123456b", threePieces(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	named := func(events []string) map[string]int {
		n := map[string]int{}
		for _, tn := range events {
			n[tn]++
		}
		return n
	}
	up, err := c.Track(ctx, l.TrackingNumber)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range up.Events {
		got = append(got, e.TrackingNumber)
	}
	own := named(got)[""]
	if d := cmp.Diff(map[string]int{"": own, l.Pieces[1]: own, l.Pieces[2]: own}, named(got)); own == 0 || d != "" {
		t.Errorf("scans per piece (-want +got):\n%s", d)
	}
	checkGolden(t, "track_associated.json", fake.LastRequestBody(fedexfake.OpTrackAssociated))

	res, err := c.TrackMany(ctx, []string{l.TrackingNumber})
	if err != nil || len(res) != 1 || res[0].Err != nil {
		t.Fatalf("TrackMany: %+v, %v", res, err)
	}
	if len(res[0].Update.Events) <= own {
		t.Errorf("TrackMany: %d scans, want the pieces' beside the master's %d", len(res[0].Update.Events), own)
	}

	fake.FailNext(fedexfake.OpTrackAssociated, http.StatusServiceUnavailable, `{"errors":[{"code":"SERVICE.UNAVAILABLE.ERROR","message":"down"}]}`)
	up, err = c.Track(ctx, l.TrackingNumber)
	if err != nil {
		t.Fatalf("Track with the children unavailable: %v", err)
	}
	for _, e := range up.Events {
		if e.TrackingNumber != "" {
			t.Fatalf("a child's scan %+v without the children's answer", e)
		}
	}
	if len(up.Events) == 0 {
		t.Error("the master's scans were dropped with the children's answer")
	}
}
