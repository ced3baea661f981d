package carriers_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// pickupFinder is a carrier that books pickups and can look them up.
type pickupFinder struct{ many }

func (p *pickupFinder) Capabilities() carriers.Capabilities {
	return p.many.Capabilities() | carriers.CapPickups | carriers.CapFindPickup
}

func (p *pickupFinder) FindPickup(_ context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	p.count("find_pickup")
	return carriers.PickupConfirmation{ConfirmationNumber: "booked for " + req.Reference}, true, nil
}

// The decorators app puts around a live carrier keep its pickup lookup, and
// draw it from the carrier's pickups budget; a carrier without one answers
// ErrNoPickupLookup through them, so a lost schedule is never booked blindly.
func TestDecoratorsKeepThePickupLookup(t *testing.T) {
	t.Parallel()
	var observed []string
	decorate := func(c carriers.Carrier, quotas carriers.Quotas) carriers.Carrier {
		c = carriers.Instrument(c, func(ctx context.Context, _, op string) (context.Context, func(error)) {
			observed = append(observed, op)
			return ctx, func(error) {}
		})
		return carriers.Batch(carriers.Limit(c, carriers.QuotaConfig{Now: newClock().Now, Quotas: quotas}), time.Millisecond)
	}
	inner := &pickupFinder{}
	r := decorate(inner, nil)
	if !r.Capabilities().Has(carriers.CapFindPickup) {
		t.Fatal("the decorated carrier lost its pickup lookup")
	}
	pc, found, err := r.FindPickup(context.Background(), carriers.PickupRequest{Reference: "pck_1"})
	if err != nil || !found || pc.ConfirmationNumber != "booked for pck_1" || inner.calls["find_pickup"] != 1 {
		t.Fatalf("FindPickup: %+v %v %v, %d calls; want the carrier's answer", pc, found, err, inner.calls["find_pickup"])
	}
	if len(observed) != 1 || observed[0] != carriers.OpFindPickup {
		t.Errorf("observed %v, want one %s", observed, carriers.OpFindPickup)
	}

	// One call a minute of the pickups API: the lookup takes it.
	spent := decorate(&pickupFinder{}, carriers.Quotas{{Carrier: "fedex", API: carriers.APIPickups}: {Calls: 1, Per: time.Minute}})
	if _, _, err := spent.FindPickup(context.Background(), carriers.PickupRequest{Reference: "pck_1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := spent.FindPickup(context.Background(), carriers.PickupRequest{Reference: "pck_1"}); !errors.Is(err, carriers.ErrOverQuota) {
		t.Errorf("a second lookup within the pickups budget of one: %v, want ErrOverQuota", err)
	}

	plain := decorate(&many{}, nil)
	if plain.Capabilities().Has(carriers.CapFindPickup) {
		t.Fatal("a decorated carrier without a lookup declares one")
	}
	if _, _, err := plain.FindPickup(context.Background(), carriers.PickupRequest{Reference: "pck_1"}); !errors.Is(err, carriers.ErrNoPickupLookup) {
		t.Fatalf("FindPickup without a lookup: %v, want ErrNoPickupLookup", err)
	}
}
