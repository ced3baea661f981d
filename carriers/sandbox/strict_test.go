package sandbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// TestSandboxRefusesWhatCarriersRefuse: the sandbox carriers refuse a
// malformed ZIP code or state, as the live ones do, and FedEx refuses a
// purchase without phone numbers (carriers/requirements.go).
func TestSandboxRefusesWhatCarriersRefuse(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		for name, change := range map[string]func(*carriers.Shipment){
			"zip ABCDE":   func(s *carriers.Shipment) { s.To.Zip = "ABCDE" },
			"zip 99999":   func(s *carriers.Shipment) { s.From.Zip = "99999" },
			"state ZZ":    func(s *carriers.Shipment) { s.To.State = "ZZ" },
			"German zip":  func(s *carriers.Shipment) { s.To = london(); s.To.Country = "DE"; s.Customs = customs() },
			"state names": func(s *carriers.Shipment) { s.To.State = "New York" },
		} {
			t.Run(cn+"/"+name, func(t *testing.T) {
				t.Parallel()
				s := domestic()
				change(&s)
				rs, err := carrierNamed(t, newCarriers(), cn).Rates(context.Background(), s)
				if !errors.Is(err, carriers.ErrInvalidShipment) {
					t.Errorf("Rates = %v, %v; want ErrInvalidShipment", rs, err)
				}
			})
		}
	}
	c := carrierNamed(t, newCarriers(), sandbox.CarrierFedEx)
	req := buyRequest(t, c, "shp_nophone", domestic())
	req.Shipment.To.Phone = ""
	if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("FedEx Buy without the recipient's phone: %v, want ErrRejected", err)
	}
}
