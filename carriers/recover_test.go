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
	r, ok := decorate(inner).(carriers.Recoverer)
	if !ok {
		t.Fatal("the decorated carrier is not a Recoverer")
	}
	l, found, err := r.FindPurchase(context.Background(), carriers.BuyRequest{Reference: "shp_1"})
	if err != nil || !found || l.TrackingNumber != "sold to shp_1" || inner.calls["find_purchase"] != 1 {
		t.Fatalf("FindPurchase: %+v %v %v, %d calls; want the carrier's answer", l, found, err, inner.calls["find_purchase"])
	}
	plain, ok := decorate(&many{}).(carriers.Recoverer)
	if !ok {
		t.Fatal("a decorated carrier without a lookup is not a Recoverer")
	}
	if _, _, err := plain.FindPurchase(context.Background(), carriers.BuyRequest{Reference: "shp_1"}); !errors.Is(err, carriers.ErrNoLookup) {
		t.Fatalf("FindPurchase without a lookup: %v, want ErrNoLookup", err)
	}
	// Whether a purchase keeps a record of its attempts: only for a lookup
	// behind the wrappers.
	if !carriers.FindsPurchases(decorate(&recovering{})) || !carriers.FindsPurchases(&recovering{}) {
		t.Error("FindsPurchases is false for a carrier with a lookup")
	}
	if carriers.FindsPurchases(decorate(&many{})) || carriers.FindsPurchases(&many{}) {
		t.Error("FindsPurchases is true for a carrier without a lookup")
	}
}
