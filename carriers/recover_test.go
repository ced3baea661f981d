package carriers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// recovering is a batch-tracking carrier that can look purchases up.
type recovering struct{ many }

func (r *recovering) Capabilities() carriers.Capabilities {
	return r.many.Capabilities() | carriers.CapFindPurchase
}

func (r *recovering) FindPurchase(_ context.Context, req carriers.BuyRequest) (carriers.Label, bool, error) {
	r.count("find_purchase")
	return carriers.Label{TrackingNumber: "sold to " + req.Reference}, true, nil
}

// The decorators app puts around a live carrier (Instrument, Limit, Batch)
// keep its purchase lookup, and a carrier without one answers ErrNoLookup
// through them: a rescued purchase must reach the carrier's lookup.
func TestDecoratorsKeepThePurchaseLookup(t *testing.T) {
	t.Parallel()
	decorate := func(c carriers.Carrier) carriers.Carrier {
		observed := carriers.Instrument(c, func(ctx context.Context, _, _ string) (context.Context, func(error)) {
			return ctx, func(error) {}
		})
		return carriers.Batch(carriers.Limit(observed, carriers.QuotaConfig{Now: newClock().Now}), time.Millisecond)
	}
	inner := &recovering{}
	r := decorate(inner)
	if !r.Capabilities().Has(carriers.CapFindPurchase) {
		t.Fatal("the decorated carrier lost its purchase lookup")
	}
	l, found, err := r.FindPurchase(context.Background(), carriers.BuyRequest{Reference: "shp_1"})
	if err != nil || !found || l.TrackingNumber != "sold to shp_1" || inner.calls["find_purchase"] != 1 {
		t.Fatalf("FindPurchase: %+v %v %v, %d calls; want the carrier's answer", l, found, err, inner.calls["find_purchase"])
	}
	plain := decorate(&many{})
	if plain.Capabilities().Has(carriers.CapFindPurchase) {
		t.Fatal("a decorated carrier without a lookup declares one")
	}
	if _, _, err := plain.FindPurchase(context.Background(), carriers.BuyRequest{Reference: "shp_1"}); !errors.Is(err, carriers.ErrNoLookup) {
		t.Fatalf("FindPurchase without a lookup: %v, want ErrNoLookup", err)
	}
}
