package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

var trackingFormats = map[string]*regexp.Regexp{
	sandbox.CarrierUSPS:  regexp.MustCompile(`^9400SANDBOX\d{12}$`),
	sandbox.CarrierUPS:   regexp.MustCompile(`^1ZSANDBOX\d{9}$`),
	sandbox.CarrierFedEx: regexp.MustCompile(`^SANDBOX\d{12}$`),
}

// buyRequest quotes the shipment and returns a request for its first rate,
// the way the purchase flow builds one.
func buyRequest(t *testing.T, c carriers.Carrier, ref string, s carriers.Shipment) carriers.BuyRequest {
	t.Helper()
	// Quote with a neutral recipient name so purchase triggers do not
	// affect the quote step.
	q := s
	q.To.Name = "Quote"
	rs, err := c.Rates(context.Background(), q)
	if err != nil || len(rs) == 0 {
		t.Fatalf("%s Rates: %v, %v", c.Name(), rs, err)
	}
	return carriers.BuyRequest{Reference: ref, Shipment: s, Rate: rs[0], TestMode: true}
}

func TestBuyIdempotentPerReference(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := carrierNamed(t, newCarriers(), cn)

			first, err := c.Buy(ctx, buyRequest(t, c, "shp_1", domestic()))
			if err != nil {
				t.Fatalf("Buy: %v", err)
			}
			if !trackingFormats[cn].MatchString(first.TrackingNumber) {
				t.Errorf("tracking number %q does not look like a %s sandbox number", first.TrackingNumber, cn)
			}
			first.Document[0] = 'X' // the caller's copy must not alter the stored purchase

			again, err := c.Buy(ctx, buyRequest(t, c, "shp_1", domestic()))
			if err != nil {
				t.Fatalf("Buy again: %v", err)
			}
			if !strings.HasPrefix(string(again.Document), "%PDF-") {
				t.Error("stored label was altered through a returned slice")
			}
			first.Document[0] = '%'
			if diff := cmp.Diff(first, again); diff != "" {
				t.Errorf("retried Buy differs (-first +again):\n%s", diff)
			}

			// After a restart the same reference still maps to the same number.
			fresh, err := carrierNamed(t, newCarriers(), cn).Buy(ctx, buyRequest(t, c, "shp_1", domestic()))
			if err != nil {
				t.Fatalf("Buy on new instance: %v", err)
			}
			if diff := cmp.Diff(first, fresh); diff != "" {
				t.Errorf("new instance differs (-first +fresh):\n%s", diff)
			}

			other, err := c.Buy(ctx, buyRequest(t, c, "shp_2", domestic()))
			if err != nil {
				t.Fatalf("Buy other: %v", err)
			}
			if other.TrackingNumber == first.TrackingNumber {
				t.Errorf("different references share tracking number %q", first.TrackingNumber)
			}
		})
	}
}

func TestBuyConcurrentSameReference(t *testing.T) {
	t.Parallel()
	c := carrierNamed(t, newCarriers(), sandbox.CarrierUPS)
	req := buyRequest(t, c, "shp_race", domestic())
	const n = 16
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l, err := c.Buy(context.Background(), req)
			if err != nil {
				t.Errorf("Buy: %v", err)
				return
			}
			got[i] = l.TrackingNumber
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("concurrent Buys returned different tracking numbers: %v", got)
		}
	}
}

func TestBuyCarrierUnavailableThenSucceeds(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c := carrierNamed(t, newCarriers(), cn)
			req := buyRequest(t, c, "shp_retry", withRecipient(domestic(), sandbox.TriggerCarrierUnavailable))

			for attempt := 1; attempt <= sandbox.UnavailableFailures; attempt++ {
				_, err := c.Buy(ctx, req)
				if !errors.Is(err, carriers.ErrUnavailable) {
					t.Fatalf("attempt %d: error = %v, want ErrUnavailable", attempt, err)
				}
				if errors.Is(err, carriers.ErrRejected) {
					t.Fatalf("attempt %d: transient failure also reports ErrRejected: %v", attempt, err)
				}
			}
			// Another reference keeps its own count.
			if _, err := c.Buy(ctx, buyRequest(t, c, "shp_other", req.Shipment)); !errors.Is(err, carriers.ErrUnavailable) {
				t.Fatalf("first attempt for another reference: %v, want ErrUnavailable", err)
			}

			label, err := c.Buy(ctx, req)
			if err != nil {
				t.Fatalf("attempt %d: %v, want success", sandbox.UnavailableFailures+1, err)
			}
			again, err := c.Buy(ctx, req)
			if err != nil {
				t.Fatalf("Buy after success: %v", err)
			}
			if diff := cmp.Diff(label, again); diff != "" {
				t.Errorf("Buy after success differs (-first +again):\n%s", diff)
			}
		})
	}
}

func TestBuyRejections(t *testing.T) {
	t.Parallel()
	c := carrierNamed(t, newCarriers(), sandbox.CarrierUSPS)
	valid := buyRequest(t, c, "shp_1", domestic())
	intl := carriers.Shipment{From: sf(), To: london(), Parcel: carriers.Parcel{WeightOz: 24}}

	tests := []struct {
		name    string
		mutate  func(r *carriers.BuyRequest)
		wantErr []error
		wantMsg string
	}{
		{"no reference", func(r *carriers.BuyRequest) { r.Reference = "  " }, []error{carriers.ErrRejected}, "no reference"},
		{"rate of another carrier", func(r *carriers.BuyRequest) { r.Rate.Carrier = "UPS" }, []error{carriers.ErrRejected}, `"UPS"`},
		{"unknown service", func(r *carriers.BuyRequest) { r.Rate.Service = "Teleport" }, []error{carriers.ErrRejected}, "GroundAdvantage"},
		{"domestic service abroad", func(r *carriers.BuyRequest) { r.Shipment = intl; r.Shipment.Customs = customs() }, []error{carriers.ErrRejected}, "PriorityMailInternational"},
		{"international without customs", func(r *carriers.BuyRequest) { r.Shipment = intl }, []error{carriers.ErrCustomsRequired, carriers.ErrRejected}, "GB"},
		{"zero weight", func(r *carriers.BuyRequest) { r.Shipment.Parcel.WeightOz = 0 }, []error{carriers.ErrInvalidShipment, carriers.ErrRejected}, "weight"},
		{"fail purchase trigger", func(r *carriers.BuyRequest) { r.Shipment.To.Name = "fail purchase" }, []error{carriers.ErrRejected}, "trigger: recipient name 'Fail Purchase'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := valid
			req.Reference = "shp_" + tt.name
			tt.mutate(&req)
			_, err := c.Buy(context.Background(), req)
			for _, want := range tt.wantErr {
				if !errors.Is(err, want) {
					t.Errorf("error = %v, want it to match %v", err, want)
				}
			}
			if errors.Is(err, carriers.ErrUnavailable) {
				t.Errorf("permanent failure reported as transient: %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

func TestVoid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := newCarriers()
	issued := map[string]string{}
	for _, c := range cs {
		l, err := c.Buy(ctx, buyRequest(t, c, "shp_void", domestic()))
		if err != nil {
			t.Fatalf("%s Buy: %v", c.Name(), err)
		}
		issued[c.Name()] = l.TrackingNumber
	}
	for _, c := range cs {
		for owner, tn := range issued {
			t.Run(fmt.Sprintf("%s voids %s number", c.Name(), owner), func(t *testing.T) {
				t.Parallel()
				_, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: tn})
				if owner == c.Name() && err != nil {
					t.Errorf("Void(%q) = %v, want nil", tn, err)
				}
				if owner != c.Name() && !errors.Is(err, carriers.ErrRejected) {
					t.Errorf("Void(%q) = %v, want ErrRejected", tn, err)
				}
			})
		}
		for _, tn := range []string{"", "1Z999AA10123456784", "9400100000000000000000", "SANDBOX"} {
			t.Run(fmt.Sprintf("%s voids %q", c.Name(), tn), func(t *testing.T) {
				t.Parallel()
				if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: tn}); !errors.Is(err, carriers.ErrRejected) {
					t.Errorf("Void(%q) = %v, want ErrRejected", tn, err)
				}
			})
		}
	}
}
