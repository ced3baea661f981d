package dhlexpress

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// pickupsPath is POST /pickups (exp-api-pickups), and DELETE
// /pickups/{dispatchConfirmationNumber} (exp-api-pickups-cancel) below it.
const pickupsPath = "/pickups"

// pickupRequest is supermodelIoLogisticsExpressPickupRequest.
type pickupRequest struct {
	PlannedPickupDateAndTime string              `json:"plannedPickupDateAndTime"`
	CloseTime                string              `json:"closeTime,omitempty"`
	Location                 string              `json:"location,omitempty"`
	LocationType             string              `json:"locationType,omitempty"`
	Accounts                 []account           `json:"accounts"`
	SpecialInstructions      []pickupInstruction `json:"specialInstructions,omitempty"`
	Remark                   string              `json:"remark,omitempty"`
	CustomerDetails          struct {
		ShipperDetails pickupParty `json:"shipperDetails"`
	} `json:"customerDetails"`
	ShipmentDetails []pickupShipment `json:"shipmentDetails"`
}

type pickupParty struct {
	PostalAddress      postalAddress      `json:"postalAddress"`
	ContactInformation contactInformation `json:"contactInformation"`
}

type pickupInstruction struct {
	Value string `json:"value"`
}

type pickupShipment struct {
	ProductCode         string         `json:"productCode"`
	IsCustomsDeclarable bool           `json:"isCustomsDeclarable"`
	UnitOfMeasurement   string         `json:"unitOfMeasurement"`
	Packages            []ratesPackage `json:"packages"`
}

// pickupProduct is the product a pickup's packages are booked as: DHL sizes
// the courier's visit by the packages, whose own waybills name their
// products; Express Worldwide is sold from every country.
const pickupProduct = "P"

// defaultPackageGrams is a package's weight when the pickup request gives
// no total: DHL Express's smallest billable weight, half a kilogram.
const defaultPackageGrams = 500

// SchedulePickup books a DHL Express courier at the address, between
// ReadyAt and CloseAt in the address's own offset (DHL's
// plannedPickupDateAndTime carries it: "…T09:00:00 GMT+01:00"). The
// packages are declared by count and weight, the total shared between
// them.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	a := req.Address
	if strings.TrimSpace(a.Street1) == "" || strings.TrimSpace(a.City) == "" {
		return carriers.PickupConfirmation{}, fmt.Errorf("dhlexpress: a pickup needs the street and city of the address: %w", carriers.ErrRejected)
	}
	if len(carriers.PhoneDigits(a.Phone)) < 4 || strings.TrimSpace(a.Name) == "" && strings.TrimSpace(a.Company) == "" {
		return carriers.PickupConfirmation{}, fmt.Errorf("dhlexpress: DHL Express requires the pickup contact's name and phone: %w", carriers.ErrRejected)
	}
	if req.ReadyAt.IsZero() {
		return carriers.PickupConfirmation{}, fmt.Errorf("dhlexpress: a pickup needs its ready time: %w", carriers.ErrRejected)
	}
	count := max(req.PackageCount, 1)
	if count > maxPieces {
		return carriers.PickupConfirmation{}, fmt.Errorf("dhlexpress: %d packages, DHL takes at most %d in a pickup's shipment: %w", count, maxPieces, carriers.ErrRejected)
	}
	grams := float64(defaultPackageGrams)
	if req.TotalWeightOz > 0 {
		grams = req.TotalWeightOz * carriers.GramsPerOunce / float64(count)
	}
	packages := make([]ratesPackage, count)
	for i := range packages {
		packages[i] = ratesPackage{Weight: kilograms(grams)}
	}
	r := pickupRequest{
		PlannedPickupDateAndTime: gmt(req.ReadyAt),
		Accounts:                 c.shipperAccount(),
		ShipmentDetails: []pickupShipment{{ProductCode: pickupProduct, IsCustomsDeclarable: false,
			UnitOfMeasurement: unitOfMeasurement, Packages: packages}},
	}
	if !req.CloseAt.IsZero() {
		r.CloseTime = req.CloseAt.Format("15:04")
	}
	if a.Residential {
		r.LocationType = "residence"
	} else {
		r.LocationType = "business"
	}
	if in := truncate(req.Instructions, 80); in != "" {
		r.SpecialInstructions = []pickupInstruction{{Value: in}}
	}
	if ref := strings.TrimSpace(req.Reference); ref != "" {
		r.Remark = "shipd " + ref
	}
	r.CustomerDetails.ShipperDetails = pickupParty{PostalAddress: toPostalAddress(a), ContactInformation: toContact(a)}
	body, err := c.do(ctx, request{op: opPickup, method: http.MethodPost, path: pickupsPath, body: r, reference: req.Reference})
	if err != nil {
		return carriers.PickupConfirmation{}, c.scrub(err)
	}
	number, err := parsePickup(body)
	return carriers.PickupConfirmation{ConfirmationNumber: number}, c.scrub(err)
}

// pickupResponse is supermodelIoLogisticsExpressPickupResponse.
type pickupResponse struct {
	DispatchConfirmationNumbers []string `json:"dispatchConfirmationNumbers"`
}

// parsePickup is the booking's dispatch confirmation number (PRG…): the
// first of the answer's, DHL's for the courier's visit.
func parsePickup(body []byte) (string, error) {
	var r pickupResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return "", malformed(opPickup, "the pickup answer does not parse: %v", err)
	}
	for _, n := range r.DispatchConfirmationNumbers {
		if n = carriers.IdentifierOf(n); n != "" {
			return n, nil
		}
	}
	return "", malformed(opPickup, "the pickup answer has no dispatch confirmation number")
}

// CancelPickup cancels a booked pickup. DHL asks who cancels and why: the
// address's contact, and shipd's reason.
func (c *Carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	n := strings.TrimSpace(req.ConfirmationNumber)
	if n == "" {
		return fmt.Errorf("dhlexpress: cancel a pickup without its confirmation number: %w", carriers.ErrRejected)
	}
	requestor := strings.TrimSpace(req.Address.Name)
	if requestor == "" {
		requestor = strings.TrimSpace(req.Address.Company)
	}
	if requestor == "" {
		requestor = "shipd"
	}
	q := url.Values{"requestorName": {truncate(requestor, 35)}, "reason": {"cancelled by the shipper"}}
	_, err := c.do(ctx, request{op: opCancelPickup, method: http.MethodDelete, path: pickupsPath + "/" + url.PathEscape(n), query: q,
		reference: req.Reference})
	return c.scrub(err)
}
