package dhlexpress

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// referenceWindow is how far back FindPurchase looks for a shipment by its
// reference: DHL wants a date range for a search by reference, and a
// purchase is rescued within hours of its first attempt (shipping's
// purchase jobs give up after days).
const referenceWindow = 14 * 24 * time.Hour

// FindPurchase asks DHL's tracking which shipment the account created with
// the purchase's reference (the CU customer reference Buy sends): GET
// /tracking by shipmentReference, shipperAccountNumber and a date range.
// DHL gives no label document again (its get-image returns the waybill
// document and the invoice, not the transport label), so the label found
// has none: the purchase flow then asks Void, which DHL cannot do, and
// reports the first waybill (audit purchase.orphan_not_voided: cancel it
// with DHL) before buying again.
func (c *Carrier) FindPurchase(ctx context.Context, req carriers.BuyRequest) (carriers.Label, bool, error) {
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, false, nil
	}
	if len(ref) > maxReferenceLen {
		ref = ref[:maxReferenceLen] // as Buy sent it
	}
	now := c.now().UTC()
	q := url.Values{
		"shipmentReference":     {ref},
		"shipmentReferenceType": {referenceType},
		"shipperAccountNumber":  {c.account},
		"dateRangeFrom":         {now.Add(-referenceWindow).Format(time.DateOnly)},
		"dateRangeTo":           {now.Add(24 * time.Hour).Format(time.DateOnly)},
		"trackingView":          {"shipment-details-only"},
		"levelOfDetail":         {"piece"},
	}
	body, err := c.do(ctx, request{op: carriers.OpFindPurchase, method: http.MethodGet, path: trackingPath, query: q})
	if notFound(err) {
		// "No Shipments Found for ReferenceID": nothing was sold.
		return carriers.Label{}, false, nil
	}
	if err != nil {
		return carriers.Label{}, false, c.scrub(err)
	}
	resp, err := decodeTracking(body)
	if err != nil {
		return carriers.Label{}, false, c.scrub(err)
	}
	for _, sh := range resp.shipments() {
		tn := strings.TrimSpace(sh.ShipmentTrackingNumber)
		if tn == "" || !referenced(sh, ref) {
			continue
		}
		found := carriers.Label{TrackingNumber: tn}
		if len(sh.Pieces) > 1 {
			for _, p := range sh.Pieces {
				if n := strings.TrimSpace(p.TrackingNumber); n != "" {
					found.Pieces = append(found.Pieces, n)
				}
			}
		}
		return found, true, nil
	}
	return carriers.Label{}, false, nil
}

// referenced reports whether a shipment found by reference carries it:
// DHL's search by reference matches; the shipper references it answers,
// when it answers them, must name ref too, so that a search DHL widened
// (a prefix, another type) adopts nothing of another shipment.
func referenced(sh trackedShipment, ref string) bool {
	if len(sh.ShipperReferences) == 0 {
		return true
	}
	for _, r := range sh.ShipperReferences {
		if strings.TrimSpace(r.Value) == ref {
			return true
		}
	}
	return false
}
