package usps

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Carrier Pickup 3.0 (https://apis.usps.com/pickup/v3).
const (
	pickupPath     = "/pickup/v3/carrier-pickup"
	opPickup       = "schedule_pickup"
	opCancelPickup = "cancel_pickup"
)

// schedulePickupRequest is SchedulePickupRequest.
type schedulePickupRequest struct {
	PickupDate      string           `json:"pickupDate"`
	PickupAddress   pickupAddress    `json:"pickupAddress"`
	Packages        []pickupPackages `json:"packages"`
	EstimatedWeight float64          `json:"estimatedWeight"`
	PickupLocation  pickupLocation   `json:"pickupLocation"`
}

// pickupAddress is PickupAddress: an Addressee with its address and contacts.
type pickupAddress struct {
	FirstName string          `json:"firstName"`
	LastName  string          `json:"lastName"`
	Firm      string          `json:"firm,omitempty"`
	Address   pickupStreet    `json:"address"`
	Contact   []pickupContact `json:"contact"`
}

// pickupStreet is DomesticAddress.
type pickupStreet struct {
	StreetAddress    string `json:"streetAddress"`
	SecondaryAddress string `json:"secondaryAddress,omitempty"`
	City             string `json:"city,omitempty"`
	State            string `json:"state,omitempty"`
	ZIPCode          string `json:"ZIPCode,omitempty"`
	ZIPPlus4         string `json:"ZIPPlus4,omitempty"`
}

// pickupContact is a NotificationMethod: an email or a cell number.
type pickupContact struct {
	Email      string `json:"email,omitempty"`
	CellNumber string `json:"cellNumber,omitempty"`
}

type pickupPackages struct {
	PackageType  string `json:"packageType"`
	PackageCount int    `json:"packageCount"`
}

type pickupLocation struct {
	PackageLocation     string `json:"packageLocation"`
	SpecialInstructions string `json:"specialInstructions,omitempty"`
}

// SchedulePickup schedules a Carrier Pickup (POST /carrier-pickup) on
// readyAt's local date. USPS takes a date, not hours: it comes during the
// carrier's route that day. Packages are declared as OTHER (shipd does not
// split them by mail class); the weight is USPS's estimate in pounds, one
// pound a package when none was given. Instructions, when given, are the
// location's special instructions (packageLocation OTHER), else FRONT_DOOR.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	body := schedulePickupRequest{
		PickupDate:      req.ReadyAt.Format(time.DateOnly),
		PickupAddress:   toPickupAddress(req.Address),
		Packages:        []pickupPackages{{PackageType: "OTHER", PackageCount: max(req.PackageCount, 1)}},
		EstimatedWeight: math.Ceil(req.TotalWeightOz / 16),
		PickupLocation:  pickupLocation{PackageLocation: "FRONT_DOOR"},
	}
	if body.EstimatedWeight <= 0 {
		body.EstimatedWeight = float64(max(req.PackageCount, 1))
	}
	if in := strings.TrimSpace(req.Instructions); in != "" {
		body.PickupLocation = pickupLocation{PackageLocation: "OTHER", SpecialInstructions: truncate(in, 250)}
	}
	a, err := c.send(ctx, request{op: opPickup, method: http.MethodPost, path: pickupPath, body: body})
	if err != nil {
		return carriers.PickupConfirmation{}, err
	}
	if !a.ok() {
		return carriers.PickupConfirmation{}, statusError(opPickup, a, c.now())
	}
	var ans struct {
		ConfirmationNumber string `json:"confirmationNumber"`
	}
	if err := decodeJSON(a.body, &ans); err != nil {
		return carriers.PickupConfirmation{}, failed(opPickup, a.status, "the pickup answer does not parse: %v", err)
	}
	if strings.TrimSpace(ans.ConfirmationNumber) == "" {
		return carriers.PickupConfirmation{}, failed(opPickup, a.status, "the pickup answer has no confirmation number")
	}
	return carriers.PickupConfirmation{ConfirmationNumber: ans.ConfirmationNumber}, nil
}

// CancelPickup cancels a Carrier Pickup: USPS wants the pickup's current
// entity tag as If-Match, so the pickup is read first (GET) for its ETag.
func (c *Carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	cn := strings.TrimSpace(req.ConfirmationNumber)
	if cn == "" {
		return &carriers.Error{Carrier: CarrierName, Operation: opCancelPickup, Message: "no confirmation number to cancel", Kind: carriers.ErrRejected}
	}
	path := pickupPath + "/" + url.PathEscape(cn)
	a, err := c.send(ctx, request{op: opCancelPickup, method: http.MethodGet, path: path})
	if err != nil {
		return err
	}
	if !a.ok() {
		return statusError(opCancelPickup, a, c.now())
	}
	etag := a.header.Get("ETag")
	if etag == "" {
		return failed(opCancelPickup, a.status, "the pickup answer has no ETag to cancel it with")
	}
	a, err = c.send(ctx, request{op: opCancelPickup, method: http.MethodDelete, path: path, header: map[string]string{"If-Match": etag}})
	if err != nil {
		return err
	}
	if !a.ok() {
		return statusError(opCancelPickup, a, c.now())
	}
	return nil
}

// toPickupAddress is the pickup's addressee: USPS requires a first and a
// last name, so a one-word name is sent as both.
func toPickupAddress(a carriers.Address) pickupAddress {
	first, last, firm := addressee(a)
	if first == "" && last == "" {
		first = truncate(strings.TrimSpace(a.Name), 50)
	}
	if first == "" {
		first = last
	}
	if last == "" {
		last = first
	}
	if first == "" { // no name at all: the firm is the contact
		first, last = firm, firm
	}
	zip, plus4 := splitZIP(a.Zip)
	p := pickupAddress{
		FirstName: first, LastName: last, Firm: firm,
		Address: pickupStreet{
			StreetAddress: strings.TrimSpace(a.Street1), SecondaryAddress: strings.TrimSpace(a.Street2),
			City: strings.TrimSpace(a.City), State: strings.ToUpper(strings.TrimSpace(a.State)), ZIPCode: zip, ZIPPlus4: plus4,
		},
	}
	if e := email(a.Email); e != "" {
		p.Contact = append(p.Contact, pickupContact{Email: e})
	}
	if cell := tenDigits(a.Phone); cell != "" {
		p.Contact = append(p.Contact, pickupContact{CellNumber: cell})
	}
	return p
}

// tenDigits is a US phone number as USPS's cellNumber: ten digits, a
// leading country code 1 dropped; "" when it is not one.
func tenDigits(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) == 11 && s[0] == '1' {
		s = s[1:]
	}
	if len(s) != 10 {
		return ""
	}
	return s
}
