package main

import (
	"context"
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/dhlexpress"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
	"github.com/shipd-dev/shipd/carriers/usps"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// The live verifier is every configured verifying connector by rank:
// USPS alone is USPS; with DHL Express configured too, a chain in which
// USPS answers US addresses and DHL Express the others; DHL Express alone
// is DHL Express.
func TestLiveVerifierByRank(t *testing.T) {
	t.Parallel()
	dhl, us := dhlexpressfake.New(t), uspsfake.New(t)
	dhlFlags := []string{"--dhlexpress-username", dhlexpressfake.Username, "--dhlexpress-password", dhlexpressfake.Password,
		"--dhlexpress-account-number", dhlexpressfake.AccountNumber, "--dhlexpress-base-url", dhl.BaseURL()}
	uspsFlags := []string{"--usps-client-id", uspsfake.ClientID, "--usps-client-secret", uspsfake.ClientSecret,
		"--usps-account-number", uspsfake.AccountNumber, "--usps-crid", uspsfake.CRID, "--usps-mid", uspsfake.MID, "--usps-base-url", us.URL()}
	build := func(args ...string) verifier.Verifier {
		t.Helper()
		var l liveFlags
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		l.register(fs, connectors.Catalog())
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		_, v, err := l.carriers(func(string) func() { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if _, ok := build(uspsFlags...).(*usps.Carrier); !ok {
		t.Error("USPS alone is not the verifier")
	}
	if _, ok := build(dhlFlags...).(*dhlexpress.Carrier); !ok {
		t.Error("DHL Express alone is not the verifier")
	}
	chain, ok := build(append(dhlFlags, uspsFlags...)...).(verifier.Chain)
	if !ok || len(chain) != 2 {
		t.Fatalf("USPS and DHL Express: %T, want a chain of two", chain)
	}
	if _, first := chain[0].(*usps.Carrier); !first {
		t.Errorf("the chain starts with %T, want USPS", chain[0])
	}
	ctx := context.Background()
	de, err := chain.Verify(ctx, verifier.Address{Street1: "Friedrichstr. 123", City: "Berlin", Zip: "10117", Country: "DE"})
	if err != nil || de.Address.City != "BERLIN" {
		t.Errorf("a German address: %+v, %v", de, err)
	}
	if d := cmp.Diff([]int{0, 1}, []int{us.Requests(uspsfake.OpAddress), dhl.Requests(dhlexpressfake.OpAddress)}); d != "" {
		t.Errorf("calls of USPS and DHL (-want +got):\n%s", d)
	}
}
