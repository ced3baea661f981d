package dhlparcelde

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// PickupOrder (parcel-de-pickup-v3.yaml), as shipd orders it: a pickup at
// an address, on a date, of a number of parcels, booked on the account's
// billing number (an Einzelabholung), so that no parcel size is asked.
type pickupOrder struct {
	CustomerDetails pickupCustomer  `json:"customerDetails"`
	PickupLocation  pickupLocation  `json:"pickupLocation"`
	BusinessHours   []timeFrame     `json:"businessHours,omitempty"`
	ContactPerson   []pickupContact `json:"contactPerson,omitempty"`
	PickupDetails   pickupDetails   `json:"pickupDetails"`
	ShipmentDetails pickupShipments `json:"shipmentDetails"`
}

type pickupCustomer struct {
	BillingNumber string `json:"billingNumber"`
}

// pickupLocation is a PickupAddressType: type "Address" and the address.
type pickupLocation struct {
	Type          string        `json:"type"`
	PickupAddress pickupAddress `json:"pickupAddress"`
}

type pickupAddress struct {
	Name1         string `json:"name1"`
	Name2         string `json:"name2,omitempty"`
	AddressStreet string `json:"addressStreet"`
	AddressHouse  string `json:"addressHouse"`
	PostalCode    string `json:"postalCode"`
	City          string `json:"city"`
	Country       string `json:"country"`
}

type timeFrame struct {
	TimeFrom  string `json:"timeFrom"`
	TimeUntil string `json:"timeUntil"`
}

type pickupContact struct {
	Name  string `json:"name,omitempty"`
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
}

type pickupDetails struct {
	PickupDate  pickupDate `json:"pickupDate"`
	TotalWeight *weight    `json:"totalWeight,omitempty"`
	Comment     string     `json:"comment,omitempty"`
}

// pickupDate is a FixedDate: type "Date" and the day.
type pickupDate struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type pickupShipments struct {
	Shipments []pickupShipment `json:"shipments"`
}

type pickupShipment struct {
	TransportationType string `json:"transportationType"`
	ShipmentNo         string `json:"shipmentNo,omitempty"`
}

// maxPickupParcels bounds the shipments one order lists: a van's worth,
// well within what a request body carries.
const maxPickupParcels = 999

// SchedulePickup orders a pickup (POST /orders of the Pickup API) at the
// address, on ReadyAt's date between ReadyAt's and CloseAt's times (the
// address's local times, as given), of PackageCount parcels (the labels'
// numbers when the caller named them). DHL picks up in Germany only, at an
// address with a house number (PickupAddress requires addressHouse). The
// confirmation number is DHL's orderID, which cancels it.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	a := req.Address
	if carriers.NormalizeCountry(a.Country) != "DE" {
		return carriers.PickupConfirmation{}, rejected(opPickup, "DHL Paket picks up in Germany only, not in %s", carriers.Excerpt(carriers.NormalizeCountry(a.Country)))
	}
	street, house := splitStreet(a.Street1)
	if house == "" {
		return carriers.PickupConfirmation{}, rejected(opPickup, "DHL's Pickup API requires the house number of the pickup address's street (addressHouse)")
	}
	name1, name2 := names(a)
	if name1 == "" {
		return carriers.PickupConfirmation{}, rejected(opPickup, "DHL's Pickup API requires the pickup address's name or company (name1)")
	}
	body := pickupOrder{
		CustomerDetails: pickupCustomer{BillingNumber: c.billingNumber(services[0])},
		PickupLocation: pickupLocation{Type: "Address", PickupAddress: pickupAddress{
			Name1: cut(name1, 50), Name2: cut(name2, 50), AddressStreet: cut(street, 70), AddressHouse: house,
			PostalCode: cut(a.Zip, 7), City: cut(a.City, 35), Country: "DE",
		}},
		PickupDetails: pickupDetails{
			PickupDate: pickupDate{Type: "Date", Value: req.ReadyAt.Format(time.DateOnly)},
			Comment:    cut(req.Instructions, 100),
		},
	}
	if !req.CloseAt.IsZero() && req.CloseAt.After(req.ReadyAt) {
		body.BusinessHours = []timeFrame{{TimeFrom: req.ReadyAt.Format("15:04"), TimeUntil: req.CloseAt.In(req.ReadyAt.Location()).Format("15:04")}}
	}
	if contact := (pickupContact{Name: cut(a.Name, 50), Phone: cut(a.Phone, 50), Email: cut(a.Email, 250)}); contact != (pickupContact{}) {
		body.ContactPerson = []pickupContact{contact}
	}
	if req.TotalWeightOz > 0 {
		body.PickupDetails.TotalWeight = &weight{UOM: "g", Value: int(math.Ceil(req.TotalWeightOz * carriers.GramsPerOunce))}
	}
	n := min(max(req.PackageCount, len(req.TrackingNumbers), 1), maxPickupParcels)
	for i := range n {
		sh := pickupShipment{TransportationType: "PAKET"}
		if i < len(req.TrackingNumbers) {
			sh.ShipmentNo = carriers.NormalizeTrackingNumber(req.TrackingNumbers[i])
		}
		body.ShipmentDetails.Shipments = append(body.ShipmentDetails.Shipments, sh)
	}
	ans, err := c.do(ctx, apiRequest{op: opPickup, method: http.MethodPost, path: pickupPath + "/orders", body: body, auth: authBearer})
	if err != nil {
		return carriers.PickupConfirmation{}, c.scrub(err)
	}
	if !ans.ok() {
		return carriers.PickupConfirmation{}, c.scrub(c.failure(opPickup, ans))
	}
	conf, err := parsePickupAnswer(ans.status, ans.body)
	return conf, c.scrub(err)
}

// parsePickupAnswer reads a pickup order's answer (OrderResponse): its
// orderID, which confirms and cancels it.
func parsePickupAnswer(httpStatus int, body []byte) (carriers.PickupConfirmation, error) {
	var r struct {
		Confirmation *struct {
			Type  string `json:"type"`
			Value *struct {
				OrderID    string `json:"orderID"`
				PickupDate string `json:"pickupDate"`
			} `json:"value"`
		} `json:"confirmation"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.PickupConfirmation{}, malformed(opPickup, httpStatus, "the pickup answer is not the documented JSON: %v", err)
	}
	var id string
	if r.Confirmation != nil && r.Confirmation.Value != nil {
		id = carriers.IdentifierOf(r.Confirmation.Value.OrderID)
	}
	if id == "" {
		return carriers.PickupConfirmation{}, malformed(opPickup, httpStatus, "the pickup answer has no orderID")
	}
	if t := r.Confirmation.Type; t != "" && t != "ORDERPICKUP" {
		// VALIDATION answers a validate=true call, which books nothing.
		return carriers.PickupConfirmation{}, malformed(opPickup, httpStatus, "the pickup answer is a %s, not an ORDERPICKUP", carriers.Excerpt(t))
	}
	return carriers.PickupConfirmation{ConfirmationNumber: id}, nil
}

// CancelPickup cancels a pickup by its orderID (DELETE /orders of the
// Pickup API). DHL answers 200 with the cancellations it made and those it
// could not (a pickup under way, done, or unknown): the latter is a
// refusal with DHL's message.
func (c *Carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	id := strings.TrimSpace(req.ConfirmationNumber)
	if id == "" {
		return rejected(opCancelPickup, "no pickup orderID to cancel")
	}
	ans, err := c.do(ctx, apiRequest{op: opCancelPickup, method: http.MethodDelete, path: pickupPath + "/orders",
		query: url.Values{"orderID": {id}}, auth: authBearer})
	if err != nil {
		return c.scrub(err)
	}
	if !ans.ok() {
		return c.scrub(c.failure(opCancelPickup, ans))
	}
	return c.scrub(parseCancelAnswer(ans.status, ans.body, id))
}

// parseCancelAnswer reads a cancel's answer (CancelResult): nil when it
// confirms the cancellation of id, DHL's refusal when it failed it.
func parseCancelAnswer(httpStatus int, body []byte, id string) error {
	var r struct {
		Confirmed []struct {
			OrderID string `json:"orderID"`
		} `json:"confirmedCancellations"`
		Failed []struct {
			OrderID string `json:"orderID"`
			Message string `json:"message"`
		} `json:"failedCancellations"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed(opCancelPickup, httpStatus, "the cancel answer is not the documented JSON: %v", err)
	}
	for _, f := range r.Failed {
		if strings.TrimSpace(f.OrderID) == id || len(r.Confirmed) == 0 {
			return &carriers.Error{Carrier: carrierName, Operation: opCancelPickup, HTTPStatus: httpStatus, Kind: carriers.ErrRejected,
				Message: carriers.Excerpt("DHL did not cancel the pickup: " + strings.TrimSpace(f.Message))}
		}
	}
	for _, ok := range r.Confirmed {
		if strings.TrimSpace(ok.OrderID) == id {
			return nil
		}
	}
	return malformed(opCancelPickup, httpStatus, "the cancel answer neither confirms nor refuses the pickup")
}
