package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// A long manifest goes on to more pages and still lists every number; the
// form shows the shipper, the date, the count and the form number.
func TestRenderManifestPagesALongList(t *testing.T) {
	t.Parallel()
	numbers := make([]string, 300)
	for i := range numbers {
		numbers[i] = fmt.Sprintf("9400111899%012d", i)
	}
	date := time.Date(2026, 11, 27, 17, 0, 0, 0, time.UTC)
	pdf, err := sandbox.RenderManifest(sandbox.ManifestInput{Title: "USPS SCAN FORM - PS FORM 5630", Number: "9475711200000000000042",
		From: carriers.Address{Name: "Shop", Street1: "1 Market St", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"},
		Date: date, TrackingNumbers: numbers})
	if err != nil {
		t.Fatal(err)
	}
	body := string(pdf)
	if n := len(regexp.MustCompile(`/Type /Page\b[^s]`).FindAllString(body, -1)); n < 2 {
		t.Errorf("%d pages for 300 tracking numbers, want more than one", n)
	}
	for _, want := range []string{"(9475711200000000000042)", "1 MARKET ST", "11/27/2026", "(300)", numbers[0], numbers[299]} {
		if !strings.Contains(body, want) {
			t.Errorf("the form lacks %q", want)
		}
	}
}

// USPS and FedEx have a manifest step, UPS none; the same reference gives
// the same form number; the trigger refuses.
func TestSandboxManifesters(t *testing.T) {
	t.Parallel()
	byName := map[string]carriers.Carrier{}
	for _, c := range usCarriers(sandbox.New(sandbox.Config{})) {
		byName[c.Name()] = c
	}
	if byName["UPS"].Capabilities().Has(carriers.CapManifests) {
		t.Error("the sandbox UPS has a manifest step")
	}
	m := byName["USPS"]
	if !m.Capabilities().Has(carriers.CapManifests) {
		t.Fatal("the sandbox USPS has no manifest step")
	}
	req := carriers.ManifestRequest{Reference: "man_1", From: carriers.Address{Name: "Shop", Street1: "1 Market St", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"},
		ShipDate: time.Now(), Labels: []carriers.ManifestLabel{{TrackingNumber: "9400111899000000000001"}}, TestMode: true}
	a, err := m.Manifest(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Manifest(context.Background(), req)
	if err != nil || a.Number != b.Number {
		t.Errorf("a retried manifest: %q then %q (%v)", a.Number, b.Number, err)
	}
	req.From.Name = sandbox.TriggerManifestRejected
	if _, err := m.Manifest(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("the trigger: %v, want ErrRejected", err)
	}
}
