package sandbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// A return label's plan starts with the customer's drop-off (the first use,
// which charges it), then follows the outbound schedule; its label says RETURN.
func TestReturnLabelAndPlan(t *testing.T) {
	t.Parallel()
	const every = 5 * time.Millisecond // newCarriers' ScanInterval
	scan := func(status, msg, loc string) carriers.TrackingScan {
		return carriers.TrackingScan{Status: status, Message: msg, Location: loc, After: every}
	}
	want := []carriers.TrackingScan{
		scan(carriers.StatusPreTransit, "Return label created", "San Francisco, CA"),
		scan(carriers.StatusInTransit, "Dropped off by the customer", "San Francisco, CA"),
		scan(carriers.StatusInTransit, "Arrived at destination facility", "New York, NY"),
		scan(carriers.StatusOutForDelivery, "Out for delivery", "New York, NY"),
		scan(carriers.StatusDelivered, "Delivered", "New York, NY"),
	}
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := carrierNamed(t, newCarriers(), cn)
			s := domestic()
			s.Return = true
			l, err := c.Buy(ctx, buyRequest(t, c, "shp_return", s))
			if err != nil {
				t.Fatalf("Buy: %v", err)
			}
			if !containsText(t, l.Document, "(RETURN)") {
				t.Error("a return label does not say RETURN")
			}
			got, err := c.TrackingPlan(ctx, s, l.TrackingNumber)
			if err != nil {
				t.Fatalf("TrackingPlan: %v", err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("TrackingPlan (-want +got):\n%s", d)
			}
		})
	}
}

// The sandbox makes return labels where the live carrier does: UPS and FedEx
// on every service, USPS on its domestic services only (its return-label
// API is domestic).
func TestReturnServices(t *testing.T) {
	t.Parallel()
	cs := newCarriers()
	got := map[string]bool{}
	for _, cn := range carrierNames {
		c := carrierNamed(t, cs, cn)
		for _, svc := range []string{"GroundAdvantage", "PriorityMailInternational", "Ground", "WorldwideSaver", "FedExGround", "InternationalPriority"} {
			if c.Capabilities().Has(carriers.CapReturns) && c.ReturnService(svc) {
				got[cn+" "+svc] = true
			}
		}
	}
	want := map[string]bool{"USPS GroundAdvantage": true}
	for _, cn := range carrierNames {
		if cn == "USPS" {
			continue
		}
		for _, svc := range []string{"GroundAdvantage", "PriorityMailInternational", "Ground", "WorldwideSaver", "FedExGround", "InternationalPriority"} {
			want[cn+" "+svc] = true
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("return services (-want +got):\n%s", d)
	}
}

func containsText(t *testing.T, pdf []byte, s string) bool {
	t.Helper()
	return strings.Contains(pdfText(t, pdf), s)
}
