package upsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"
)

// OpPickup and OpCancelPickup are the Pickup API's creation and cancel.
const (
	OpPickup       = "pickup"
	OpCancelPickup = "cancel-pickup"
)

// PickupNoServicePostal is a ZIP code the fake has no pickup service for:
// the creation is refused as UPS refuses an address outside its area.
const PickupNoServicePostal = "99950"

type fakePickup struct {
	body      []byte
	cancelled bool
}

var (
	hhmm       = regexp.MustCompile(`^([01]\d|2[0-3])[0-5]\d$`)
	pieceCodes = []string{"01", "02", "03"}
)

// Pickup returns the body a pickup was created with and whether it was
// cancelled; ok is false for an unknown PRN.
func (s *Server) Pickup(prn string) (body []byte, cancelled, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pickups[prn]
	if !ok {
		return nil, false, false
	}
	return p.body, p.cancelled, true
}

// pickupCreation answers POST /pickupcreation/{version}/pickup after
// checking PickupCreationRequest's required containers and fields.
func (s *Server) pickupCreation(w http.ResponseWriter, r *http.Request, body []byte) {
	if v := r.PathValue("version"); v != "v2409" {
		writeErrors(w, http.StatusBadRequest, apiError{codeInvalid, fmt.Sprintf("The field, version, contains invalid data, %q.", v)})
		return
	}
	var req struct {
		PickupCreationRequest *struct {
			Request             *json.RawMessage `json:"Request"`
			RatePickupIndicator string           `json:"RatePickupIndicator"`
			Shipper             *struct {
				Account *struct {
					AccountNumber      string `json:"AccountNumber"`
					AccountCountryCode string `json:"AccountCountryCode"`
				} `json:"Account"`
			} `json:"Shipper"`
			PickupDateInfo *struct {
				CloseTime, ReadyTime, PickupDate string
			} `json:"PickupDateInfo"`
			PickupAddress *struct {
				CompanyName, ContactName, City, PostalCode, CountryCode, ResidentialIndicator string
				// AddressLine is an array in Pickup.yaml (one line allowed).
				AddressLine []string
				Phone       *struct{ Number string }
			} `json:"PickupAddress"`
			AlternateAddressIndicator string
			PickupPiece               []struct{ ServiceCode, Quantity, DestinationCountryCode, ContainerCode string }
			PaymentMethod             string
		} `json:"PickupCreationRequest"`
	}
	bad := func(code, msg string) { writeErrors(w, http.StatusBadRequest, apiError{code, msg}) }
	if err := json.Unmarshal(body, &req); err != nil || req.PickupCreationRequest == nil {
		bad("10001", "The request is not well formed.")
		return
	}
	p := req.PickupCreationRequest
	missing := func(field string) { bad("20002", "Missing or invalid "+field+".") }
	switch {
	case p.Request == nil:
		missing("Request")
		return
	case p.RatePickupIndicator != "Y" && p.RatePickupIndicator != "N":
		missing("RatePickupIndicator")
		return
	case p.PaymentMethod == "":
		missing("PaymentMethod")
		return
	case p.PaymentMethod == "01" && (p.Shipper == nil || p.Shipper.Account == nil || p.Shipper.Account.AccountNumber != accountOf(r)):
		bad("9500505", "The shipper account number is missing or not valid for pickups paid by the shipper.")
		return
	case p.PickupDateInfo == nil || !hhmm.MatchString(p.PickupDateInfo.ReadyTime) || !hhmm.MatchString(p.PickupDateInfo.CloseTime):
		missing("PickupDateInfo (ReadyTime and CloseTime are HHMM)")
		return
	case p.PickupAddress == nil || p.PickupAddress.CompanyName == "" || p.PickupAddress.ContactName == "" ||
		len(p.PickupAddress.AddressLine) != 1 || p.PickupAddress.AddressLine[0] == "" ||
		p.PickupAddress.City == "" || p.PickupAddress.CountryCode == "" || p.PickupAddress.Phone == nil || p.PickupAddress.Phone.Number == "" ||
		(p.PickupAddress.ResidentialIndicator != "Y" && p.PickupAddress.ResidentialIndicator != "N"):
		missing("PickupAddress (CompanyName, ContactName, AddressLine, City, CountryCode, ResidentialIndicator, Phone)")
		return
	case len(p.PickupAddress.CompanyName) > 27 || len(p.PickupAddress.ContactName) > 22:
		bad(codeInvalid, "The field, CompanyName or ContactName, is too long.")
		return
	case p.AlternateAddressIndicator != "Y" && p.AlternateAddressIndicator != "N":
		missing("AlternateAddressIndicator")
		return
	case len(p.PickupPiece) == 0:
		missing("PickupPiece")
		return
	}
	for _, pc := range p.PickupPiece {
		if len(pc.ServiceCode) != 3 || pc.Quantity == "" || len(pc.DestinationCountryCode) != 2 || !slices.Contains(pieceCodes, pc.ContainerCode) {
			missing("PickupPiece (ServiceCode, Quantity, DestinationCountryCode, ContainerCode)")
			return
		}
	}
	day, err := time.Parse("20060102", p.PickupDateInfo.PickupDate)
	switch {
	case err != nil:
		missing("PickupDate (YYYYMMDD)")
		return
	case day.Weekday() == time.Sunday:
		bad("9510113", "The requested pickup date is not a valid pickup day.")
		return
	case p.PickupDateInfo.CloseTime <= p.PickupDateInfo.ReadyTime:
		bad("9510120", "The close time must be later than the ready time.")
		return
	case p.PickupAddress.PostalCode == PickupNoServicePostal:
		bad("9510108", "UPS does not offer pickup service at this address.")
		return
	}
	s.mu.Lock()
	s.seq++
	prn := fmt.Sprintf("2929%07d", 6000000+s.seq)
	s.pickups[prn] = &fakePickup{body: append([]byte(nil), body...)}
	s.mu.Unlock()
	s.waitPickupHold(r) // the pickup is booked; only its answer is held
	// RateStatus is required in Pickup.yaml's PickupCreationResponse; the
	// fake rates no pickup.
	rateStatus := map[string]string{"Code": "04", "Description": "Rate not requested"}
	if p.RatePickupIndicator == "Y" {
		rateStatus = map[string]string{"Code": "02", "Description": "Rate not available"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"PickupCreationResponse": map[string]any{
		"Response": success(), "PRN": prn, "RateStatus": rateStatus,
	}})
}

// pickupCancel answers DELETE /shipments/{version}/pickup/{CancelBy}: by
// PRN (02) with the Prn header.
func (s *Server) pickupCancel(w http.ResponseWriter, r *http.Request, _ []byte) {
	if r.PathValue("CancelBy") != "02" {
		writeErrors(w, http.StatusBadRequest, apiError{codeInvalid, "The field, CancelBy, contains invalid data; shipd's fake takes 02 (PRN)."})
		return
	}
	prn := r.Header.Get("Prn")
	s.mu.Lock()
	p, ok := s.pickups[prn]
	var e *apiError
	switch {
	case prn == "":
		e = &apiError{"20002", "Missing or invalid Prn."}
	case !ok:
		e = &apiError{"9510151", "No pickup was found for this PRN."}
	case p.cancelled:
		e = &apiError{"9510152", "The pickup was already cancelled."}
	default:
		p.cancelled = true
	}
	s.mu.Unlock()
	if e != nil {
		writeErrors(w, http.StatusBadRequest, *e)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"PickupCancelResponse": map[string]any{
		"Response": success(), "PickupType": "01",
	}})
}
