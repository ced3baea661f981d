package ups

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// The Pickup API (Pickup.yaml): creation and cancel by PRN.
const (
	pickupVersion  = "v2409"
	opPickup       = "schedule_pickup"
	opCancelPickup = "cancel_pickup"
	// pickupServiceCode is the PickupPiece service: 003 UPS Ground, the
	// service most packages handed to a pickup travel by (Pickup.yaml's
	// Appendix service codes). shipd does not split a pickup by service.
	pickupServiceCode = "003"
)

type pickupCreationWrapper struct {
	PickupCreationRequest pickupCreationRequest `json:"PickupCreationRequest"`
}

// pickupCreationRequest is PickupCreationRequest.
type pickupCreationRequest struct {
	Request                   pickupRequestInfo `json:"Request"`
	RatePickupIndicator       string            `json:"RatePickupIndicator"`
	Shipper                   pickupShipper     `json:"Shipper"`
	PickupDateInfo            pickupDateInfo    `json:"PickupDateInfo"`
	PickupAddress             pickupAddress     `json:"PickupAddress"`
	AlternateAddressIndicator string            `json:"AlternateAddressIndicator"`
	PickupPiece               []pickupPiece     `json:"PickupPiece"`
	TotalWeight               *pickupWeight     `json:"TotalWeight,omitempty"`
	OverweightIndicator       string            `json:"OverweightIndicator"`
	TrackingData              []pickupTracking  `json:"TrackingData,omitempty"`
	PaymentMethod             string            `json:"PaymentMethod"`
	SpecialInstruction        string            `json:"SpecialInstruction,omitempty"`
	ReferenceNumber           string            `json:"ReferenceNumber,omitempty"`
}

type pickupRequestInfo struct {
	TransactionReference struct {
		CustomerContext string `json:"CustomerContext,omitempty"`
	} `json:"TransactionReference"`
}

type pickupShipper struct {
	Account struct {
		AccountNumber      string `json:"AccountNumber"`
		AccountCountryCode string `json:"AccountCountryCode"`
	} `json:"Account"`
}

type pickupDateInfo struct {
	CloseTime  string `json:"CloseTime"`
	ReadyTime  string `json:"ReadyTime"`
	PickupDate string `json:"PickupDate"`
}

type pickupAddress struct {
	CompanyName string `json:"CompanyName"`
	ContactName string `json:"ContactName"`
	// AddressLine is an array in Pickup.yaml, of one line.
	AddressLine          []string `json:"AddressLine"`
	Room                 string   `json:"Room,omitempty"`
	City                 string   `json:"City"`
	StateProvince        string   `json:"StateProvince,omitempty"`
	PostalCode           string   `json:"PostalCode,omitempty"`
	CountryCode          string   `json:"CountryCode"`
	ResidentialIndicator string   `json:"ResidentialIndicator"`
	Phone                struct {
		Number string `json:"Number"`
	} `json:"Phone"`
}

type pickupPiece struct {
	ServiceCode            string `json:"ServiceCode"`
	Quantity               string `json:"Quantity"`
	DestinationCountryCode string `json:"DestinationCountryCode"`
	ContainerCode          string `json:"ContainerCode"`
}

type pickupWeight struct {
	Weight            string `json:"Weight"`
	UnitOfMeasurement string `json:"UnitOfMeasurement"`
}

type pickupTracking struct {
	TrackingNumber string `json:"TrackingNumber"`
}

// SchedulePickup requests an on-call pickup (POST /pickupcreation/{version}/
// pickup), paid by the shipper account (PaymentMethod 01), with the pickup's
// reference as ReferenceNumber and transId derived from it, so that a retry
// after a lost answer is the same request to UPS.
func (c *Carrier) SchedulePickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, error) {
	if err := ctx.Err(); err != nil {
		return carriers.PickupConfirmation{}, err
	}
	a := req.Address
	country := carriers.NormalizeCountry(a.Country)
	company := strings.TrimSpace(a.Company)
	if company == "" {
		company = strings.TrimSpace(a.Name)
	}
	residential := "N"
	if a.Residential {
		residential = "Y"
	}
	body := pickupCreationRequest{
		RatePickupIndicator: "N",
		PickupDateInfo: pickupDateInfo{
			PickupDate: req.ReadyAt.Format("20060102"), ReadyTime: req.ReadyAt.Format("1504"),
			CloseTime: req.CloseAt.In(req.ReadyAt.Location()).Format("1504"),
		},
		PickupAddress: pickupAddress{
			// Not shortened: UPS refuses what is too long (carrier_rejected),
			// rather than a driver looking for a cut-off address.
			CompanyName: company, ContactName: strings.TrimSpace(a.Name),
			AddressLine: []string{strings.TrimSpace(a.Street1)}, Room: strings.TrimSpace(a.Street2),
			City: strings.TrimSpace(a.City), StateProvince: strings.ToUpper(strings.TrimSpace(a.State)),
			PostalCode: strings.TrimSpace(a.Zip), CountryCode: country, ResidentialIndicator: residential,
		},
		AlternateAddressIndicator: "Y",
		PickupPiece: []pickupPiece{{ServiceCode: pickupServiceCode, Quantity: strconv.Itoa(min(max(req.PackageCount, 1), 999)),
			DestinationCountryCode: country, ContainerCode: "01"}},
		OverweightIndicator: "N",
		PaymentMethod:       "01",
		SpecialInstruction:  truncate(strings.TrimSpace(req.Instructions), 57),
		ReferenceNumber:     truncate(req.Reference, 35),
	}
	body.Request.TransactionReference.CustomerContext = truncate(req.Reference, 512)
	body.Shipper.Account.AccountNumber = c.cfg.AccountNumber
	// The shipper account's country. A UPS account books pickups in its own
	// country, where the pickup is: Config names no country of the account.
	body.Shipper.Account.AccountCountryCode = country
	body.PickupAddress.Phone.Number = digitsOnly(a.Phone, country)
	if req.TotalWeightOz > 0 {
		lbs := math.Ceil(req.TotalWeightOz/16*10) / 10
		body.TotalWeight = &pickupWeight{Weight: strconv.FormatFloat(lbs, 'f', 1, 64), UnitOfMeasurement: "LBS"}
		if lbs/float64(max(req.PackageCount, 1)) > 70 {
			// Pieces over 70 lb need two people: UPS asks to be told.
			body.OverweightIndicator = "Y"
		}
	}
	for _, tn := range req.TrackingNumbers {
		body.TrackingData = append(body.TrackingData, pickupTracking{TrackingNumber: tn})
	}
	var transID string
	if ref := strings.TrimSpace(req.Reference); ref != "" {
		sum := sha256.Sum256([]byte("shipd/ups/pickup/" + ref))
		transID = hex.EncodeToString(sum[:])[:32]
	}
	ans, err := c.do(ctx, apiRequest{op: opPickup, method: http.MethodPost, path: "/api/pickupcreation/" + pickupVersion + "/pickup",
		body: pickupCreationWrapper{PickupCreationRequest: body}, transID: transID})
	if err != nil {
		return carriers.PickupConfirmation{}, err
	}
	if !ans.ok() {
		return carriers.PickupConfirmation{}, c.failure(opPickup, ans)
	}
	var res struct {
		PickupCreationResponse *struct {
			Response responseStatus `json:"Response"`
			PRN      string         `json:"PRN"`
		} `json:"PickupCreationResponse"`
	}
	if err := json.Unmarshal(ans.body, &res); err != nil {
		return carriers.PickupConfirmation{}, malformed(opPickup, ans.status, "pickup answer is not the documented JSON: %v", err)
	}
	if res.PickupCreationResponse == nil || strings.TrimSpace(res.PickupCreationResponse.PRN) == "" {
		return carriers.PickupConfirmation{}, malformed(opPickup, ans.status, "pickup answer has no PRN")
	}
	return carriers.PickupConfirmation{ConfirmationNumber: res.PickupCreationResponse.PRN}, nil
}

// CancelPickup cancels an on-call pickup by its PRN (DELETE
// /shipments/{version}/pickup/02 with the Prn header).
func (c *Carrier) CancelPickup(ctx context.Context, req carriers.PickupCancelRequest) error {
	prn := strings.TrimSpace(req.ConfirmationNumber)
	if prn == "" {
		return &carriers.Error{Carrier: carrierName, Operation: opCancelPickup, Message: "no PRN to cancel", Kind: carriers.ErrRejected}
	}
	ans, err := c.do(ctx, apiRequest{op: opCancelPickup, method: http.MethodDelete, path: "/api/shipments/" + pickupVersion + "/pickup/02",
		header: map[string]string{"Prn": prn}})
	if err != nil {
		return err
	}
	if !ans.ok() {
		return c.failure(opCancelPickup, ans)
	}
	var res struct {
		PickupCancelResponse *struct {
			Response responseStatus `json:"Response"`
		} `json:"PickupCancelResponse"`
	}
	if err := json.Unmarshal(ans.body, &res); err != nil {
		return malformed(opCancelPickup, ans.status, "cancel answer is not the documented JSON: %v", err)
	}
	if res.PickupCancelResponse == nil || res.PickupCancelResponse.Response.ResponseStatus.Code != "1" {
		return malformed(opCancelPickup, ans.status, "cancel answer has no success status")
	}
	return nil
}

const opFindPickup = "find_pickup"

// pendingStatus is one PickupPendingStatusResponse.PendingStatus entry.
type pendingStatus struct {
	PickupType          string `json:"PickupType"`
	ServiceDate         string `json:"ServiceDate"`
	PRN                 string `json:"PRN"`
	PickupStatusMessage string `json:"PickupStatusMessage"`
	ReferenceNumber     string `json:"ReferenceNumber"`
}

// pickupCancelledStatus is PickupStatusMessage 007, "Cancelled".
const pickupCancelledStatus = "007"

// FindPickup asks UPS's Pickup Pending Status (GET /shipments/{version}/
// pickup/oncall, by the shipper account) for an on-call pickup created
// with req.Reference as its ReferenceNumber, as SchedulePickup sends it.
// UPS lists the pending pickups of today and tomorrow only (Pickup.yaml),
// so a pickup on a later day cannot be told from one never booked:
// carriers.ErrNoPickupLookup. A cancelled pickup (status 007) is not
// found. Any refusal is an error, never "none": a lost schedule is then
// not booked again on a guess.
func (c *Carrier) FindPickup(ctx context.Context, req carriers.PickupRequest) (carriers.PickupConfirmation, bool, error) {
	ref := truncate(strings.TrimSpace(req.Reference), 35)
	if ref == "" {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("ups: a pickup without a reference: %w", carriers.ErrNoPickupLookup)
	}
	day := req.ReadyAt.Format(time.DateOnly)
	if tomorrow := c.cfg.Now().In(req.ReadyAt.Location()).AddDate(0, 0, 1).Format(time.DateOnly); day > tomorrow {
		return carriers.PickupConfirmation{}, false, fmt.Errorf("ups: the pickup is on %s, and UPS lists the pending pickups of today and tomorrow only: %w",
			day, carriers.ErrNoPickupLookup)
	}
	a, err := c.do(ctx, apiRequest{op: opFindPickup, method: http.MethodGet, path: "/api/shipments/" + pickupVersion + "/pickup/oncall",
		header: map[string]string{"AccountNumber": c.cfg.AccountNumber}})
	if err != nil {
		return carriers.PickupConfirmation{}, false, err
	}
	if !a.ok() {
		return carriers.PickupConfirmation{}, false, c.failure(opFindPickup, a)
	}
	var res struct {
		PickupPendingStatusResponse *struct {
			// PendingStatus is an array in Pickup.yaml; an object is read
			// as one entry too, as UPS's JSON answers elsewhere do.
			PendingStatus json.RawMessage `json:"PendingStatus"`
		} `json:"PickupPendingStatusResponse"`
	}
	if err := json.Unmarshal(a.body, &res); err != nil || res.PickupPendingStatusResponse == nil {
		return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status answer is not the documented JSON: %v", err)
	}
	var listed []pendingStatus
	if raw := bytes.TrimSpace(res.PickupPendingStatusResponse.PendingStatus); len(raw) > 0 && raw[0] == '{' {
		var one pendingStatus
		if err := json.Unmarshal(raw, &one); err != nil {
			return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status entry does not parse: %v", err)
		}
		listed = []pendingStatus{one}
	} else if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if err := json.Unmarshal(raw, &listed); err != nil {
			return carriers.PickupConfirmation{}, false, malformed(opFindPickup, a.status, "pending status entries do not parse: %v", err)
		}
	}
	for _, p := range listed {
		if strings.TrimSpace(p.ReferenceNumber) != ref || strings.TrimSpace(p.PRN) == "" ||
			strings.HasPrefix(strings.TrimSpace(p.PickupStatusMessage), pickupCancelledStatus) {
			continue
		}
		return carriers.PickupConfirmation{ConfirmationNumber: strings.TrimSpace(p.PRN)}, true, nil
	}
	return carriers.PickupConfirmation{}, false, nil
}
