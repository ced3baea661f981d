package carriers_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

type manifester struct{ plain }

func (manifester) Capabilities() carriers.Capabilities {
	return plain{caps: carriers.CapManifests}.Capabilities()
}

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
	none := carriers.Instrument(plain{}, observe)
	if none.Capabilities().Has(carriers.CapManifests) {
		t.Error("an observed carrier without a manifest step offers one")
	}
	if _, err := none.Manifest(context.Background(), carriers.ManifestRequest{Reference: "man_0"}); !errors.Is(err, carriers.ErrNotSupported) {
		t.Errorf("Manifest of a carrier without a manifest step: %v, want ErrNotSupported", err)
	}
	m := carriers.Instrument(manifester{}, observe)
	if !m.Capabilities().Has(carriers.CapManifests) {
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

func (checking) Capabilities() carriers.Capabilities {
	return plain{caps: carriers.CapCheckCredentials}.Capabilities()
}

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
	if !c.Capabilities().Has(carriers.CapCheckCredentials) || c.CheckCredentials(context.Background()) != nil {
		t.Error("the observed client cannot prove its credentials")
	}
	if p := carriers.Instrument(plain{}, observe); p.Capabilities().Has(carriers.CapCheckCredentials) ||
		!errors.Is(p.CheckCredentials(context.Background()), carriers.ErrNotSupported) {
		t.Error("a carrier without a credentials check has one")
	}
}
