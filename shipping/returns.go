package shipping

import (
	"context"
	"errors"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// Return labels. A return label ships a parcel back from the customer
// (From) to the merchant (To). It is made from an outbound shipment of the
// caller's (ReturnOf: its addresses swapped, its parcel, its customs
// declared as returned goods, unless the request gives them), or from the
// addresses given (IsReturn, for orders shipped elsewhere). Only carriers
// and services that make return labels are quoted (carriers.CapReturns), and
// without a selection the original's carrier is preferred.
//
// A return label is paid on use: the create reserves nothing and its charge
// is 0 until the carrier first scans it as used (Used: the customer's
// drop-off, never the pre-transit "label created"). That scan's transaction
// charges the rate plus the fee, as a purchase does (the shipping balance
// first, then the card, live mode), and sets use_charged_at, so that the
// Charge happens once. A label never used is never charged; one refunded
// before use credits nothing. A used label cannot be refunded
// (CanRefundLabel), so a charged return is never credited back either.

// Return says whether a label is a return, and of what.
type Return struct {
	// Of is the id of the shipment this label returns.
	Of *string `json:"returnOf,omitempty"`
	// IsReturn: a return label with the addresses given (implied by Of).
	IsReturn bool `json:"isReturn,omitempty"`
}

// is reports whether the label is a return at all.
func (r Return) is() bool { return r.IsReturn || r.Of != nil }

// ErrReturnNotPurchased: returnOf names a shipment that is not purchased (409 not_purchased).
var ErrReturnNotPurchased = errors.New("returnOf names a shipment that is not purchased: only a purchased label can be returned")

// errReturnOfReturn: returnOf names a return label (422 invalid_field).
var errReturnOfReturn = &InputError{Issues: []Issue{{Path: "returnOf", Message: "is a return label; a return label cannot itself be returned"}}}

// returnInput completes in for r: with r.Of, from the caller's shipment it
// names (the addresses swapped, the parcel and the customs reversed, where in
// leaves them out), also returning that shipment's carrier, which a create
// without selection prefers. Without r.Of, every part must be given.
func (s *Service) returnInput(ctx context.Context, c accounts.Caller, in Input, r Return) (Input, string, error) {
	if err := in.onePieceForm(); err != nil {
		return Input{}, "", err
	}
	if r.Of == nil {
		return in, "", in.complete()
	}
	row, err := find(ctx, c, *r.Of, s.store.CachedShipment)
	if errors.Is(err, accounts.ErrWrongMode) {
		// returnOf is a field of the body, not the resource of the path:
		// the other mode's shipment is as unknown here as another account's.
		err = accounts.ErrNotFound
	}
	if err != nil {
		return Input{}, "", err
	}
	if row.IsReturn {
		return Input{}, "", errReturnOfReturn
	}
	if Status(row.Status) != Purchased {
		return Input{}, "", ErrReturnNotPurchased
	}
	orig, err := s.inputs.decode(row.Request)
	if err != nil {
		return Input{}, "", err
	}
	if !in.From.given() {
		in.From = orig.To
	}
	if !in.To.given() {
		in.To = orig.From
	}
	if !in.Parcel.given() && len(in.Parcels) == 0 {
		in.Parcel, in.Parcels = orig.Parcel, orig.Parcels
	}
	if in.Customs == nil && orig.Customs != nil {
		in.Customs = orig.Customs.reversed()
	}
	return in, row.Carrier, nil
}

// complete refuses an input without addresses or parcel: the contract makes
// them optional for returnOf only.
func (in Input) complete() error {
	var issues []Issue
	if !in.From.given() {
		issues = append(issues, Issue{Path: "fromAddress", Message: "is required", Missing: true})
	}
	if !in.To.given() {
		issues = append(issues, Issue{Path: "toAddress", Message: "is required", Missing: true})
	}
	if !in.Parcel.given() && len(in.Parcels) == 0 {
		issues = append(issues, Issue{Path: "parcel", Message: "is required", Missing: true})
	}
	if len(issues) > 0 {
		return &InputError{Issues: issues}
	}
	return nil
}

// reversed is the declaration of the same goods coming back: the items as
// declared, as returned goods. The parties swap, so do their tax ids; the
// outbound's export filing and incoterm were the outbound's (a return is
// DAP unless the body declares it again).
func (c *Customs) reversed() *Customs {
	out := *c
	out.ContentsType = carriers.ContentsReturnedGoods
	out.Items = append([]CustomsItem(nil), c.Items...)
	out.ImporterTaxID, out.ExporterTaxID = c.ExporterTaxID, c.ImporterTaxID
	// The registration numbers are of one party each (the merchant's EORI
	// and IOSS, the customer's VAT) and have no counterpart on the other
	// side: a return declares them again if it needs them.
	out.ExporterEORI, out.ImporterVAT, out.IOSS = nil, nil, nil
	out.Incoterm, out.EELPFC = nil, nil
	return &out
}

// preferCarrier is sel with the original's carrier when sel names neither
// carrier, service nor category and that carrier has a rate that qualifies.
func preferCarrier(q Quote, sel Selection, carrier string) Selection {
	if carrier == "" || sel.Carrier != nil || sel.Service != nil || sel.ServiceCategory != nil {
		return sel
	}
	pref := sel
	pref.Carrier = &carrier
	if _, err := selectRate(q.Rates, pref); err != nil {
		return sel
	}
	return pref
}

// chargeOnUse charges a return label at the carrier's first scan that uses
// it, in that scan's transaction (row locked by it, written by the caller
// after): the balance part is debited, the rest charged to the card (live
// mode), as at a purchase. Once: use_charged_at marks the charge.
func (s *Service) ChargeOnUse(ctx context.Context, tx *store.Tx, row *store.Shipment, used bool, now time.Time) error {
	if !row.IsReturn || row.UseChargedAt != nil || !used {
		return nil
	}
	if err := s.reserve(ctx, tx, row); err != nil {
		return err
	}
	if err := s.recordReserve(ctx, tx, *row, now); err != nil {
		return err
	}
	if err := s.Charge(ctx, tx, *row, now); err != nil {
		return err
	}
	row.UseChargedAt = &now
	return nil
}

// CanReturn says whether a return label can be made of the shipment
// (returnOf): a purchased label that is not itself a return.
func (sh Shipment) CanReturn() bool { return sh.Status == Purchased && !sh.IsReturn }

// UsedBy reports whether a poll's answer shows a use: its status, or any
// of its scans (a label polled late may already be delivered).
func UsedBy(status string, events []carriers.TrackingEvent) bool {
	if Used(status) {
		return true
	}
	for _, ev := range events {
		if Used(ev.Status) {
			return true
		}
	}
	return false
}

// paid reports whether a label's price was paid: always for an outbound
// label (at create and purchase), for a return only once used.
func paid(row store.Shipment) bool { return !row.IsReturn || row.UseChargedAt != nil }
