package shipping

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	switch {
	case size != "" && !slices.Contains(carriers.LabelSizes(), size):
		return &InputError{Issues: []Issue{{Path: "labelSize", Message: "must be 4x6, letter, a6 or a4"}}}
	case size.PDFOnly() && f != "" && f != carriers.LabelPDF:
		return &InputError{Issues: []Issue{{Path: "labelSize", Message: fmt.Sprintf("%s is a PDF's page; a %s label is 4x6", size, f)}}}
	}
	return nil
}

// offering keeps the rates of the carriers whose labels come in format f
// and size (Descriptor.LabelFormats and LabelSizes; "" is PDF and 4x6): a
// label is bought as asked or not at all. When the selection names a
// carrier that does not offer them, or no carrier left does, the label is
// refused naming the field and who offers it.
func (s *Service) offering(q Quote, sel Selection, f carriers.LabelFormat, size carriers.LabelSize) (Quote, error) {
	f, size = cmp.Or(f, carriers.LabelPDF), cmp.Or(size, carriers.Label4x6)
	offers := func(carrier string) (bool, string, string) {
		d, ok := s.cfg.Catalog.Lookup(carrier)
		if !ok {
			return true, "", ""
		}
		switch {
		case len(d.LabelFormats) > 0 && !slices.Contains(d.LabelFormats, f):
			return false, "labelFormat", fmt.Sprintf("%s labels in %s", f, joinNames(d.LabelFormats))
		case len(d.LabelSizes) > 0 && !slices.Contains(d.LabelSizes, size):
			return false, "labelSize", fmt.Sprintf("%s labels in %s", size, joinNames(d.LabelSizes))
		}
		return true, "", ""
	}
	if sel.Carrier != nil {
		if ok, field, what := offers(*sel.Carrier); !ok {
			asked, offered, _ := strings.Cut(what, " in ")
			return Quote{}, &InputError{Issues: []Issue{{Path: field, Message: fmt.Sprintf("%s does not offer %s; it offers %s", *sel.Carrier, asked, offered)}}}
		}
	}
	kept := q.Rates[:0:0]
	var field, why string
	for _, r := range q.Rates {
		ok, fld, _ := offers(r.Carrier)
		if ok {
			kept = append(kept, r)
		} else {
			field = fld
		}
	}
	if len(kept) == 0 && len(q.Rates) > 0 {
		var by []string
		for _, d := range s.cfg.Catalog.Descriptors() {
			if ok, _, _ := offers(string(d.ID)); ok {
				by = append(by, string(d.ID))
			}
		}
		why = fmt.Sprintf("no carrier that quoted this shipment offers %s %s labels", size, f)
		if len(by) > 0 {
			why += "; " + strings.Join(by, ", ") + " do where they serve it"
		}
		return Quote{}, &InputError{Issues: []Issue{{Path: field, Message: why}}}
	}
	q.Rates = kept
	return q, nil
}

func joinNames[T ~string](names []T) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = string(n)
	}
	return strings.Join(out, ", ")
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
