package sandbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// triggerChecks holds one check per trigger value. TestTriggers walks
// sandbox.Triggers(), so a trigger added to the table without a check fails.
var triggerChecks = map[string]func(t *testing.T, c carriers.Carrier, typed string){
	sandbox.TriggerNumberException: func(t *testing.T, c carriers.Carrier, typed string) {
		checkNumberPlanEnds(t, c, "9400111899223344556"+typed, carriers.StatusFailure)
	},
	sandbox.TriggerNumberReturn: func(t *testing.T, c carriers.Carrier, typed string) {
		checkNumberPlanEnds(t, c, "9400111899223344556"+typed, carriers.StatusReturnToSender)
	},
	sandbox.TriggerCarrierError: func(t *testing.T, c carriers.Carrier, typed string) {
		_, err := c.Rates(context.Background(), withRecipient(domestic(), typed))
		if err == nil || errors.Is(err, carriers.ErrUnavailable) {
			t.Errorf("Rates: err = %v, want a failure that is not ErrUnavailable", err)
		}
	},
	sandbox.TriggerCarriersDown: func(t *testing.T, c carriers.Carrier, typed string) {
		if _, err := c.Rates(context.Background(), withRecipient(domestic(), typed)); !errors.Is(err, carriers.ErrUnavailable) {
			t.Errorf("Rates: err = %v, want ErrUnavailable", err)
		}
	},
	sandbox.TriggerCarriersUnreachable: func(t *testing.T, c carriers.Carrier, typed string) {
		_, err := c.Rates(context.Background(), withRecipient(domestic(), typed))
		var ce *carriers.Error
		if !errors.Is(err, carriers.ErrUnavailable) || !errors.As(err, &ce) || !ce.Unreachable {
			t.Errorf("Rates: err = %v, want ErrUnavailable marked Unreachable", err)
		}
	},
	sandbox.TriggerSlowCarrier: func(t *testing.T, c carriers.Carrier, typed string) {
		// The default delay is 3 s: a purchase given 30 ms must still be waiting.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		if _, err := c.Buy(ctx, buyRequest(t, c, "shp_slow", withRecipient(domestic(), typed))); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Buy: err = %v, want context.DeadlineExceeded", err)
		}
	},
	sandbox.TriggerNoRatesZip: func(t *testing.T, c carriers.Carrier, typed string) {
		s := domestic()
		s.To.Zip = typed
		rs, err := c.Rates(context.Background(), s)
		if err != nil {
			t.Fatalf("Rates: %v", err)
		}
		if diff := cmp.Diff([]carriers.Rate{}, rs); diff != "" {
			t.Errorf("want an empty, non-nil slice (-want +got):\n%s", diff)
		}
	},
	sandbox.TriggerFailPurchase: func(t *testing.T, c carriers.Carrier, typed string) {
		_, err := c.Buy(context.Background(), buyRequest(t, c, "shp_fail", withRecipient(domestic(), typed)))
		if !errors.Is(err, carriers.ErrRejected) || errors.Is(err, carriers.ErrUnavailable) {
			t.Fatalf("Buy error = %v, want ErrRejected only", err)
		}
		want := "sandbox: " + c.Name() + " rejected the purchase (trigger: recipient name 'Fail Purchase')"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("message %q, want it to start with %q", err, want)
		}
	},
	sandbox.TriggerCarrierUnavailable: func(t *testing.T, c carriers.Carrier, typed string) {
		req := buyRequest(t, c, "shp_unavail", withRecipient(domestic(), typed))
		var errs []error
		for range sandbox.UnavailableFailures + 1 {
			_, err := c.Buy(context.Background(), req)
			errs = append(errs, err)
		}
		for i, err := range errs[:sandbox.UnavailableFailures] {
			if !errors.Is(err, carriers.ErrUnavailable) {
				t.Errorf("attempt %d: %v, want ErrUnavailable", i+1, err)
			}
		}
		if last := errs[len(errs)-1]; last != nil {
			t.Errorf("attempt %d: %v, want success", len(errs), last)
		}
	},
	sandbox.TriggerVoidRejected: func(t *testing.T, c carriers.Carrier, typed string) {
		ctx := context.Background()
		l, err := c.Buy(ctx, buyRequest(t, c, "shp_novoid", withRecipient(domestic(), typed)))
		if err != nil {
			t.Fatalf("Buy: %v", err)
		}
		if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_novoid"}); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("Void: err = %v, want ErrRejected", err)
		}
		other, err := c.Buy(ctx, buyRequest(t, c, "shp_voidable", domestic()))
		if err != nil {
			t.Fatalf("Buy: %v", err)
		}
		if st, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: other.TrackingNumber, Reference: "shp_voidable"}); err != nil || st != carriers.VoidConfirmed {
			t.Errorf("Void of another label: %v %v, want confirmed", st, err)
		}
	},
	sandbox.TriggerManifestRejected: func(t *testing.T, c carriers.Carrier, typed string) {
		if !c.Capabilities().Has(carriers.CapManifests) {
			return // the sandbox UPS has no manifest step, as UPS
		}
		m := c
		s := domestic()
		s.From.Name = typed
		_, err := m.Manifest(context.Background(), carriers.ManifestRequest{Reference: "man_rejected", From: s.From, ShipDate: time.Now(),
			Labels: []carriers.ManifestLabel{{TrackingNumber: "9400SANDBOX000000000001"}}, TestMode: true})
		if !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("Manifest: err = %v, want ErrRejected", err)
		}
	},
	sandbox.TriggerPickupRejected: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, carriers.ErrRejected, nil)
	},
	sandbox.TriggerPickupUnavailable: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, carriers.ErrUnavailable, nil)
	},
	sandbox.TriggerPickupError: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, carriers.ErrFailed, nil)
	},
	sandbox.TriggerCancelRejected: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, nil, carriers.ErrRejected)
	},
	sandbox.TriggerCancelUnavailable: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, nil, carriers.ErrUnavailable)
	},
	sandbox.TriggerCancelError: func(t *testing.T, c carriers.Carrier, typed string) {
		checkPickup(t, c, typed, nil, carriers.ErrFailed)
	},
	sandbox.TriggerTrackingException: func(t *testing.T, c carriers.Carrier, typed string) {
		checkFinalScan(t, c, withRecipient(domestic(), typed), carriers.StatusFailure, "Delivery exception: address not accessible")
	},
	sandbox.TriggerReturnToSender: func(t *testing.T, c carriers.Carrier, typed string) {
		checkFinalScan(t, c, withRecipient(domestic(), typed), carriers.StatusReturnToSender, "Returned to sender")
	},
}

func checkFinalScan(t *testing.T, c carriers.Carrier, s carriers.Shipment, status, msgPrefix string) {
	t.Helper()
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(t, c, "shp_track", s))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	plan, err := c.TrackingPlan(ctx, s, l.TrackingNumber)
	if err != nil {
		t.Fatalf("TrackingPlan: %v", err)
	}
	last := plan[len(plan)-1]
	if last.Status != status || !strings.HasPrefix(last.Message, msgPrefix) {
		t.Errorf("final scan %+v, want status %q with message %q...", last, status, msgPrefix)
	}
	for _, sc := range plan {
		if sc.Status == carriers.StatusDelivered {
			t.Errorf("plan contains a delivered scan: %+v", plan)
		}
	}
}

func TestTriggers(t *testing.T) {
	t.Parallel()
	for _, tr := range sandbox.Triggers() {
		check, ok := triggerChecks[tr.Value]
		if !ok {
			t.Errorf("trigger %q has no test", tr.Value)
			continue
		}
		if tr.Field == "" || tr.Effect == "" {
			t.Errorf("trigger %q is not documented: %+v", tr.Value, tr)
		}
		// Users type these by hand: case and surrounding spaces must not matter.
		for _, typed := range []string{tr.Value, strings.ToLower(tr.Value), "  " + strings.ToUpper(tr.Value) + " "} {
			for _, cn := range carrierNames {
				t.Run(cn+"/"+typed, func(t *testing.T) {
					t.Parallel()
					check(t, carrierNamed(t, newCarriers(), cn), typed)
				})
			}
		}
	}
}

func TestNoRatesZipPlusFour(t *testing.T) {
	t.Parallel()
	s := domestic()
	s.To.Zip = "00000-1234"
	rs, err := carrierNamed(t, newCarriers(), sandbox.CarrierUSPS).Rates(context.Background(), s)
	if err != nil || len(rs) != 0 {
		t.Errorf("Rates to 00000-1234 = %v, %v; want no rates and no error", rs, err)
	}
}

func TestTriggersNeedExactValue(t *testing.T) {
	t.Parallel()
	// Near misses must behave like ordinary recipients, or real names could
	// trip a trigger.
	for _, name := range []string{"Fail Purchases", "Carrier", "Mr Tracking Exception"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), sandbox.CarrierFedEx)
			s := withRecipient(domestic(), name)
			l, err := c.Buy(context.Background(), buyRequest(t, c, "shp_"+name, s))
			if err != nil {
				t.Fatalf("Buy: %v", err)
			}
			plan, err := c.TrackingPlan(context.Background(), s, l.TrackingNumber)
			if err != nil {
				t.Fatalf("TrackingPlan: %v", err)
			}
			if got := plan[len(plan)-1].Status; got != carriers.StatusDelivered {
				t.Errorf("final status %q, want delivered", got)
			}
		})
	}
	// The lowest ZIP code in use (Holtsville NY) is near the trigger but not it.
	s := domestic()
	s.To.Zip = "00501"
	if rs, err := carrierNamed(t, newCarriers(), sandbox.CarrierUPS).Rates(context.Background(), s); err != nil || len(rs) == 0 {
		t.Errorf("Rates to 00501 = %v, %v; want rates", rs, err)
	}
}

func TestSlowCarrierDelaysBuyAndVoid(t *testing.T) {
	t.Parallel()
	c := sandbox.New(sandbox.Config{SlowDelay: 30 * time.Millisecond})[0]
	s := withRecipient(domestic(), sandbox.TriggerSlowCarrier)
	rates, err := c.Rates(context.Background(), s)
	if err != nil || len(rates) == 0 {
		t.Fatalf("rates: %v %v", rates, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Buy(ctx, carriers.BuyRequest{Reference: "shp_slow_cancelled", Shipment: s, Rate: rates[0]}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled slow purchase: err = %v, want context.Canceled", err)
	}
	label, err := c.Buy(context.Background(), carriers.BuyRequest{Reference: "shp_slow", Shipment: s, Rate: rates[0]})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: label.TrackingNumber}); !errors.Is(err, context.Canceled) {
		t.Fatalf("void of a slow label with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: label.TrackingNumber}); err != nil {
		t.Fatal(err)
	}
}

// checkNumberPlanEnds checks that a standalone number's plan ends in status.
func checkNumberPlanEnds(t *testing.T, c carriers.Carrier, number, status string) {
	t.Helper()
	plan, err := c.NumberPlan(context.Background(), number)
	if err != nil {
		t.Fatalf("NumberPlan(%q): %v", number, err)
	}
	if last := plan[len(plan)-1]; last.Status != status {
		t.Errorf("NumberPlan(%q) ends in %+v, want status %q", number, last, status)
	}
}

func TestNumberPlanDelivers(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		checkNumberPlanEnds(t, carrierNamed(t, newCarriers(), cn), "9400111899223344556677", carriers.StatusDelivered)
	}
}
