package gls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// findRequest is ShipIT's TULReferenceData: parcels by reference, created
// between DateFrom and DateTo (both required).
type findRequest struct {
	ShipmentReference string `json:"ShipmentReference"`
	DateFrom          string `json:"DateFrom"`
	DateTo            string `json:"DateTo"`
}

// findAnswer is ShipIT's TUListResponse.
type findAnswer struct {
	UnitItems []struct {
		TrackID               string   `json:"TrackID"`
		ParcelNumber          string   `json:"ParcelNumber"`
		ShipmentReference     []string `json:"ShipmentReference"`
		ShipmentUnitReference []string `json:"ShipmentUnitReference"`
		Status                string   `json:"Status"`
	} `json:"UnitItems"`
}

// reprintRequest is ShipIT's ReprintParcelRequestParameter, by TrackID.
type reprintRequest struct {
	TrackID         string          `json:"TrackID"`
	PrintingOptions printingOptions `json:"PrintingOptions"`
}

// findWindow is how far back FindPurchase looks: a purchase is rescued
// within minutes or days of its first attempt, never weeks.
const findWindow = 30 * 24 * time.Hour

// FindPurchase asks ShipIT for the parcels created under the purchase's
// reference (POST /rs/tracking/parcels by ShipmentReference; every
// purchase sends the shipd shipment id as one) and not cancelled, and
// reprints their labels in the format asked (POST
// /rs/shipments/reprintparcel, by TrackID), so that a purchase cut off
// mid-call adopts what GLS sold. A label GLS will not reprint is found
// without its document: the purchase voids it and buys again.
func (c *Carrier) FindPurchase(ctx context.Context, req carriers.BuyRequest) (carriers.Label, bool, error) {
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, false, nil
	}
	now := c.now().UTC()
	a, err := c.do(ctx, request{op: opFind, method: http.MethodPost, path: shipitPath + "/tracking/parcels",
		body: findRequest{ShipmentReference: ref, DateFrom: now.Add(-findWindow).Format(time.RFC3339), DateTo: now.Add(24 * time.Hour).Format(time.RFC3339)}})
	if err != nil {
		if errors.Is(err, carriers.ErrRejected) && a.status == http.StatusNotFound {
			return carriers.Label{}, false, nil // nothing under this reference
		}
		return carriers.Label{}, false, err
	}
	found, err := parseFound(a.body, ref, req.Shipment.PieceCount())
	if err != nil {
		return carriers.Label{}, false, malformed(opFind, a.status, "%v", err)
	}
	if len(found) == 0 {
		return carriers.Label{}, false, nil
	}
	sold := created{parcels: found}.sold()
	if len(found) != req.Shipment.PieceCount() {
		// Not every piece: the purchase voids what was found and buys anew.
		return sold, true, nil
	}
	var data []string
	format := ""
	for _, p := range found {
		r, err := c.do(ctx, request{op: opFind, method: http.MethodPost, path: shipitPath + "/shipments/reprintparcel",
			body: reprintRequest{TrackID: p.trackID, PrintingOptions: printingFor(req.Format())}})
		if errors.Is(err, carriers.ErrRejected) {
			return sold, true, nil
		}
		if err != nil {
			return carriers.Label{}, false, err
		}
		res, err := parseCreated(r.body, ref, 1)
		if err != nil {
			return carriers.Label{}, false, malformed(opFind, r.status, "the reprint of %s: %v", p.trackID, err)
		}
		format = res.format
		data = append(data, res.data...)
	}
	label, err := labelOf(created{parcels: found, format: format, data: data}, req.Format(), a.status)
	if err != nil {
		// A reprint that is no label: found, without a document.
		return sold, true, nil
	}
	return label, true, nil
}

// parseFound reads the parcels a lookup found under reference: those that
// carry it and are not cancelled, in piece order (their
// ShipmentUnitReference) when every one has its piece's.
func parseFound(body []byte, reference string, pieces int) ([]parcel, error) {
	var a findAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the parcel lookup answer is not the documented JSON: %w", err)
	}
	type ranked struct {
		rank int
		p    parcel
	}
	var out []ranked
	for _, u := range a.UnitItems {
		if !slices.ContainsFunc(u.ShipmentReference, func(s string) bool { return strings.TrimSpace(s) == reference }) {
			continue
		}
		if strings.Contains(strings.ToUpper(u.Status), "CANCEL") {
			continue // cancelled: nothing to adopt or void
		}
		id, number := strings.ToUpper(strings.TrimSpace(u.TrackID)), strings.ToUpper(strings.TrimSpace(u.ParcelNumber))
		if id == "" || number == "" || strings.Contains(id, ",") {
			return nil, fmt.Errorf("a parcel found has no TrackID or ParcelNumber")
		}
		r := pieces + 1
		for i := range pieces {
			if slices.Contains(u.ShipmentUnitReference, unitReference(reference, i)) {
				r = i
			}
		}
		out = append(out, ranked{r, parcel{trackID: id, number: number}})
	}
	slices.SortStableFunc(out, func(x, y ranked) int { return x.rank - y.rank })
	ps := make([]parcel, len(out))
	for i, r := range out {
		ps[i] = r.p
	}
	return ps, nil
}
