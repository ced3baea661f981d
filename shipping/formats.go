package shipping

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// LabelFormatError: the label's document was asked for in another format
// than the one it was bought in (409 label_format_mismatch). A label has
// one document, fetched or drawn by the carrier in its format; shipd
// converts none.
type LabelFormatError struct {
	ShipmentID string
	Format     carriers.LabelFormat // the format it was bought in
	Asked      carriers.LabelFormat
}

func (e *LabelFormatError) Error() string {
	return fmt.Sprintf("this label was bought as %s, not %s; download label.%s", e.Format, e.Asked, e.Format)
}

// checkLabelFormat refuses a format or size the contract's enums let
// through but that cannot go together: a letter page is a PDF's.
func checkLabelFormat(f carriers.LabelFormat, size carriers.LabelSize) error {
	if f != "" && !slices.Contains(carriers.LabelFormats(), f) {
		return &InputError{Issues: []Issue{{Path: "labelFormat", Message: "must be pdf, png or zpl"}}}
	}
	switch size {
	case "", carriers.Label4x6:
	case carriers.LabelLetter:
		if f != "" && f != carriers.LabelPDF {
			return &InputError{Issues: []Issue{{Path: "labelSize", Message: fmt.Sprintf("letter is a PDF's page; a %s label is 4x6", f)}}}
		}
	default:
		return &InputError{Issues: []Issue{{Path: "labelSize", Message: "must be 4x6 or letter"}}}
	}
	return nil
}

// RowLabelFormat is a row's format; rows written without one are PDFs.
func RowLabelFormat(row store.Shipment) carriers.LabelFormat {
	if row.LabelFormat == "" {
		return carriers.LabelPDF
	}
	return carriers.LabelFormat(row.LabelFormat)
}

// RowLabelSize is a row's size; rows written without one are 4x6.
func RowLabelSize(row store.Shipment) carriers.LabelSize {
	if row.LabelSize == "" {
		return carriers.Label4x6
	}
	return carriers.LabelSize(row.LabelSize)
}

// LabelKeyIn is where a shipment's label document in format f is stored:
// LabelKey with the format's extension.
func LabelKeyIn(shipmentID string, f carriers.LabelFormat) string {
	key := LabelKey(shipmentID)
	if f == "" || f == carriers.LabelPDF {
		return key
	}
	return key[:len(key)-len(".pdf")] + "." + string(f)
}

// LabelFile is a label's document with its format.
type LabelFile struct {
	Data   []byte
	Format carriers.LabelFormat
}

// LabelFile returns the label document of the caller's shipment, in the
// format it was bought in.
func (s *Service) LabelFile(ctx context.Context, c accounts.Caller, id string) (LabelFile, error) {
	row, err := find(ctx, c, id, s.store.CachedShipment)
	if err != nil {
		return LabelFile{}, err
	}
	data, err := s.labelData(ctx, row)
	return LabelFile{Data: data, Format: RowLabelFormat(row)}, err
}

// LabelDocumentIn returns the label document of the caller's shipment when
// it was bought in format f, and a *LabelFormatError when it was not (even
// while the purchase runs: the format is chosen at create).
func (s *Service) LabelDocumentIn(ctx context.Context, c accounts.Caller, id string, f carriers.LabelFormat) ([]byte, error) {
	row, err := find(ctx, c, id, s.store.CachedShipment)
	if err != nil {
		return nil, err
	}
	if got := RowLabelFormat(row); got != f {
		return nil, &LabelFormatError{ShipmentID: row.ID, Format: got, Asked: f}
	}
	return s.labelData(ctx, row)
}

func (s *Service) labelData(ctx context.Context, row store.Shipment) ([]byte, error) {
	if Status(row.Status).LabelPending() {
		return nil, ErrLabelPending
	}
	if row.LabelKey == nil {
		return nil, ErrLabelUnavailable
	}
	data, err := s.cfg.Documents.Get(ctx, *row.LabelKey)
	if errors.Is(err, ErrDocumentNotFound) {
		return nil, ErrLabelUnavailable
	}
	return data, err
}

// Label formats a batch may ask for. Only pdf documents exist today: the
// format is stored with the batch and shown back; per-item formats come with
// the label formats work.
var LabelFormats = []string{"pdf", "png", "zpl"}
