package carriers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

type plain struct{ err error }

func (plain) Name() string { return "Plain" }
func (p plain) Rates(context.Context, carriers.Shipment) ([]carriers.Rate, error) {
	return nil, p.err
}
func (p plain) Buy(context.Context, carriers.BuyRequest) (carriers.Label, error) {
	return carriers.Label{TrackingNumber: "T1"}, p.err
}
func (p plain) Void(context.Context, carriers.VoidRequest) (carriers.VoidStatus, error) {
	return carriers.VoidConfirmed, p.err
}

type planner struct{ plain }

func (planner) TrackingPlan(context.Context, carriers.Shipment, string) ([]carriers.TrackingScan, error) {
	return []carriers.TrackingScan{{Status: carriers.StatusPreTransit}}, nil
}

type tracker struct{ plain }

func (tracker) Track(context.Context, string) (carriers.TrackingUpdate, error) {
	return carriers.TrackingUpdate{Status: carriers.StatusInTransit}, nil
}

type both struct{ planner }

func (both) Track(context.Context, string) (carriers.TrackingUpdate, error) {
	return carriers.TrackingUpdate{}, nil
}

// TestInstrumentKeepsWhatACarrierOffers: the observed carrier is a Planner or
// a Tracker exactly when the carrier is, and every call is observed with its
// operation and error.
func TestInstrumentKeepsWhatACarrierOffers(t *testing.T) {
	t.Parallel()
	for _, c := range []carriers.Carrier{plain{}, planner{}, tracker{}, both{}} {
		var calls []string
		observe := func(ctx context.Context, carrier, op string) (context.Context, func(error)) {
			return ctx, func(err error) { calls = append(calls, fmt.Sprintf("%s %s %v", carrier, op, err)) }
		}
		o := carriers.Instrument(c, observe)
		_, isPlanner := c.(carriers.Planner)
		_, isTracker := c.(carriers.Tracker)
		p, oPlanner := o.(carriers.Planner)
		tr, oTracker := o.(carriers.Tracker)
		if oPlanner != isPlanner || oTracker != isTracker {
			t.Fatalf("%T: observed planner %v tracker %v, want %v %v", c, oPlanner, oTracker, isPlanner, isTracker)
		}
		ctx := context.Background()
		_, _ = o.Rates(ctx, carriers.Shipment{})
		_, _ = o.Buy(ctx, carriers.BuyRequest{})
		_, _ = o.Void(ctx, carriers.VoidRequest{})
		want := []string{"Plain rates <nil>", "Plain buy <nil>", "Plain void <nil>"}
		if oPlanner {
			_, _ = p.TrackingPlan(ctx, carriers.Shipment{}, "T1")
			want = append(want, "Plain tracking_plan <nil>")
		}
		if oTracker {
			_, _ = tr.Track(ctx, "T1")
			want = append(want, "Plain track <nil>")
		}
		if diff := cmp.Diff(want, calls); diff != "" {
			t.Errorf("%T: calls (-want +got):\n%s", c, diff)
		}
		if o.Name() != "Plain" {
			t.Errorf("%T: name %q", c, o.Name())
		}
	}
	var got error
	o := carriers.Instrument(plain{err: carriers.ErrUnavailable}, func(ctx context.Context, _, _ string) (context.Context, func(error)) {
		return ctx, func(err error) { got = err }
	})
	if _, err := o.Buy(context.Background(), carriers.BuyRequest{}); !errors.Is(err, carriers.ErrUnavailable) || !errors.Is(got, carriers.ErrUnavailable) {
		t.Errorf("Buy error %v, observed %v", err, got)
	}
}
