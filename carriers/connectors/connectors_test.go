package connectors_test

import (
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

// The registry's list makes a catalog: every descriptor has an ID, a slug,
// a constructor, its identity and account among its credentials, once.
func TestCatalog(t *testing.T) {
	t.Parallel()
	if _, err := carriers.NewCatalog(connectors.All()...); err != nil {
		t.Fatal(err)
	}
	twice := append(connectors.All(), connectors.All()[0])
	if _, err := carriers.NewCatalog(twice...); err == nil {
		t.Error("a carrier listed twice makes a catalog")
	}
}

func TestDeliversSaturday(t *testing.T) {
	t.Parallel()
	c := connectors.Catalog()
	if !c.DeliversSaturday("usps") || c.DeliversSaturday("UPS") || c.DeliversSaturday("FedEx") {
		t.Error("DeliversSaturday: only USPS delivers on Saturdays")
	}
}

func TestQuotasFlag(t *testing.T) {
	t.Parallel()
	q := connectors.Catalog().DefaultQuotas()
	if err := q.Set("USPS:tracking=600/h, fedex:all=off,UPS:labels=5/10s,ups:track=1/d"); err != nil {
		t.Fatal(err)
	}
	want := "dhlparcelde:tracking=250/d,fedex:all=unlimited,fedex:tracking=100000/d,gls:tracking=500/d,ups:labels=5/10s,ups:tracking=1/d,usps:labels=60/h,usps:manifests=60/h,usps:pickups=60/h,usps:rates=60/h,usps:tracking=600/h"
	if got := q.String(); got != want {
		t.Errorf("quotas %s, want %s", got, want)
	}
	for _, c := range []struct{ value, want string }{
		{"USPS=60/h", "CARRIER:API=CALLS/PERIOD"},
		{"USPS:tracking", "CARRIER:API=CALLS/PERIOD"},
		{"USPS:labels=0/h", "at least 1 call"},
		{"USPS:labels=-3/h", "at least 1 call"},
		{"USPS:labels=60", "CALLS/PERIOD"},
		{"USPS:labels=60/week", `period "week"`},
		{"USPS:labels=60/1ms", "want 1s to 31 days"},
		{"USPS:shipping=60/h", "not one of rates, labels, tracking, manifests, pickups, all"},
	} {
		err := carriers.Quotas{}.Set(c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.value, err, c.want)
		}
	}
}
