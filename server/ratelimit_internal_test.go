package server

// Unit tests of rate-limit configuration and of the contract's groups, below the HTTP API.

import (
	"net/http"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
)

func TestRateLimitGroupsFromContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := loadOperations(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Group{ // operations other than GET
		"quoteLabel": GroupQuotes, "createLabel": GroupBuys, "refundLabel": GroupRefunds,
		"verifyAddress": GroupAddressVerify, "createAddress": GroupAddressWrites,
		"createWebhook": GroupWebhookWrites, "updateWebhook": GroupWebhookWrites, "deleteWebhook": GroupWebhookWrites,
		"testWebhook": GroupWebhookWrites, "retryWebhookDelivery": GroupWebhookWrites,
	}
	got := map[string]Group{}
	for key, op := range ops {
		g, limited := op.rateLimit, op.rateLimit != ""
		switch {
		case op.public && limited:
			t.Errorf("%s: public, yet in group %s", key, g)
		case op.public:
		case !limited:
			t.Errorf("%s: no group", key)
		case op.route.Method == http.MethodGet && g != GroupReads:
			t.Errorf("%s: group %s, want reads", key, g)
		case op.route.Method != http.MethodGet:
			got[op.route.Operation.OperationID] = g
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups of the write operations (-want +got):\n%s", diff)
	}
	for _, g := range Groups {
		if _, ok := DefaultRateLimit(g); !ok {
			t.Errorf("group %s has no default", g)
		}
	}
}

func TestRateLimitConfig(t *testing.T) {
	t.Parallel()

	t.Run("defaults and overrides", func(t *testing.T) {
		t.Parallel()
		overrides := map[Group]RateLimit{GroupBuys: {Rate: 5}, GroupReads: {Burst: 7}}
		c := RateLimitConfig{Limits: overrides}
		c.setDefaults()
		want := map[Group]RateLimit{
			GroupReads: {100, 7}, GroupQuotes: {20, 50}, GroupBuys: {5, 20}, GroupRefunds: {10, 20},
			GroupAddressVerify: {20, 50}, GroupAddressWrites: {20, 50}, GroupWebhookWrites: {10, 50},
		}
		if diff := cmp.Diff(want, c.Limits); diff != "" {
			t.Errorf("limits (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[Group]RateLimit{GroupBuys: {Rate: 5}, GroupReads: {Burst: 7}}, overrides); diff != "" {
			t.Errorf("the caller's map was changed:\n%s", diff)
		}
		if c.SweepInterval != time.Minute || c.Limiter == nil {
			t.Errorf("sweep %v, limiter %v", c.SweepInterval, c.Limiter)
		}
	})

	t.Run("flag syntax", func(t *testing.T) {
		t.Parallel()
		var c RateLimitConfig
		for _, spec := range []string{"buys=5:10", "reads=:300", "quotes=2.5:", "refunds=1:2, address_writes=3:4"} {
			if err := c.Set(spec); err != nil {
				t.Fatalf("Set(%q): %v", spec, err)
			}
		}
		want := map[Group]RateLimit{GroupBuys: {5, 10}, GroupReads: {0, 300}, GroupQuotes: {2.5, 0}, GroupRefunds: {1, 2}, GroupAddressWrites: {3, 4}}
		if diff := cmp.Diff(want, c.Limits); diff != "" {
			t.Errorf("parsed (-want +got):\n%s", diff)
		}
		if got := c.String(); got != "reads=0:300,quotes=2.5:0,buys=5:10,refunds=1:2,address_writes=3:4" {
			t.Errorf("String() = %q", got)
		}
		for _, bad := range []string{"nope=1:2", "buys", "buys=1", "buys=0:1", "buys=x:1", "buys=1:-1", "buys=1:1.5", "buys=Inf:1", "buys=NaN:1"} {
			if err := new(RateLimitConfig).Set(bad); err == nil {
				t.Errorf("Set(%q) accepted", bad)
			}
		}
	})
}
