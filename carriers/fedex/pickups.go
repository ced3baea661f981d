package fedex

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// The Pickup API v1 (pickup-api.json).
const (
	pickupPath       = "/pickup/v1/pickups"
	cancelPickupPath = "/pickup/v1/pickups/cancel"
	opPickup         = "schedule_pickup"
	opCancelPickup   = "cancel_pickup"
	// pickupCarrier is FedEx Ground (FDXG): shipd asks for one pickup of
	// the day's packages, the Ground dispatch; an Express pickup (FDXE)
	// would also need a location for its cancel, which is kept anyway.
	pickupCarrier = "FDXG"
)

// createPickupRequest is Full_Schema_Create_Pickup.
type createPickupRequest struct {
	AssociatedAccountNumber accountNumber `json:"associatedAccountNumber"`
	OriginDetail            pickupOrigin  `json:"originDetail"`
	TotalWeight             *pickupWeight `json:"totalWeight,omitempty"`
	PackageCount            int           `json:"packageCount"`
	CarrierCode             string        `json:"carrierCode"`
	Remarks                 string        `json:"remarks,omitempty"`
	CountryRelationships    string        `json:"countryRelationships"`
	TrackingNumber          string        `json:"trackingNumber,omitempty"`
}

type pickupOrigin struct {
	PickupLocation     pickupLocation `json:"pickupLocation"`
	ReadyDateTimestamp string         `json:"readyDateTimestamp"`
	CustomerCloseTime  string         `json:"customerCloseTime"`
	PickupDateType     string         `json:"pickupDateType"`
	PackageLocation    string         `json:"packageLocation"`
}

type pickupLocation struct {
	Contact struct {
		CompanyName string `json:"companyName,omitempty"`
		PersonName  string `json:"personName"`
		PhoneNumber string `json:"phoneNumber"`
	} `json:"contact"`
	Address struct {
		StreetLines         []string `json:"streetLines"`
		City                string   `json:"city"`
		StateOrProvinceCode string   `json:"stateOrProvinceCode"`
		PostalCode          string   `json:"postalCode"`
		CountryCode         string   `json:"countryCode"`
		Residential         bool     `json:"residential,omitempty"`
	} `json:"address"`
}

type pickupWeight struct {
	Units string  `json:"units"`
	Value float64 `json:"value"`
}

// cancelPickupRequest is Full_Schema_Cancel_Pickup.
type cancelPickupRequest struct {
	AssociatedAccountNumber accountNumber `json:"associatedAccountNumber"`
	PickupConfirmationCode  string        `json:"pickupConfirmationCode"`
	CarrierCode             string        `json:"carrierCode"`
	ScheduledDate           string        `json:"scheduledDate"`
	Location                string        `json:"location,omitempty"`
}

// SchedulePickup creates a FedEx Ground pickup. FedEx takes local times
// without a zone ("the time is local to the pickup postal code"), so the
// wall-clock times of readyAt and closeAt are sent as they were given.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	a := req.Address
	body := createPickupRequest{
		AssociatedAccountNumber: accountNumber{Value: c.account},
		OriginDetail: pickupOrigin{
			ReadyDateTimestamp: req.ReadyAt.Format("2006-01-02T15:04:05"),
			CustomerCloseTime:  req.CloseAt.In(req.ReadyAt.Location()).Format("15:04:05"),
			PickupDateType:     "FUTURE_DAY",
			PackageLocation:    "NONE",
		},
		PackageCount:         max(req.PackageCount, 1),
		CarrierCode:          pickupCarrier,
		Remarks:              strings.TrimSpace(req.Instructions),
		CountryRelationships: "DOMESTIC",
	}
	if sameDay(req.ReadyAt, c.now()) {
		body.OriginDetail.PickupDateType = "SAME_DAY"
	}
	if len([]rune(body.Remarks)) > 60 { // FedEx's maximum
		body.Remarks = string([]rune(body.Remarks)[:60])
	}
	loc := &body.OriginDetail.PickupLocation
	loc.Contact.CompanyName = strings.TrimSpace(a.Company)
	loc.Contact.PersonName = strings.TrimSpace(a.Name)
	loc.Contact.PhoneNumber = digits(a.Phone)
	loc.Address.StreetLines = nonEmpty(a.Street1, a.Street2)
	loc.Address.City = strings.TrimSpace(a.City)
	loc.Address.StateOrProvinceCode = strings.ToUpper(strings.TrimSpace(a.State))
	loc.Address.PostalCode = strings.TrimSpace(a.Zip)
	loc.Address.CountryCode = carriers.NormalizeCountry(a.Country)
	loc.Address.Residential = a.Residential
	if req.TotalWeightOz > 0 {
		body.TotalWeight = &pickupWeight{Units: "LB", Value: math.Ceil(req.TotalWeightOz/16*10) / 10}
	}
	if len(req.TrackingNumbers) > 0 {
		body.TrackingNumber = req.TrackingNumbers[0]
	}
	raw, err := c.do(ctx, request{op: opPickup, method: http.MethodPost, path: pickupPath, body: body, transactionID: req.Reference})
	if err != nil {
		return carriers.PickupConfirmation{}, c.scrub(err)
	}
	var res struct {
		Output *struct {
			PickupConfirmationCode string `json:"pickupConfirmationCode"`
			Location               string `json:"location"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return carriers.PickupConfirmation{}, malformed(opPickup, "the pickup answer does not parse: %v", err)
	}
	if res.Output == nil || strings.TrimSpace(res.Output.PickupConfirmationCode) == "" {
		return carriers.PickupConfirmation{}, malformed(opPickup, "the pickup answer has no pickupConfirmationCode")
	}
	return carriers.PickupConfirmation{ConfirmationNumber: res.Output.PickupConfirmationCode, Location: res.Output.Location}, nil
}

// CancelPickup cancels a pickup by its confirmation code and date
// (PUT /pickup/v1/pickups/cancel).
func (c *Carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	code := strings.TrimSpace(req.ConfirmationNumber)
	if code == "" {
		return &carriers.Error{Carrier: Name, Operation: opCancelPickup, Message: "no confirmation code to cancel", Kind: carriers.ErrRejected}
	}
	raw, err := c.do(ctx, request{op: opCancelPickup, method: http.MethodPut, path: cancelPickupPath, transactionID: req.Reference,
		body: cancelPickupRequest{AssociatedAccountNumber: accountNumber{Value: c.account}, PickupConfirmationCode: code,
			CarrierCode: pickupCarrier, ScheduledDate: req.ReadyAt.Format(time.DateOnly), Location: req.Location}})
	if err != nil {
		return c.scrub(err)
	}
	var res struct {
		Output *struct {
			PickupConfirmationCode string `json:"pickupConfirmationCode"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return malformed(opCancelPickup, "the cancel answer does not parse: %v", err)
	}
	if res.Output == nil {
		return malformed(opCancelPickup, "the cancel answer has no output")
	}
	return nil
}

// sameDay reports whether t falls on today's date in t's own offset.
func sameDay(t, now time.Time) bool {
	return t.Format(time.DateOnly) == now.In(t.Location()).Format(time.DateOnly)
}

func nonEmpty(lines ...string) []string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
