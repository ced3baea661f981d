package telemetry_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/telemetry"
)

// A carrier's 429 is counted as rate_limited, not as any unavailability;
// quota decisions are counted by carrier, API and decision.
func TestCarrierRateLimitedAndQuotaMetrics(t *testing.T) {
	t.Parallel()
	tel, err := telemetry.New(telemetry.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, done := tel.ObserveCarrier(ctx, "USPS", carriers.OpTrack)
	done(&carriers.Error{Carrier: "USPS", Operation: "track", HTTPStatus: http.StatusTooManyRequests, Kind: carriers.ErrUnavailable})
	_, done = tel.ObserveCarrier(ctx, "USPS", carriers.OpTrack)
	done(&carriers.Error{Carrier: "USPS", Operation: "track", HTTPStatus: http.StatusServiceUnavailable, Kind: carriers.ErrUnavailable})
	tel.CarrierQuotaDecision("USPS", carriers.APITracking, carriers.QuotaDeferred)
	tel.CarrierQuotaDecision("USPS", carriers.APITracking, carriers.QuotaDeferred)

	families, err := tel.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "shipd_carrier_errors_total" && f.GetName() != "shipd_carrier_quota_decisions_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += " " + l.GetName() + "=" + l.GetValue()
			}
			got[key] = m.GetCounter().GetValue()
		}
	}
	want := map[string]float64{
		"shipd_carrier_errors_total carrier=USPS kind=rate_limited operation=track":       1,
		"shipd_carrier_errors_total carrier=USPS kind=unavailable operation=track":        1,
		"shipd_carrier_quota_decisions_total api=tracking carrier=USPS decision=deferred": 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters (-want +got):\n%s", diff)
	}
}
