package dpd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// pickupSchedule is the META-API's pickupscheduling.PickupSchedule.
type pickupSchedule struct {
	CustomerInfos   customerInfos `json:"customerInfos"`
	ParcelNumbers   []string      `json:"parcelNumbers,omitempty"`
	Pickup          pickupDay     `json:"pickup"`
	NumberOfParcels int           `json:"numberOfParcels"`
	PickupAddress   address       `json:"pickupAddress"`
	PickupContact   *contact      `json:"pickupContact,omitempty"`
	PickupWeight    string        `json:"pickupWeight,omitempty"`
	Comment         string        `json:"comment,omitempty"`
	References      []string      `json:"references,omitempty"`
}

// pickupDay is pickupscheduling.Pickup: the day (required) and the window.
type pickupDay struct {
	Date     string `json:"date"`
	FromTime string `json:"fromTime,omitempty"`
	ToTime   string `json:"toTime,omitempty"`
}

// pickupAnswer is pickupscheduling.Response.
type pickupAnswer struct {
	ScheduledPickupResponse []struct {
		PickupReference   string `json:"pickupreference"`
		StatusCode        string `json:"statusCode"`
		StatusDescription string `json:"statusDescription"`
	} `json:"scheduledPickupResponse"`
}

// SchedulePickup schedules a pickup at the BU (POST
// /shipping/v1/pickupscheduling): the day and window in the address's own
// time, the parcels it collects (their numbers when the caller named
// them), the shipd pickup id as its reference. DPD's pickupreference is
// the confirmation.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	if err := ctx.Err(); err != nil {
		return carriers.PickupConfirmation{}, err
	}
	if !c.shipsFrom(req.Address) {
		return carriers.PickupConfirmation{}, rejected(opPickup, "DPD business unit %s collects in %s, not %s", c.buCode, buCountries[c.buCode],
			carriers.NormalizeCountry(req.Address.Country))
	}
	body := pickupSchedule{
		CustomerInfos: customerInfos{CustomerID: c.customerID}, ParcelNumbers: req.TrackingNumbers,
		Pickup:          pickupDay{Date: req.ReadyAt.Format("2006-01-02"), FromTime: req.ReadyAt.Format("15:04")},
		NumberOfParcels: max(req.PackageCount, 1), PickupAddress: addressOf(req.Address), PickupContact: contactOf(req.Address),
	}
	if !req.CloseAt.IsZero() {
		body.Pickup.ToTime = req.CloseAt.Format("15:04")
	}
	if req.TotalWeightOz > 0 {
		body.PickupWeight = strconv.Itoa(int(math.Ceil(req.TotalWeightOz * carriers.GramsPerOunce)))
	}
	if s := strings.TrimSpace(req.Instructions); s != "" {
		// comment: at most 100 characters.
		body.Comment = string([]rune(s)[:min(len([]rune(s)), 100)])
	}
	if ref := strings.TrimSpace(req.Reference); ref != "" {
		body.References = []string{ref}
	}
	a, err := c.do(ctx, request{op: opPickup, path: pickupPath, body: body})
	if err != nil {
		return carriers.PickupConfirmation{}, err
	}
	ref, err := parsePickup(a.body)
	if err != nil {
		var ce *carriers.Error
		if errors.As(err, &ce) {
			ce.HTTPStatus = a.status
			ce.Code, ce.Message = carriers.Excerpt(a.redact.Redact(ce.Code)), carriers.Excerpt(a.redact.Redact(ce.Message))
			return carriers.PickupConfirmation{}, ce
		}
		return carriers.PickupConfirmation{}, malformed(opPickup, a.status, "%v", err)
	}
	return carriers.PickupConfirmation{ConfirmationNumber: ref}, nil
}

// parsePickup reads the pickup's reference; an answer without one but
// with a status is DPD's refusal (a *carriers.Error of ErrRejected).
func parsePickup(body []byte) (string, error) {
	var a pickupAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return "", fmt.Errorf("the pickup answer is not the documented JSON: %w", err)
	}
	if len(a.ScheduledPickupResponse) == 0 {
		return "", fmt.Errorf("the pickup answer has no scheduledPickupResponse")
	}
	r := a.ScheduledPickupResponse[0]
	if ref := carriers.IdentifierOf(r.PickupReference); ref != "" {
		return ref, nil
	}
	if code, desc := strings.TrimSpace(r.StatusCode), strings.TrimSpace(r.StatusDescription); code != "" || desc != "" {
		if desc == "" {
			desc = "DPD did not schedule the pickup"
		}
		return "", &carriers.Error{Carrier: carrierName, Operation: opPickup, Kind: carriers.ErrRejected, Code: carriers.Excerpt(code), Message: desc}
	}
	return "", fmt.Errorf("the pickup answer has no pickupreference")
}

// CancelPickup is refused: the META-API has no operation that cancels a
// pickup. The caller is told to ask the BU.
func (c *Carrier) CancelPickup(context.Context, carriers.PickupCancelRequest) error {
	return &carriers.Error{Carrier: carrierName, Operation: carriers.OpCancelPickup, Kind: carriers.ErrRejected,
		Message: "DPD's META-API cannot cancel a pickup once scheduled: ask your DPD business unit"}
}
