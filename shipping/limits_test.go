package shipping_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
)

// TestAddressLimitsMatchContract: the domain's bounds of an address's
// fields are the ones openapi.yaml's AddressInput gives the API.
func TestAddressLimitsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Components.Schemas["AddressInput"]
	if schema == nil {
		t.Fatal("openapi.yaml has no AddressInput")
	}
	got := map[string]int{}
	for name, prop := range schema.Value.Properties {
		if prop.Value.MaxLength != nil && name != "country" {
			got[name] = int(*prop.Value.MaxLength)
		}
	}
	if d := cmp.Diff(shipping.AddressFieldLimits(), got); d != "" {
		t.Errorf("address field bounds (-domain +openapi.yaml):\n%s", d)
	}
}

// TestPurchaseFieldsMatchContract: what a purchase needs of an address and
// a quote does not (PurchaseAddressFields, each rate's missingFields) is
// what the contract's AddressInput requires and its QuoteAddressInput does
// not; a quote's addresses are QuoteAddressInput, a create's AddressInput.
func TestPurchaseFieldsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	required := func(name string) []string {
		s := doc.Components.Schemas[name]
		if s == nil {
			t.Fatalf("openapi.yaml has no %s", name)
		}
		return s.Value.Required
	}
	var purchaseOnly []string
	for _, f := range required("AddressInput") {
		if !slices.Contains(required("QuoteAddressInput"), f) {
			purchaseOnly = append(purchaseOnly, f)
		}
	}
	if d := cmp.Diff(shipping.PurchaseAddressFields(), purchaseOnly); d != "" {
		t.Errorf("fields a purchase needs and a quote does not (-domain +openapi.yaml):\n%s", d)
	}
	for schema, want := range map[string]string{"QuoteRequest": "QuoteAddressInput", "CreateLabelRequest": "AddressInput"} {
		for _, side := range []string{"fromAddress", "toAddress"} {
			if ref := doc.Components.Schemas[schema].Value.Properties[side].Ref; !strings.HasSuffix(ref, "/"+want) {
				t.Errorf("%s.%s is %q, want %s", schema, side, ref, want)
			}
		}
	}
}

// The checks of the doors without a schema refuse what the schema refuses,
// each at its path, and pass a field at its bound (counted in characters).
func TestAddressLengthAndRequiredIssues(t *testing.T) {
	t.Parallel()
	long := func(n int) string {
		s := make([]rune, n)
		for i := range s {
			s[i] = 'é'
		}
		return string(s)
	}
	atBound := shipping.Address{Name: ptr(long(shipping.MaxAddressNameLength)), Street1: long(shipping.MaxAddressStreetLength),
		City: long(shipping.MaxAddressCityLength), Zip: long(shipping.MaxAddressZipLength), Country: "US"}
	if issues := shipping.AddressLengthIssues("address.", atBound); len(issues) != 0 {
		t.Errorf("fields at their bounds: %v", issues)
	}
	over := atBound
	over.City, over.Phone = long(shipping.MaxAddressCityLength+1), ptr(long(shipping.MaxAddressPhoneLength+1))
	var paths []string
	for _, is := range shipping.AddressLengthIssues("address.", over) {
		paths = append(paths, is.Path)
	}
	if d := cmp.Diff([]string{"address.city", "address.phone"}, paths); d != "" {
		t.Errorf("fields past their bounds (-want +got):\n%s", d)
	}
	paths = nil
	for _, is := range shipping.AddressRequiredIssues("address.", shipping.Address{City: "Paris", Country: "FR"}) {
		paths = append(paths, is.Path)
	}
	if d := cmp.Diff([]string{"address.street1", "address.zip"}, paths); d != "" {
		t.Errorf("required fields (-want +got):\n%s", d)
	}
}

func ptr[T any](v T) *T { return &v }
