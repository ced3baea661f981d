package fedexfake

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// Pickup API operations and paths.
const (
	OpPickup       = "pickup"
	OpCancelPickup = "cancel-pickup"

	PathPickup       = "/pickup/v1/pickups"
	PathCancelPickup = "/pickup/v1/pickups/cancel"
)

// PickupNoServicePostal is a postal code without FedEx pickup service: the
// fake refuses it as FedEx refuses an area it does not serve.
const PickupNoServicePostal = "99950"

var (
	localTimestamp = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$`)
	localTime      = regexp.MustCompile(`^\d{2}:\d{2}:\d{2}$`)
)

type fakePickup struct {
	fakekit.Pickup
	date     string
	location string
}

type createPickupRequest struct {
	AssociatedAccountNumber *accountNumber `json:"associatedAccountNumber"`
	OriginDetail            *struct {
		PickupLocation *struct {
			Contact *struct {
				CompanyName string `json:"companyName"`
				PersonName  string `json:"personName"`
				PhoneNumber string `json:"phoneNumber"`
			} `json:"contact"`
			Address *struct {
				StreetLines         []string `json:"streetLines"`
				City                string   `json:"city"`
				StateOrProvinceCode string   `json:"stateOrProvinceCode"`
				PostalCode          string   `json:"postalCode"`
				CountryCode         string   `json:"countryCode"`
				Residential         bool     `json:"residential"`
			} `json:"address"`
		} `json:"pickupLocation"`
		ReadyDateTimestamp string `json:"readyDateTimestamp"`
		CustomerCloseTime  string `json:"customerCloseTime"`
		PickupDateType     string `json:"pickupDateType"`
		PackageLocation    string `json:"packageLocation"`
	} `json:"originDetail"`
	TotalWeight          *weight `json:"totalWeight"`
	PackageCount         int     `json:"packageCount"`
	CarrierCode          string  `json:"carrierCode"`
	Remarks              string  `json:"remarks"`
	CountryRelationships string  `json:"countryRelationships"`
	TrackingNumber       string  `json:"trackingNumber"`
}

type cancelPickupRequest struct {
	AssociatedAccountNumber *accountNumber `json:"associatedAccountNumber"`
	PickupConfirmationCode  string         `json:"pickupConfirmationCode"`
	CarrierCode             string         `json:"carrierCode"`
	ScheduledDate           string         `json:"scheduledDate"`
	Location                string         `json:"location"`
}

// Pickup returns the body a pickup was created with and whether it was
// cancelled; ok is false for an unknown confirmation code.
func (s *Server) Pickup(code string) (body []byte, cancelled, ok bool) { return s.pickups.Pickup(code) }

// createPickup answers POST /pickup/v1/pickups after checking
// Full_Schema_Create_Pickup's required fields and enumerations.
func (s *Server) createPickup(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req createPickupRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the create pickup schema: " + err.Error()})
		return
	}
	var p problems
	p.account(req.AssociatedAccountNumber)
	p.enum("carrierCode", req.CarrierCode, []string{"FDXE", "FDXG"})
	if req.CountryRelationships != "" {
		p.enum("countryRelationships", req.CountryRelationships, []string{"DOMESTIC", "INTERNATIONAL"})
	}
	if req.TotalWeight != nil {
		p.weight("totalWeight", req.TotalWeight, 0)
	}
	if len([]rune(req.Remarks)) > 60 {
		p.add("remarks is longer than 60 characters")
	}
	o := req.OriginDetail
	var day time.Time
	if o == nil {
		p.add("originDetail is required")
	} else {
		if !localTimestamp.MatchString(o.ReadyDateTimestamp) {
			p.add("originDetail.readyDateTimestamp %q is not YYYY-MM-DDTHH:MM:SS (local, without a time zone)", o.ReadyDateTimestamp)
		} else {
			day, _ = time.Parse("2006-01-02T15:04:05", o.ReadyDateTimestamp)
		}
		if !localTime.MatchString(o.CustomerCloseTime) {
			p.add("originDetail.customerCloseTime %q is not HH:MM:SS", o.CustomerCloseTime)
		}
		if o.PickupDateType != "" {
			p.enum("originDetail.pickupDateType", o.PickupDateType, []string{"SAME_DAY", "FUTURE_DAY"})
		}
		if o.PackageLocation != "" {
			p.enum("originDetail.packageLocation", o.PackageLocation, []string{"FRONT", "NONE", "REAR", "SIDE"})
		}
		switch loc := o.PickupLocation; {
		case loc == nil || loc.Address == nil || loc.Contact == nil:
			p.add("originDetail.pickupLocation.address and contact are required")
		default:
			if len(loc.Address.StreetLines) == 0 {
				p.add("originDetail.pickupLocation.address.streetLines is required")
			}
			p.required("originDetail.pickupLocation.address.city", loc.Address.City)
			p.country("originDetail.pickupLocation.address", loc.Address.CountryCode, loc.Address.StateOrProvinceCode, loc.Address.PostalCode)
			p.required("originDetail.pickupLocation.contact.personName", loc.Contact.PersonName)
			if n := len(loc.Contact.PhoneNumber); n < 8 || n > 15 {
				p.add("originDetail.pickupLocation.contact.phoneNumber must have 8 to 15 digits")
			}
		}
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if req.AssociatedAccountNumber.Value != AccountNumber {
		writeAccountError(w)
		return
	}
	switch {
	case day.Weekday() == time.Sunday:
		writeError(w, http.StatusBadRequest, "PICKUP.DATE.INVALID", "Pickup is not available on the requested date.")
		return
	case o.CustomerCloseTime <= day.Format("15:04:05"):
		writeError(w, http.StatusBadRequest, "PICKUP.CLOSETIME.INVALID", "The customer close time must be later than the ready time.")
		return
	case o.PickupLocation.Address.PostalCode == PickupNoServicePostal:
		writeError(w, http.StatusBadRequest, "PICKUP.SERVICE.UNAVAILABLE", "Pickup service is not available for this postal code.")
		return
	}
	s.mu.Lock()
	s.pickupSeq++
	code := fmt.Sprintf("CPU%08d", 16200000+s.pickupSeq)
	s.mu.Unlock()
	location := "NQAA"
	s.pickups.Schedule(&fakePickup{Pickup: fakekit.Pickup{Code: code, Body: append([]byte(nil), body...)}, date: day.Format("2006-01-02"), location: location})
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"transactionId": newTransactionID(), "output": map[string]any{
		"pickupConfirmationCode": code, "message": "Courier on the way", "location": location,
	}})
}

// cancelPickup answers PUT /pickup/v1/pickups/cancel: the code and the
// scheduled date must name a pickup that is not cancelled yet.
func (s *Server) cancelPickup(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req cancelPickupRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the cancel pickup schema: " + err.Error()})
		return
	}
	var p problems
	p.account(req.AssociatedAccountNumber)
	p.required("pickupConfirmationCode", req.PickupConfirmationCode)
	p.date("scheduledDate", req.ScheduledDate)
	if req.CarrierCode != "" {
		p.enum("carrierCode", req.CarrierCode, []string{"FDXE", "FDXG"})
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	err := s.pickups.Cancel(req.PickupConfirmationCode, func(pk *fakePickup) error {
		if pk.date != req.ScheduledDate {
			return fakekit.ErrNoPickup
		}
		return nil
	})
	switch {
	case errors.Is(err, fakekit.ErrNoPickup):
		writeError(w, http.StatusBadRequest, "PICKUP.CANCEL.INVALID", "No pickup was found for this confirmation code and date.")
		return
	case errors.Is(err, fakekit.ErrPickupCancelled):
		writeError(w, http.StatusBadRequest, "PICKUP.CANCEL.INVALID", "The pickup was already cancelled.")
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"transactionId": newTransactionID(), "output": map[string]any{
		"pickupConfirmationCode": req.PickupConfirmationCode, "cancelConfirmationMessage": "Requested pickup has been cancelled Successfully.",
	}})
}
