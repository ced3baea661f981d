package shipping

import (
	"github.com/shipd-dev/shipd/carriers"
)

// Multi-piece shipments: several boxes under one shipment, bought from a
// carrier that ships them together (one master tracking number, one label
// per box). The caller gives `parcels` instead of `parcel`; once normalized
// an Input of one piece has Parcel only, and one of several has Parcels with
// Parcel their first, so every single-parcel path reads as before.

// MaxPieces is the most pieces a shipment may have, as the contract says
// (UPS takes up to 200 and FedEx up to 999 pieces per shipment; 20 keeps
// a label document a size one prints at once).
const MaxPieces = 20

// Package is one piece of a purchased multi-piece shipment: its own tracking
// number (the first piece's is the master, the shipment's) and its weight.
type Package struct {
	TrackingNumber string  `json:"trackingNumber"`
	WeightOz       float64 `json:"weightOz"`
}

// errBothParcelForms: the caller gave parcel and parcels; which one it
// meant cannot be guessed.
var errBothParcelForms = &InputError{Issues: []Issue{{Path: "parcels", Message: "cannot be given with parcel: give one parcel or several parcels"}}}

// onePieceForm refuses an input with both parcel and parcels. It runs on the
// input as the caller gave it, before pieces() folds one into the other.
func (in Input) onePieceForm() error {
	if in.Parcel.WeightOz != 0 && len(in.Parcels) > 0 {
		return errBothParcelForms
	}
	return nil
}

// pieces folds parcels into the single-parcel form: one piece is a parcel;
// of several, Parcel is the first (the shipment's parcel as older clients
// read it).
func (in Input) pieces() Input {
	switch len(in.Parcels) {
	case 0:
	case 1:
		in.Parcel, in.Parcels = in.Parcels[0], nil
	default:
		in.Parcel = in.Parcels[0]
	}
	return in
}

// MultiPiece reports whether the shipment has several pieces.
func (in Input) MultiPiece() bool { return len(in.Parcels) > 1 }

// pieceCount is the number of pieces, 1 for a single parcel.
func (in Input) pieceCount() int { return max(len(in.Parcels), 1) }

func carrierParcel(p Parcel) carriers.Parcel {
	return carriers.Parcel{WeightOz: p.WeightOz, LengthIn: deref(p.LengthIn), WidthIn: deref(p.WidthIn), HeightIn: deref(p.HeightIn)}
}
