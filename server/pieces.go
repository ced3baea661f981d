package server

import (
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/shipping"
)

// piecesView is a multi-piece shipment's parcels and packages, both absent
// for a single parcel (the shipment's parcel says it all).
func piecesView(parcels []shipping.Parcel, packages []shipping.Package) (*[]gen.Parcel, *[]gen.Package) {
	var ps *[]gen.Parcel
	if len(parcels) > 0 {
		list := make([]gen.Parcel, len(parcels))
		for i, p := range parcels {
			list[i] = parcelView(p)
		}
		ps = &list
	}
	var pk *[]gen.Package
	if len(packages) > 0 {
		list := make([]gen.Package, len(packages))
		for i, p := range packages {
			list[i] = gen.Package{TrackingNumber: p.TrackingNumber, WeightOz: p.WeightOz, WeightG: p.WeightG}
		}
		pk = &list
	}
	return ps, pk
}
