package sandbox

import (
	"github.com/shipd-dev/shipd/carriers"
)

// MultiPieceService: the sandbox's UPS and FedEx ship several pieces under
// one shipment, as the live ones do; its USPS does not (USPS sells no
// multi-piece shipment: each box is its own label).
func (c *carrier) MultiPieceService(string) bool { return c.t.name != CarrierUSPS }

// piecesCents prices every piece of s with svc in zone z, each piece with
// its surcharges as UPS and FedEx charge them (per package); false when a
// piece is too heavy for the service.
func (c *carrier) piecesCents(s carriers.Shipment, svc service, z int) (int64, bool) {
	var cents int64
	for _, p := range s.AllPieces() {
		oz := carriers.BillableWeightOz(p)
		if svc.maxOz > 0 && oz > svc.maxOz {
			return 0, false
		}
		cents += svc.price(oz, z)
		if s.Options.SignatureConfirmation {
			cents += c.t.signature
		}
		if s.To.Residential {
			cents += c.t.residential
		}
	}
	return cents, true
}
