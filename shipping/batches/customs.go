package batches

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// BatchCustomsPDF returns a function that writes the customs document of
// every purchased international label of the batch, in item order, as one
// PDF: the paperwork to print beside labels.pdf, on office paper rather
// than the label printer. ErrLabelPending while any item is being bought;
// accounts.ErrNotFound when no purchased label of the batch crosses a
// border. The batch is read a page at a time, as for labels.pdf.
func (s *Service) BatchCustomsPDF(ctx context.Context, c accounts.Caller, id string) (func(io.Writer) error, error) {
	b, err := s.GetBatch(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if b.Counts.Paying+b.Counts.Pending > 0 {
		return nil, shipping.ErrLabelPending
	}
	// Looked for first, so that a batch with no paperwork is a 404 before
	// the 200 is written.
	found := false
	if err := s.eachBatchCustoms(ctx, id, func(store.Shipment, carriers.Shipment) error {
		found = true
		return errStopWalk
	}); err != nil && !errors.Is(err, errStopWalk) {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: no purchased label of batch %s crosses a border, so it has no customs documents", accounts.ErrNotFound, id)
	}
	return func(w io.Writer) error {
		m := pdfmerge.NewMerger(w, s.cfg.PDFBudget)
		err := s.eachBatchCustoms(ctx, id, func(row store.Shipment, shipment carriers.Shipment) error {
			doc, err := s.customs.CustomsDocumentOf(ctx, row, shipment)
			if err != nil {
				return fmt.Errorf("customs document of %s: %w", row.ID, err)
			}
			if err := m.Add(ctx, doc); errors.Is(err, pdfmerge.ErrUnmergeable) {
				s.log.WarnContext(ctx, "a customs document could not be merged; a page names it instead", slog.String("shipment_id", row.ID))
				m.Placeholder("The customs document of " + row.ID + " could not be merged: download it from /api/v1/labels/" + row.ID + "/customs.pdf")
				return nil
			}
			return err
		})
		if err != nil {
			return err
		}
		return m.Close()
	}, nil
}

// errStopWalk ends a walk early without an error.
var errStopWalk = errors.New("stop")

// eachBatchCustoms calls fn for every purchased international item of the
// batch, in item order, a page of items at a time.
func (s *Service) eachBatchCustoms(ctx context.Context, batchID string, fn func(store.Shipment, carriers.Shipment) error) error {
	p := paging.Request{Limit: batchLabelsPage}
	for {
		rows, more, err := s.store.BatchShipments(ctx, batchID, p)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if shipping.Status(row.Status) != shipping.Purchased || row.LabelKey == nil {
				continue
			}
			shipment, international, err := s.customs.CustomsShipment(row)
			if err != nil {
				return err
			}
			if !international {
				continue
			}
			if err := fn(row, shipment); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		p.After = rows[len(rows)-1].ID
	}
}
