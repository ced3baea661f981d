package shipping

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
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
	cc := in.CarrierShipment().Customs
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

// CustomsPaperwork is the customs document of a label just bought: the
// carrier's own when it returned one, else the commercial invoice shipd
// renders; nil for a domestic shipment.
func CustomsPaperwork(row store.Shipment, shipment carriers.Shipment, label carriers.Label, now time.Time) ([]byte, error) {
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
	shipment, international, err := s.CustomsShipment(row)
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
	return s.CustomsDocumentOf(ctx, row, shipment)
}

// CustomsShipment decodes a shipment's request and says whether it crosses
// a border with a declaration, so has a customs document once bought.
func (s *Service) CustomsShipment(row store.Shipment) (carriers.Shipment, bool, error) {
	in, err := s.inputs.decode(row.Request)
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
	return s.Input.Customs != nil && s.Input.CustomsRequired()
}
