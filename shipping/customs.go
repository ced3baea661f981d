package shipping

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// customsIssues checks the declaration beyond the schema: HS numbers of 6
// to 10 digits, and the US export filing rule. A US export whose goods
// under one Schedule B number are worth more than $2,500 needs EEI filed
// in AES, so its paperwork must cite the ITN ("AES X..."); an exemption
// legend there would be a false declaration. Below the threshold anything
// the caller cites is theirs to answer for, and the default is NOEEI
// 30.37(a) (carriers.Customs.EEL).
func (in Input) customsIssues() []Issue {
	c := in.Customs
	if c == nil {
		return nil
	}
	var issues []Issue
	for i, it := range c.Items {
		if it.HSTariffNumber == nil {
			continue
		}
		if _, ok := carriers.HSDigits(*it.HSTariffNumber); !ok {
			issues = append(issues, Issue{Path: fmt.Sprintf("customs.items.%d.hsTariffNumber", i),
				Message: "must be an HS tariff number of 6 to 10 digits (dots and spaces between them allowed), as 6109.10"})
		}
	}
	if len(issues) > 0 || !in.international() || !strings.EqualFold(in.From.Country, "US") {
		return issues
	}
	cc := in.carrierShipment().Customs
	values := cc.ScheduleBValues()
	if len(values) == 0 {
		return nil
	}
	top := values[0]
	if top.ValueCents <= carriers.EEIThresholdCents {
		return nil
	}
	which := "Schedule B number " + top.Number
	if top.Number == "" {
		which = "the items without an hsTariffNumber (counted together)"
	}
	rule := fmt.Sprintf("US exports with more than $2,500 under one Schedule B number need Electronic Export Information filed in AES and its ITN: give eelPfc as \"AES X\" and the 14 digits of the ITN (%s declares $%d.%02d)",
		which, top.ValueCents/100, top.ValueCents%100)
	if c.EELPFC == nil || strings.TrimSpace(*c.EELPFC) == "" {
		return []Issue{{Path: "customs.eelPfc", Message: "is required: " + rule, Missing: true}}
	}
	if _, ok := carriers.ITN(*c.EELPFC); !ok {
		return []Issue{{Path: "customs.eelPfc", Message: "must cite the ITN: " + rule}}
	}
	return nil
}

// CustomsKey is where a shipment's customs document (the commercial
// invoice) is stored: beside its label, under a name of its own.
func CustomsKey(shipmentID string) string {
	key := LabelKey(shipmentID)
	return key[:len(key)-len(".pdf")] + ".customs.pdf"
}

// customsPaperwork is the customs document of a label just bought: the
// carrier's own when it returned one, else the commercial invoice shipd
// renders; nil for a domestic shipment.
func customsPaperwork(row store.Shipment, shipment carriers.Shipment, label carriers.Label, now time.Time) ([]byte, error) {
	if shipment.Customs == nil || !carriers.CustomsRequired(shipment.From, shipment.To) {
		return nil, nil
	}
	if len(label.CustomsDocument) > 0 {
		return label.CustomsDocument, nil
	}
	doc, err := paperwork.RenderInvoice(invoiceOf(row, shipment, label.TrackingNumber, now))
	if err != nil {
		return nil, fmt.Errorf("render the commercial invoice: %w", err)
	}
	return doc, nil
}

func invoiceOf(row store.Shipment, shipment carriers.Shipment, tracking string, date time.Time) paperwork.Invoice {
	return paperwork.Invoice{
		Reference: row.ID, Carrier: row.Carrier, Service: row.Service, TrackingNumber: tracking, Date: date,
		From: shipment.From, To: shipment.To, Customs: *shipment.Customs, TestMode: accounts.Mode(row.Mode) == accounts.Test,
	}
}

// CustomsDocument returns the customs document of the caller's
// international shipment: ErrLabelPending while it is being bought,
// accounts.ErrNotFound for a domestic shipment (it has none).
func (s *Service) CustomsDocument(ctx context.Context, c accounts.Caller, id string) ([]byte, error) {
	row, err := find(ctx, c, id, s.store.CachedShipment)
	if err != nil {
		return nil, err
	}
	shipment, international, err := s.customsShipment(row)
	if err != nil {
		return nil, err
	}
	if !international {
		return nil, fmt.Errorf("%w: shipment %s is domestic and has no customs document", accounts.ErrNotFound, row.ID)
	}
	if Status(row.Status).LabelPending() {
		return nil, ErrLabelPending
	}
	if row.LabelKey == nil {
		return nil, ErrLabelUnavailable
	}
	return s.customsDocumentOf(ctx, row, shipment)
}

// customsShipment decodes a shipment's request and says whether it crosses
// a border with a declaration, so has a customs document once bought.
func (s *Service) customsShipment(row store.Shipment) (carriers.Shipment, bool, error) {
	in, err := s.inputs.decode(row.Request)
	if err != nil {
		return carriers.Shipment{}, false, fmt.Errorf("shipment %s: %w", row.ID, err)
	}
	shipment := in.carrierShipment()
	return shipment, shipment.Customs != nil && carriers.CustomsRequired(shipment.From, shipment.To), nil
}

// customsDocumentOf reads a bought international label's customs document.
// A label bought before shipd kept customs documents gets the invoice
// rendered now from its stored declaration.
func (s *Service) customsDocumentOf(ctx context.Context, row store.Shipment, shipment carriers.Shipment) ([]byte, error) {
	data, err := s.cfg.Documents.Get(ctx, CustomsKey(row.ID))
	if errors.Is(err, ErrDocumentNotFound) {
		when := row.CreatedAt
		if row.PurchasedAt != nil {
			when = *row.PurchasedAt
		}
		return paperwork.RenderInvoice(invoiceOf(row, shipment, deref(row.TrackingNumber), when))
	}
	return data, err
}

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
		return nil, ErrLabelPending
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
			doc, err := s.customsDocumentOf(ctx, row, shipment)
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
			if Status(row.Status) != Purchased || row.LabelKey == nil {
				continue
			}
			shipment, international, err := s.customsShipment(row)
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

// dutiesQuoted reports whether a rate may sell shipment: a DDP shipment of
// goods only with a rate that quotes its duties and taxes (DutiesCents),
// since they are charged with the label. A carrier that ships DDP without
// quoting them would bill the platform's account for duties no customer
// paid; documents pay none.
func dutiesQuoted(shipment carriers.Shipment, r carriers.Rate) bool {
	c := shipment.Customs
	if !c.DDP() || !carriers.CustomsRequired(shipment.From, shipment.To) || c.ContentsType == carriers.ContentsDocuments {
		return true
	}
	return r.DutiesCents > 0
}

// International reports whether the shipment crosses a border with a
// declaration, and so has a customs document once its label is bought.
func (s Shipment) International() bool {
	return s.Input.Customs != nil && s.Input.customsRequired()
}
