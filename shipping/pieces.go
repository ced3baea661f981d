package shipping

import (
	"encoding/json"
	"fmt"

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
	// WeightG is the piece's weight as given, for a piece in grams.
	WeightG *float64 `json:"weightG,omitempty"`
}

// errBothParcelForms: the caller gave parcel and parcels; which one it
// meant cannot be guessed.
var errBothParcelForms = &InputError{Issues: []Issue{{Path: "parcels", Message: "cannot be given with parcel: give one parcel or several parcels"}}}

// onePieceForm refuses an input with both parcel and parcels. It runs on the
// input as the caller gave it, before pieces() folds one into the other.
func (in Input) onePieceForm() error {
	if in.Parcel.given() && len(in.Parcels) > 0 {
		return errBothParcelForms
	}
	return in.parcelIssues()
}

// Pieces folds parcels into the single-parcel form: one piece is a parcel;
// of several, Parcel is the first (the shipment's parcel as older clients
// read it).
func (in Input) Pieces() Input {
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
func carrierParcel(p Parcel) carriers.Parcel {
	if p.Metric() {
		return carriers.MetricParcelOf(carriers.MetricParcel{LengthCm: deref(p.LengthCm), WidthCm: deref(p.WidthCm), HeightCm: deref(p.HeightCm), WeightG: deref(p.WeightG)})
	}
	return carriers.Parcel{WeightOz: deref(p.WeightOz), LengthIn: deref(p.LengthIn), WidthIn: deref(p.WidthIn), HeightIn: deref(p.HeightIn)}
}

// errPiecesPNG: a PNG is one image, one label; a multi-piece shipment has a
// label per piece, which a PDF (a page each) or ZPL (a label each) holds.
var errPiecesPNG = &InputError{Issues: []Issue{{Path: "labelFormat", Message: "png holds one label: a shipment of several parcels is printed as pdf (a page per parcel) or zpl (a label per parcel)"}}}

// CheckPieceFormat refuses a PNG label for a multi-piece input (normalized).
func CheckPieceFormat(in Input, f carriers.LabelFormat) error {
	if in.MultiPiece() && f == carriers.LabelPNG {
		return errPiecesPNG
	}
	return nil
}

// PackagesOf records the pieces a carrier sold: each piece's tracking
// number beside its weight; nil for a single parcel.
func PackagesOf(in Input, label carriers.Label) ([]Package, error) {
	if !in.MultiPiece() {
		return nil, nil
	}
	if len(label.Pieces) != len(in.Parcels) {
		return nil, fmt.Errorf("the carrier sold %d pieces for a shipment of %d", len(label.Pieces), len(in.Parcels))
	}
	out := make([]Package, len(in.Parcels))
	for i, p := range in.Parcels {
		out[i] = Package{TrackingNumber: label.Pieces[i], WeightOz: p.Ounces(), WeightG: p.WeightG}
	}
	return out, nil
}

// EncodePackages is the stored form of a shipment's packages (nil: none).
func EncodePackages(ps []Package) (*string, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(ps)
	if err != nil {
		return nil, fmt.Errorf("encode packages: %w", err)
	}
	s := string(raw)
	return &s, nil
}

// decodePackages reads a row's packages; a row that does not decode shows
// none rather than failing every read of the shipment.
func decodePackages(raw *string) []Package {
	if raw == nil {
		return nil
	}
	var ps []Package
	if err := json.Unmarshal([]byte(*raw), &ps); err != nil {
		return nil
	}
	return ps
}

// PieceNumbers are the tracking numbers of a row's pieces, for a void.
func PieceNumbers(raw *string) []string {
	var out []string
	for _, p := range decodePackages(raw) {
		out = append(out, p.TrackingNumber)
	}
	return out
}

// Boxes is how many boxes a purchased label's row ships: its pieces, or
// one for a single parcel (a pickup's driver collects each).
func Boxes(packages *string) int {
	return max(len(decodePackages(packages)), 1)
}
