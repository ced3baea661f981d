package connectors_test

import (
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
