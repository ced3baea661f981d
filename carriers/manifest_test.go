package carriers_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

type manifester struct{ plain }

func (manifester) Manifest(context.Context, carriers.ManifestRequest) (carriers.ManifestForm, error) {
	return carriers.ManifestForm{Number: "F1"}, nil
}

// A manifest goes through the wrappers like the carrier's other calls, so
// metrics and traces see it; a carrier without a manifest step is none
// through any wrapper.
func TestManifestIsObservedThroughWrappers(t *testing.T) {
	t.Parallel()
	var calls []string
	observe := func(ctx context.Context, carrier, op string) (context.Context, func(error)) {
		return ctx, func(err error) { calls = append(calls, fmt.Sprintf("%s %s %v", carrier, op, err)) }
	}
	if _, ok := carriers.ManifesterOf(carriers.Instrument(plain{}, observe)); ok {
		t.Error("an observed carrier without a manifest step offers one")
	}
	m, ok := carriers.ManifesterOf(carriers.Instrument(manifester{}, observe))
	if !ok {
		t.Fatal("the observed carrier lost its manifest step")
	}
	f, err := m.Manifest(context.Background(), carriers.ManifestRequest{Reference: "man_1"})
	if err != nil || f.Number != "F1" {
		t.Fatalf("Manifest: %+v, %v", f, err)
	}
	if d := cmp.Diff([]string{"Plain manifest <nil>"}, calls); d != "" {
		t.Errorf("observed calls (-want +got):\n%s", d)
	}
}

type checking struct{ plain }

func (checking) CheckCredentials(context.Context) error { return nil }

// A carrier account's clients are observed like the operator's carriers, and
// still prove their credentials through the wrapper.
func TestObservedFactory(t *testing.T) {
	t.Parallel()
	var calls []string
	observe := func(ctx context.Context, carrier, op string) (context.Context, func(error)) {
		return ctx, func(err error) { calls = append(calls, carrier+" "+op) }
	}
	f := carriers.Factory(func(carriers.Credentials) (carriers.Carrier, error) { return checking{}, nil }).Observed(observe)
	c, err := f(carriers.Credentials{Carrier: "Plain"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rates(context.Background(), carriers.Shipment{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Plain rates"}, calls); d != "" {
		t.Errorf("observed calls (-want +got):\n%s", d)
	}
	if ch, ok := carriers.CredentialCheckerOf(c); !ok || ch.CheckCredentials(context.Background()) != nil {
		t.Error("the observed client cannot prove its credentials")
	}
	if _, ok := carriers.CredentialCheckerOf(carriers.Instrument(plain{}, observe)); ok {
		t.Error("a carrier without a credentials check has one")
	}
}
