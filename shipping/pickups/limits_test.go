package pickups

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
)

// TestPickupLimitsMatchContract: the domain's limits of a pickup request
// are the ones openapi.yaml's PickupCreateRequest gives the API.
func TestPickupLimitsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["PickupCreateRequest"]
	if schema == nil {
		t.Fatal("openapi.yaml has no PickupCreateRequest")
	}
	props := schema.Value.Properties
	type limits struct {
		MinPackages, MaxPackages, MaxShipments, MaxInstructions int
		MaxWeightOz                                             float64
	}
	n := func(p *uint64) int {
		if p == nil {
			return 0
		}
		return int(*p)
	}
	f := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	got := limits{
		MinPackages: int(f(props["packageCount"].Value.Min)), MaxPackages: int(f(props["packageCount"].Value.Max)),
		MaxShipments: n(props["shipmentIds"].Value.MaxItems), MaxInstructions: n(props["instructions"].Value.MaxLength),
		MaxWeightOz: f(props["totalWeightOz"].Value.Max),
	}
	want := limits{MinPickupPackages, MaxPickupPackages, MaxPickupShipments, MaxPickupInstructionsLength, MaxPickupWeightOz}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pickup limits (-domain +openapi.yaml):\n%s", d)
	}
	if ref := props["address"].Ref; !strings.HasSuffix(ref, "/AddressInput") {
		t.Errorf("the pickup's address is %q, not AddressInput (whose bounds shipping.AddressFieldLimits holds)", ref)
	}
}

// The domain refuses what the API's schema refuses, at the same paths,
// for the doors without the schema (the settings pages).
func TestPickupSchemaRulesAtTheDomain(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	label := s.Label(t, "Ada Lovelace")
	for name, tc := range map[string]struct {
		edit func(*NewPickup)
		path string
	}{
		"no packages":       {func(in *NewPickup) { in.PackageCount = new(int) }, "packageCount"},
		"1000 packages":     {func(in *NewPickup) { n := MaxPickupPackages + 1; in.PackageCount = &n }, "packageCount"},
		"long instructions": {func(in *NewPickup) { in.Instructions = strings.Repeat("x", MaxPickupInstructionsLength+1) }, "instructions"},
		"no street":         {func(in *NewPickup) { in.Address.Street1 = "" }, "address.street1"},
		"long city":         {func(in *NewPickup) { in.Address.City = strings.Repeat("é", shipping.MaxAddressCityLength+1) }, "address.city"},
		"no weight":         {func(in *NewPickup) { w := 0.0; in.TotalWeightOz = &w }, "totalWeightOz"},
	} {
		in := request(label.ID)
		tc.edit(&in)
		_, _, err := svc.CreatePickup(context.Background(), s.Caller, in)
		var input *shipping.InputError
		if !errors.As(err, &input) {
			t.Errorf("%s: %v, want an InputError", name, err)
			continue
		}
		found := false
		for _, is := range input.Issues {
			found = found || is.Path == tc.path
		}
		if !found {
			t.Errorf("%s: issues %v, want one at %s", name, input.Issues, tc.path)
		}
	}
}
