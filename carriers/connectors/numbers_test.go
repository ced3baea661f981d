package connectors_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/connectors"
)

func TestTrackingNumberCarriers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		want   []string
	}{
		{"1Z999AA10123456784", []string{"UPS"}},
		{"1z 999 aa1 0123 4567 84", []string{"UPS"}},
		{"9400111899223344556677", []string{"USPS"}},     // 22 digits
		{"94001118992233445566", []string{"USPS"}},       // 20 digits
		{"92612999897543581074711582", []string{"USPS"}}, // 26 digits, 9x
		{"420100019400111899223344556677", []string{"USPS"}},
		{"123456789012", []string{"FedEx"}},
		{"123456789012345", []string{"FedEx"}},
		{"9611020987654312345672", []string{"USPS", "FedEx"}}, // in the registry's order
		{"12345", nil},
		{"1Z123", nil},
		{"ABCDEFGHIJKL", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, connectors.Catalog().TrackingNumberCarriers(tt.number)); diff != "" {
			t.Errorf("TrackingNumberCarriers(%q) (-want +got):\n%s", tt.number, diff)
		}
	}
}

func TestWellFormedTrackingNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		carrier, number string
		want            bool
	}{
		{"UPS", "1Z999AA10123456784", true},
		{"ups", "1Z999AA10123456784", true},
		{"USPS", "1Z999AA10123456784", false},
		{"FedEx", "123456789012", true},
		{"FedEx", "12345678901", false},
		{"DHL", "anything", true},
	}
	for _, tt := range tests {
		if got := connectors.Catalog().WellFormedTrackingNumber(tt.carrier, tt.number); got != tt.want {
			t.Errorf("WellFormedTrackingNumber(%q, %q) = %v, want %v", tt.carrier, tt.number, got, tt.want)
		}
	}
}

// Each sandbox twin's numbers are its own: a number of one twin's form
// names that carrier and no other, and what is not of a twin's form
// (a digit short, a letter among the digits, a live number) names none.
func TestSandboxTrackingNumberCarrier(t *testing.T) {
	t.Parallel()
	catalog := connectors.Catalog()
	for _, d := range catalog.Descriptors() {
		if d.Sandbox == nil {
			continue
		}
		digits := strings.Repeat("7", d.Sandbox.TrackingDigits)
		n := d.Sandbox.TrackingPrefix + digits
		if got, ok := catalog.SandboxTrackingNumberCarrier(strings.ToLower(n)); !ok || got != string(d.ID) {
			t.Errorf("%s: SandboxTrackingNumberCarrier(%q) = %q, %v; want %s", d.ID, n, got, ok, d.ID)
		}
		for _, not := range []string{n[:len(n)-1], n + "7", d.Sandbox.TrackingPrefix + "A" + digits[1:]} {
			if got, ok := catalog.SandboxTrackingNumberCarrier(not); ok {
				t.Errorf("%s: SandboxTrackingNumberCarrier(%q) = %q, want none", d.ID, not, got)
			}
		}
	}
	if got, ok := catalog.SandboxTrackingNumberCarrier("1Z999AA10123456784"); ok {
		t.Errorf("a live UPS number is %s's sandbox's", got)
	}
}
