package gls

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// collectionRequest is ShipIT's SporadicCollection: ContactID,
// PreferredPickUpDate and Product required.
type collectionRequest struct {
	ContactID             string  `json:"ContactID"`
	PreferredPickUpDate   string  `json:"PreferredPickUpDate"`
	NumberOfParcels       int     `json:"NumberOfParcels,omitempty"`
	Product               string  `json:"Product"`
	ExpectedTotalWeight   float64 `json:"ExpectedTotalWeight,omitempty"`
	AdditionalInformation string  `json:"AdditionalInformation,omitempty"`
}

// collectionAnswer is ShipIT's SporadicCollectionResponse.
type collectionAnswer struct {
	EstimatedPickUpDate string `json:"EstimatedPickUpDate"`
}

// SchedulePickup orders a sporadic collection (POST /rs/sporadiccollection)
// of the pickup's parcels, of GLS's PARCEL product, on the day the pickup
// is ready. ShipIT takes no address: GLS collects at the address of the
// contact id, and the pickup's address and instructions go to the driver
// as the collection's AdditionalInformation. GLS answers no number, only
// the day it estimates: that day (YYYY-MM-DD) is the confirmation.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	if err := ctx.Err(); err != nil {
		return carriers.PickupConfirmation{}, err
	}
	body := collectionRequest{
		ContactID: c.contactID, Product: "PARCEL", NumberOfParcels: max(req.PackageCount, 1),
		// A date-time, as the document types it: the pickup's ready time
		// in its own offset.
		PreferredPickUpDate:   req.ReadyAt.Format(time.RFC3339),
		AdditionalInformation: collectionNote(req),
	}
	if req.TotalWeightOz > 0 {
		body.ExpectedTotalWeight = math.Ceil(req.TotalWeightOz*carriers.GramsPerOunce/10) / 100
	}
	a, err := c.do(ctx, request{op: opPickup, method: http.MethodPost, path: shipitPath + "/sporadiccollection", body: body})
	if err != nil {
		return carriers.PickupConfirmation{}, err
	}
	at, err := parseCollection(a.body)
	if err != nil {
		return carriers.PickupConfirmation{}, malformed(opPickup, a.status, "%v", err)
	}
	return carriers.PickupConfirmation{ConfirmationNumber: at.Format("2006-01-02")}, nil
}

// parseCollection reads the day GLS estimates for a collection.
func parseCollection(body []byte) (time.Time, error) {
	var ans collectionAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return time.Time{}, fmt.Errorf("the collection answer is not the documented JSON: %w", err)
	}
	at, err := time.Parse(time.RFC3339, strings.TrimSpace(ans.EstimatedPickUpDate))
	if err != nil || !carriers.PlausibleScanTime(at) {
		return time.Time{}, fmt.Errorf("the collection answer has no EstimatedPickUpDate date-time")
	}
	return at, nil
}

// collectionNote tells the driver where and what, within ShipIT's free text.
func collectionNote(req carriers.PickupRequest) string {
	a := req.Address
	var parts []string
	for _, p := range []string{a.Company, a.Name, a.Street1, a.Street2, strings.TrimSpace(a.Zip + " " + a.City)} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	note := "Pickup at " + strings.Join(parts, ", ")
	if !req.CloseAt.IsZero() {
		note += "; ready " + req.ReadyAt.Format("15:04") + "-" + req.CloseAt.Format("15:04")
	}
	if s := strings.TrimSpace(req.Instructions); s != "" {
		note += "; " + s
	}
	return carriers.Excerpt(note)
}

// CancelPickup is refused: ShipIT cannot cancel a sporadic collection
// (its documents have no such operation). The caller is told to call GLS.
func (c *Carrier) CancelPickup(context.Context, carriers.PickupCancelRequest) error {
	return &carriers.Error{Carrier: carrierName, Operation: carriers.OpCancelPickup, Kind: carriers.ErrRejected,
		Message: "GLS's ShipIT API cannot cancel a collection once ordered: call GLS customer service to cancel it"}
}
