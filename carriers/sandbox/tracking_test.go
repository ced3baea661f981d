package sandbox_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

func TestTrackingPlan(t *testing.T) {
	t.Parallel()
	const every = 5 * time.Millisecond // newCarriers' ScanInterval
	scan := func(status, msg, loc string) carriers.TrackingScan {
		return carriers.TrackingScan{Status: status, Message: msg, Location: loc, After: every}
	}
	leg := []carriers.TrackingScan{
		scan(carriers.StatusPreTransit, "Shipping label created", "San Francisco, CA"),
		scan(carriers.StatusInTransit, "Departed origin facility", "San Francisco, CA"),
		scan(carriers.StatusInTransit, "Arrived at destination facility", "New York, NY"),
		scan(carriers.StatusOutForDelivery, "Out for delivery", "New York, NY"),
	}
	signed := domestic()
	signed.Options.SignatureConfirmation = true
	intl := carriers.Shipment{From: sf(), To: london(), Parcel: carriers.Parcel{WeightOz: 24}, Customs: customs()}

	tests := []struct {
		name string
		s    carriers.Shipment
		want []carriers.TrackingScan
	}{
		{"delivered", domestic(), append(slices.Clone(leg), scan(carriers.StatusDelivered, "Delivered", "New York, NY"))},
		{"delivered with signature", signed, append(slices.Clone(leg), scan(carriers.StatusDelivered, "Delivered, signed for by recipient", "New York, NY"))},
		{"tracking exception", withRecipient(domestic(), sandbox.TriggerTrackingException),
			append(slices.Clone(leg), scan(carriers.StatusFailure, "Delivery exception: address not accessible", "New York, NY"))},
		{"return to sender", withRecipient(domestic(), sandbox.TriggerReturnToSender),
			append(slices.Clone(leg), scan(carriers.StatusReturnToSender, "Returned to sender: undeliverable as addressed", "New York, NY"))},
		{"international", intl, []carriers.TrackingScan{
			scan(carriers.StatusPreTransit, "Shipping label created", "San Francisco, CA, US"),
			scan(carriers.StatusInTransit, "Departed origin facility", "San Francisco, CA, US"),
			scan(carriers.StatusInTransit, "Cleared customs", "GB"),
			scan(carriers.StatusInTransit, "Arrived at destination facility", "London, GB"),
			scan(carriers.StatusOutForDelivery, "Out for delivery", "London, GB"),
			scan(carriers.StatusDelivered, "Delivered", "London, GB"),
		}},
	}
	for _, tt := range tests {
		for _, cn := range carrierNames {
			t.Run(tt.name+"/"+cn, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				c := carrierNamed(t, newCarriers(), cn)
				l, err := c.Buy(ctx, buyRequest(t, c, "shp_track", tt.s))
				if err != nil {
					t.Fatalf("Buy: %v", err)
				}
				got, err := c.TrackingPlan(ctx, tt.s, l.TrackingNumber)
				if err != nil {
					t.Fatalf("TrackingPlan: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("TrackingPlan (-want +got):\n%s", diff)
				}
				for _, sc := range got {
					if !slices.Contains(carriers.Statuses(), sc.Status) {
						t.Errorf("status %q is not in the tracker vocabulary", sc.Status)
					}
				}
			})
		}
	}
}

func TestTrackingPlanDefaultInterval(t *testing.T) {
	t.Parallel()
	c := carrierNamed(t, sandbox.New(sandbox.Config{}), sandbox.CarrierUSPS)
	l, err := c.Buy(context.Background(), buyRequest(t, c, "shp_default", domestic()))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := c.TrackingPlan(context.Background(), domestic(), l.TrackingNumber)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range plan {
		if sc.After != sandbox.DefaultScanInterval || sandbox.DefaultScanInterval != 3*time.Second {
			t.Errorf("scan %+v, want After = 3s", sc)
		}
	}
}

func TestTrackingPlanUnknownNumber(t *testing.T) {
	t.Parallel()
	for _, c := range newCarriers() {
		if _, err := c.TrackingPlan(context.Background(), domestic(), "NOT-A-NUMBER"); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s TrackingPlan(unknown) = %v, want ErrRejected", c.Name(), err)
		}
	}
}
