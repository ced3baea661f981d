package carriers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// plain is a carrier of the given capabilities beyond rates, buy and void:
// it plans and tracks when it declares so, and the rest it does not offer.
type plain struct {
	carriers.Unsupported
	err  error
	caps carriers.Capabilities
}

func (plain) Name() string { return "Plain" }
func (p plain) Capabilities() carriers.Capabilities {
	return carriers.CapRates | carriers.CapBuy | carriers.CapVoid | p.caps
}
func (p plain) Rates(context.Context, carriers.Shipment) ([]carriers.Rate, error) {
	return nil, p.err
}
func (p plain) Buy(context.Context, carriers.BuyRequest) (carriers.Label, error) {
	return carriers.Label{TrackingNumber: "T1"}, p.err
}
func (p plain) Void(context.Context, carriers.VoidRequest) (carriers.VoidStatus, error) {
	return carriers.VoidConfirmed, p.err
}
func (p plain) TrackingPlan(ctx context.Context, s carriers.Shipment, tn string) ([]carriers.TrackingScan, error) {
	if !p.caps.Has(carriers.CapTrackingPlan) {
		return p.Unsupported.TrackingPlan(ctx, s, tn)
	}
	return []carriers.TrackingScan{{Status: carriers.StatusPreTransit}}, nil
}
func (p plain) Track(ctx context.Context, tn string) (carriers.TrackingUpdate, error) {
	if !p.caps.Has(carriers.CapTrack) {
		return p.Unsupported.Track(ctx, tn)
	}
	return carriers.TrackingUpdate{Status: carriers.StatusInTransit}, nil
}

// TestInstrumentKeepsWhatACarrierOffers: the observed carrier declares the
// capabilities the carrier declares; every call of a declared operation is
// observed with its operation and error, and an undeclared one reaches no
// observer and answers ErrNotSupported.
func TestInstrumentKeepsWhatACarrierOffers(t *testing.T) {
	t.Parallel()
	for _, caps := range []carriers.Capabilities{0, carriers.CapTrackingPlan, carriers.CapTrack, carriers.CapTrackingPlan | carriers.CapTrack} {
		c := plain{caps: caps}
		var calls []string
		observe := func(ctx context.Context, carrier, op string) (context.Context, func(error)) {
			return ctx, func(err error) { calls = append(calls, fmt.Sprintf("%s %s %v", carrier, op, err)) }
		}
		o := carriers.Instrument(c, observe)
		if o.Capabilities() != c.Capabilities() {
			t.Fatalf("%s: observed capabilities %s", caps, o.Capabilities())
		}
		ctx := context.Background()
		_, _ = o.Rates(ctx, carriers.Shipment{})
		_, _ = o.Buy(ctx, carriers.BuyRequest{})
		_, _ = o.Void(ctx, carriers.VoidRequest{})
		want := []string{"Plain rates <nil>", "Plain buy <nil>", "Plain void <nil>"}
		_, planErr := o.TrackingPlan(ctx, carriers.Shipment{}, "T1")
		if caps.Has(carriers.CapTrackingPlan) {
			want = append(want, "Plain tracking_plan <nil>")
		} else if !errors.Is(planErr, carriers.ErrNotSupported) {
			t.Errorf("%s: TrackingPlan %v, want ErrNotSupported", caps, planErr)
		}
		_, trackErr := o.Track(ctx, "T1")
		if caps.Has(carriers.CapTrack) {
			want = append(want, "Plain track <nil>")
		} else if !errors.Is(trackErr, carriers.ErrNotSupported) {
			t.Errorf("%s: Track %v, want ErrNotSupported", caps, trackErr)
		}
		if _, err := o.SchedulePickup(ctx, carriers.PickupRequest{}); !errors.Is(err, carriers.ErrPickupsNotSupported) {
			t.Errorf("%s: SchedulePickup %v, want ErrPickupsNotSupported", caps, err)
		}
		if diff := cmp.Diff(want, calls); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", caps, diff)
		}
		if o.Name() != "Plain" {
			t.Errorf("%s: name %q", caps, o.Name())
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
