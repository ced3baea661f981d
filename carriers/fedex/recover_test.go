package fedex

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// FindPurchase finds the label sold under the reference (without its
// document, which FedEx does not give again), skips a cancelled one, and
// answers not found for a reference nothing was sold under; FedEx
// unavailable is ErrUnavailable, not "nothing sold".
func TestFindPurchaseByReference(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	ctx := context.Background()
	req := buyRequest("shp_0123456789abcdef01234567", domestic(), "Ground")

	if l, found, err := c.FindPurchase(ctx, req); err != nil || found {
		t.Fatalf("before any sale: %+v %v %v, want not found", l, found, err)
	}
	sold, err := c.Buy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	l, found, err := c.FindPurchase(ctx, req)
	if err != nil || !found {
		t.Fatalf("after the sale: %v %v, want found", found, err)
	}
	if d := cmp.Diff(carriers.Label{TrackingNumber: sold.TrackingNumber}, l); d != "" {
		t.Errorf("found (-want +got):\n%s", d)
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: sold.TrackingNumber, Reference: req.Reference}); err != nil {
		t.Fatal(err)
	}
	if l, found, err := c.FindPurchase(ctx, req); err != nil || found {
		t.Fatalf("after the void: %+v %v %v, want not found", l, found, err)
	}
	fake.FailNext(fedexfake.OpTrackReference, http.StatusServiceUnavailable,
		fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable."))
	if _, _, err := c.FindPurchase(ctx, req); !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("FedEx unavailable: %v, want ErrUnavailable", err)
	}
	checkGolden(t, "track_reference.json", fake.LastRequestBody(fedexfake.OpTrackReference))
}
