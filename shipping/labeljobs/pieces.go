package labeljobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
)

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
