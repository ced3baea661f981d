package uspsfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// OpPickup and OpCancelPickup are Carrier Pickup 3.0's schedule and
// cancel; OpGetPickup its read (which gives the ETag a cancel needs).
const (
	OpPickup       = "pickup"
	OpGetPickup    = "get-pickup"
	OpCancelPickup = "cancel-pickup"
)

// PickupIneligibleStreet in a pickup's street makes the address ineligible
// for Carrier Pickup: the fake answers USPS's 400.
const PickupIneligibleStreet = "NO PICKUP"

type fakePickup struct {
	fakekit.Pickup
	etag string
	date string
}

var (
	pickupPackageTypes = []string{"FIRST-CLASS_PACKAGE_SERVICE", "PRIORITY_MAIL_EXPRESS", "PRIORITY_MAIL", "RETURNS", "USPS_GROUND_ADVANTAGE", "INTERNATIONAL", "OTHER"}
	pickupLocations    = []string{"FRONT_DOOR", "BACK_DOOR", "SIDE_DOOR", "KNOCK_ON_DOOR", "MAIL_ROOM", "OFFICE", "PORCH", "RECEPTION", "MAILBOX", "OTHER"}
	fiveDigits         = regexp.MustCompile(`^\d{5}$`)
	tenDigitCell       = regexp.MustCompile(`^\d{10}$`)
)

const pickupAPI = "/pickup/v3"

// Pickup returns the body a pickup was scheduled with and whether it was
// cancelled; ok is false for an unknown confirmation number.
func (s *Server) Pickup(confirmationNumber string) (body []byte, cancelled, ok bool) {
	return s.pickups.Pickup(confirmationNumber)
}

// schedulePickup answers POST /carrier-pickup after checking
// SchedulePickupRequest's required fields, enumerations and the day.
func (s *Server) schedulePickup(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		PickupDate    string `json:"pickupDate"`
		PickupAddress *struct {
			FirstName string `json:"firstName"`
			LastName  string `json:"lastName"`
			Address   *struct {
				StreetAddress string `json:"streetAddress"`
				City          string `json:"city"`
				State         string `json:"state"`
				ZIPCode       string `json:"ZIPCode"`
			} `json:"address"`
			Contact []struct {
				Email      string `json:"email"`
				CellNumber string `json:"cellNumber"`
			} `json:"contact"`
		} `json:"pickupAddress"`
		Packages []struct {
			PackageType  string `json:"packageType"`
			PackageCount int    `json:"packageCount"`
		} `json:"packages"`
		EstimatedWeight *float64 `json:"estimatedWeight"`
		PickupLocation  *struct {
			PackageLocation     string `json:"packageLocation"`
			SpecialInstructions string `json:"specialInstructions"`
		} `json:"pickupLocation"`
	}
	bad := func(detail, parameter string) {
		writeError(w, http.StatusBadRequest, pickupAPI, "Bad Request", "", detail, parameter)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		bad("the request body is not valid JSON", "")
		return
	}
	day, err := time.Parse(time.DateOnly, req.PickupDate)
	a := req.PickupAddress
	switch {
	case err != nil:
		bad("pickupDate must be a date (YYYY-MM-DD)", "pickupDate")
		return
	case a == nil:
		bad("pickupAddress is required", "pickupAddress")
		return
	case a.FirstName == "" || a.LastName == "":
		bad("firstName and lastName are required", "pickupAddress.firstName")
		return
	case a.Address == nil || a.Address.StreetAddress == "":
		bad("pickupAddress.address.streetAddress is required", "pickupAddress.address.streetAddress")
		return
	case !fiveDigits.MatchString(a.Address.ZIPCode) && (a.Address.City == "" || a.Address.State == ""):
		bad("a ZIPCode or a city and state is required", "pickupAddress.address.ZIPCode")
		return
	case len(a.Contact) < 1 || len(a.Contact) > 2:
		bad("contact must have one or two methods", "pickupAddress.contact")
		return
	case len(req.Packages) == 0:
		bad("packages is required", "packages")
		return
	case req.EstimatedWeight == nil || *req.EstimatedWeight <= 0:
		bad("estimatedWeight is required", "estimatedWeight")
		return
	case req.PickupLocation == nil || !slices.Contains(pickupLocations, req.PickupLocation.PackageLocation):
		bad("pickupLocation.packageLocation is required and must be one of "+strings.Join(pickupLocations, ", "), "pickupLocation.packageLocation")
		return
	case req.PickupLocation.PackageLocation == "OTHER" && req.PickupLocation.SpecialInstructions == "":
		bad("specialInstructions is required when packageLocation is OTHER", "pickupLocation.specialInstructions")
		return
	}
	for _, c := range a.Contact {
		if (c.Email == "") == (c.CellNumber == "") || (c.CellNumber != "" && !tenDigitCell.MatchString(c.CellNumber)) {
			bad("each contact is an email or a 10-digit cellNumber", "pickupAddress.contact")
			return
		}
	}
	for _, p := range req.Packages {
		if !slices.Contains(pickupPackageTypes, p.PackageType) || p.PackageCount < 1 {
			bad("each package needs a packageType of "+strings.Join(pickupPackageTypes, ", ")+" and a packageCount", "packages.packageType")
			return
		}
	}
	today := s.Now().UTC().Format(time.DateOnly)
	switch {
	case day.Weekday() == time.Sunday:
		bad("Carrier Pickup is not available on Sundays.", "pickupDate")
		return
	case req.PickupDate < today:
		bad("The pickup date cannot be in the past.", "pickupDate")
		return
	case strings.Contains(strings.ToUpper(a.Address.StreetAddress), PickupIneligibleStreet):
		bad("This address is not eligible for Carrier Pickup.", "pickupAddress.address")
		return
	}
	s.mu.Lock()
	s.serial++
	cn := fmt.Sprintf("WTC%08d", 40000000+s.serial)
	s.mu.Unlock()
	s.pickups.Schedule(&fakePickup{Pickup: fakekit.Pickup{Code: cn, Body: append([]byte(nil), body...)}, etag: fakekit.NewID("etag"), date: req.PickupDate})
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"confirmationNumber": cn, "pickupDate": req.PickupDate, "carrierPickupRequest": json.RawMessage(body)})
}

// getPickup answers GET /carrier-pickup/{confirmationNumber} with the ETag.
func (s *Server) getPickup(w http.ResponseWriter, r *http.Request, _ []byte) {
	cn := r.PathValue("confirmationNumber")
	var etag, date string
	var body json.RawMessage
	if !s.pickups.With(cn, func(p *fakePickup) { etag, date, body = p.etag, p.date, p.Body }) {
		writeError(w, http.StatusNotFound, pickupAPI, "Not Found", "", "No pickup was found for this confirmation number.", "confirmationNumber")
		return
	}
	w.Header().Set("ETag", etag)
	fakekit.WriteJSON(w, http.StatusOK, []map[string]any{{"confirmationNumber": cn, "pickupDate": date, "carrierPickupRequest": body}})
}

// cancelPickup answers DELETE /carrier-pickup/{confirmationNumber}: the
// If-Match must be the pickup's current ETag; a cancelled pickup cannot be
// cancelled again.
func (s *Server) cancelPickup(w http.ResponseWriter, r *http.Request, _ []byte) {
	cn := r.PathValue("confirmationNumber")
	ifMatch := r.Header.Get("If-Match")
	err := s.pickups.Cancel(cn, func(p *fakePickup) error {
		switch {
		case ifMatch == "":
			return errNoIfMatch
		case ifMatch != p.etag:
			return errStaleETag
		}
		return nil
	})
	switch {
	case errors.Is(err, fakekit.ErrNoPickup):
		writeError(w, http.StatusNotFound, pickupAPI, "Not Found", "", "No pickup was found for this confirmation number.", "confirmationNumber")
	case errors.Is(err, errNoIfMatch):
		writeError(w, http.StatusBadRequest, pickupAPI, "Bad Request", "", "the If-Match header is required", "If-Match")
	case errors.Is(err, errStaleETag):
		writeError(w, http.StatusPreconditionFailed, pickupAPI, "Precondition Failed", "", "The ETag does not match the current pickup.", "If-Match")
	case errors.Is(err, fakekit.ErrPickupCancelled):
		writeError(w, http.StatusBadRequest, pickupAPI, "Bad Request", "", "This pickup was already cancelled.", "confirmationNumber")
	default:
		s.pickups.With(cn, func(p *fakePickup) { p.etag = fakekit.NewID("etag") }) // the cancelled pickup is another version
		w.WriteHeader(http.StatusOK)
	}
}

// Refusals of a cancel's If-Match.
var (
	errNoIfMatch = errors.New("uspsfake: no If-Match")
	errStaleETag = errors.New("uspsfake: If-Match is not the pickup's ETag")
)
