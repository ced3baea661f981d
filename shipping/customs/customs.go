package customs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// Key is where a shipment's customs document (the commercial
// invoice) is stored: beside its label, under a name of its own.
func Key(shipmentID string) string {
	key := shipping.LabelKey(shipmentID)
	return key[:len(key)-len(".pdf")] + ".customs.pdf"
}

// Paperwork is the customs document of a label just bought: the
// carrier's own when it returned one, else the commercial invoice shipd
// renders; nil for a domestic shipment.
func Paperwork(row store.Shipment, shipment carriers.Shipment, label carriers.Label, now time.Time) ([]byte, error) {
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
	row, err := accounts.Find(c, func() (store.Shipment, error) { return s.store.CachedShipment(ctx, c.AccountID, id) },
		func(sh store.Shipment) (string, string) { return sh.AccountID, sh.Mode })
	if err != nil {
		return nil, err
	}
	shipment, international, err := s.CustomsShipment(row)
	if err != nil {
		return nil, err
	}
	if !international {
		return nil, fmt.Errorf("%w: shipment %s is domestic and has no customs document", accounts.ErrNotFound, row.ID)
	}
	if shipping.Status(row.Status).LabelPending() {
		return nil, shipping.ErrLabelPending
	}
	if row.LabelKey == nil {
		return nil, shipping.ErrLabelUnavailable
	}
	return s.CustomsDocumentOf(ctx, row, shipment)
}

// CustomsShipment decodes a shipment's request and says whether it crosses
// a border with a declaration, so has a customs document once bought.
func (s *Service) CustomsShipment(row store.Shipment) (carriers.Shipment, bool, error) {
	in, err := s.ship.StoredInput(row.Request)
	if err != nil {
		return carriers.Shipment{}, false, fmt.Errorf("shipment %s: %w", row.ID, err)
	}
	shipment := in.CarrierShipment()
	return shipment, shipment.Customs != nil && carriers.CustomsRequired(shipment.From, shipment.To), nil
}

// CustomsDocumentOf reads a bought international label's customs document.
// A label bought before shipd kept customs documents gets the invoice
// rendered now from its stored declaration.
func (s *Service) CustomsDocumentOf(ctx context.Context, row store.Shipment, shipment carriers.Shipment) ([]byte, error) {
	data, err := s.cfg.Documents.Get(ctx, Key(row.ID))
	if errors.Is(err, shipping.ErrDocumentNotFound) {
		when := row.CreatedAt
		if row.PurchasedAt != nil {
			when = *row.PurchasedAt
		}
		return paperwork.RenderInvoice(invoiceOf(row, shipment, deref(row.TrackingNumber), when))
	}
	return data, err
}
