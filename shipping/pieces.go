package shipping

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
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
func carrierParcel(p Parcel) carriers.Parcel {
	return carriers.Parcel{WeightOz: p.WeightOz, LengthIn: deref(p.LengthIn), WidthIn: deref(p.WidthIn), HeightIn: deref(p.HeightIn)}
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

// packagesOf records the pieces a carrier sold: each piece's tracking
// number beside its weight; nil for a single parcel.
func packagesOf(in Input, label carriers.Label) ([]Package, error) {
	if !in.MultiPiece() {
		return nil, nil
	}
	if len(label.Pieces) != len(in.Parcels) {
		return nil, fmt.Errorf("the carrier sold %d pieces for a shipment of %d", len(label.Pieces), len(in.Parcels))
	}
	out := make([]Package, len(in.Parcels))
	for i, p := range in.Parcels {
		out[i] = Package{TrackingNumber: label.Pieces[i], WeightOz: p.WeightOz}
	}
	return out, nil
}

// encodePackages is the stored form of a shipment's packages (nil: none).
func encodePackages(ps []Package) (*string, error) {
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

// pieceNumbers are the tracking numbers of a row's pieces, for a void.
func pieceNumbers(raw *string) []string {
	var out []string
	for _, p := range decodePackages(raw) {
		out = append(out, p.TrackingNumber)
	}
	return out
}

// joinPieces makes a label answered as a document per piece (FedEx) one
// document: a PDF of their pages (internal/pdfmerge), or their ZPL labels
// one after the other. A piece whose PDF cannot be read makes the whole
// label unusable (errUnusable): the purchase fails and the shipment, every
// piece with it, is voided (unusable.go), rather than a label sold with a
// page missing.
func (s *Service) joinPieces(ctx context.Context, id string, label carriers.Label) (carriers.Label, error) {
	if len(label.PieceDocuments) == 0 {
		return label, nil
	}
	docs := label.PieceDocuments
	label.PieceDocuments = nil
	if label.Format != "" && label.Format != carriers.LabelPDF {
		label.Document = bytes.Join(docs, nil)
		return label, nil
	}
	var buf bytes.Buffer
	m := pdfmerge.NewMerger(&buf, s.cfg.PDFBudget)
	for i, doc := range docs {
		if err := m.Add(ctx, doc); errors.Is(err, pdfmerge.ErrUnmergeable) {
			return label, fmt.Errorf("%w: the PDF of piece %s: %w", errUnusable, pieceAt(label.Pieces, i), err)
		} else if err != nil {
			return label, err
		}
	}
	if err := m.Close(); err != nil {
		return label, err // only a writer failing: a bytes.Buffer does not
	}
	label.Document, label.Format = buf.Bytes(), carriers.LabelPDF
	return label, nil
}
func pieceAt(numbers []string, i int) string {
	if i < len(numbers) {
		return numbers[i]
	}
	return strconv.Itoa(i + 1)
}

// wholeLabel reports whether a label found by a rescued purchase can be
// adopted: for a multi-piece shipment, only with every piece's number (UPS
// Label Recovery gives the first package's label alone); otherwise it is
// voided, the whole shipment with it, and bought again.
func wholeLabel(req carriers.BuyRequest, found carriers.Label) bool {
	n := len(req.Shipment.Pieces)
	return n < 2 || len(found.Pieces) == n
}
