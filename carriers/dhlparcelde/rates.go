package dhlparcelde

import (
	"context"
	"fmt"

	"github.com/shipd-dev/shipd/carriers"
)

// Rates answers the services that take the shipment, unpriced: DHL Paket
// has no rating API (its prices are the shipper's contract), so no call is
// made and a rate sheet prices the rates (Descriptor.RatesFromSheet). A
// shipment from outside Germany gets none; a return label gets DHL
// Retoure alone, from the countries the Returns API takes returns from; a
// shipment asking for a signature gets Paket alone, the product of DHL's
// signedForByRecipient service.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// What DHL does not carry at all gets no rate before anything else
	// is asked of the shipment (a declaration would not change that).
	switch {
	case s.Return && !returnService.servesReturn(s):
		return nil, nil
	case !s.Return && carriers.NormalizeCountry(s.From.Country) != "DE":
		return nil, nil
	}
	if err := checkShipment(s); err != nil {
		return nil, err
	}
	if s.Return {
		return []carriers.Rate{rateOf(returnService, s)}, nil
	}
	var out []carriers.Rate
	for _, svc := range services {
		if !svc.serves(s) || s.Options.SignatureConfirmation && svc.code != codePaket {
			continue
		}
		out = append(out, rateOf(svc, s))
	}
	return out, nil
}

// codePaket is DHL Paket's product, the one of the signature service.
const codePaket = "V01PAK"

func rateOf(svc service, s carriers.Shipment) carriers.Rate {
	return carriers.Rate{Carrier: carrierName, Service: svc.name, ServiceCategory: svc.category, ProductCode: svc.code,
		EstimatedDays: svc.transitDays(s), Unpriced: true}
}

// checkShipment refuses what no DHL product takes: a parcel without
// weight, and an international shipment across a customs border without
// its declaration.
func checkShipment(s carriers.Shipment) error {
	if !(s.Parcel.WeightOz > 0) {
		return fmt.Errorf("dhlparcelde: parcel weight must be greater than 0 (got %g oz): %w", s.Parcel.WeightOz, carriers.ErrInvalidShipment)
	}
	if carriers.CustomsRequired(s.From, s.To) && s.Customs == nil {
		return fmt.Errorf("dhlparcelde: shipment from %s to %s: %w", carriers.NormalizeCountry(s.From.Country),
			carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	return nil
}
