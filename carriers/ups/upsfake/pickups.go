package upsfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// OpPickup and OpCancelPickup are the Pickup API's creation and cancel.
const (
	OpPickup       = "pickup"
	OpCancelPickup = "cancel-pickup"
)

// PickupNoServicePostal is a ZIP code the fake has no pickup service for:
// the creation is refused as UPS refuses an address outside its area.
const PickupNoServicePostal = "99950"

var (
	hhmm       = regexp.MustCompile(`^([01]\d|2[0-3])[0-5]\d$`)
	pieceCodes = []string{"01", "02", "03"}
)

// Pickup returns the body a pickup was created with and whether it was
// cancelled; ok is false for an unknown PRN.
func (s *Server) Pickup(prn string) (body []byte, cancelled, ok bool) { return s.pickups.Pickup(prn) }

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
	case p.PaymentMethod == "01" && p.PickupAddress != nil && p.Shipper.Account.AccountCountryCode != p.PickupAddress.CountryCode:
		// The fake's account is of the country it picks up in, as a UPS
		// account books pickups in its own.
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
	s.pickups.Schedule(&fakekit.Pickup{Code: prn, Body: append([]byte(nil), body...)})
	s.mu.Unlock()
	// RateStatus is required in Pickup.yaml's PickupCreationResponse; the
	// fake rates no pickup.
	rateStatus := map[string]string{"Code": "04", "Description": "Rate not requested"}
	if p.RatePickupIndicator == "Y" {
		rateStatus = map[string]string{"Code": "02", "Description": "Rate not available"}
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"PickupCreationResponse": map[string]any{
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
	if prn == "" {
		writeErrors(w, http.StatusBadRequest, apiError{"20002", "Missing or invalid Prn."})
		return
	}
	if refused(w, s.pickups.Cancel(prn, nil), map[error]apiError{
		fakekit.ErrNoPickup:        {"9510151", "No pickup was found for this PRN."},
		fakekit.ErrPickupCancelled: {"9510152", "The pickup was already cancelled."},
	}) {
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"PickupCancelResponse": map[string]any{
		"Response": success(), "PickupType": "01",
	}})
}

// OpPickupPending is the Pickup API's Pickup Pending Status (GET
// /shipments/{version}/pickup/{pickuptype}).
const OpPickupPending = "pickup-pending"

// PickupRecord is one pickup the fake booked: its PRN, the
// ReferenceNumber it was created with and whether it was cancelled.
type PickupRecord struct {
	PRN       string
	Reference string
	Cancelled bool
}

// Pickups lists the pickups booked with the reference, oldest first.
func (s *Server) Pickups(reference string) []PickupRecord {
	var out []PickupRecord
	s.pickups.Each(func(p *fakekit.Pickup) {
		if ref := pickupFields(p.Body).ReferenceNumber; ref == reference {
			out = append(out, PickupRecord{PRN: p.Code, Reference: ref, Cancelled: p.Cancelled})
		}
	})
	return out
}

// HoldPickups makes every pickup creation answer from now on wait until
// ReleasePickups: the pickup is booked (Pickups lists it) when the request
// arrives, only the answer is held, as when the client dies mid-call.
func (s *Server) HoldPickups() { s.Hold(OpPickup) }

// ReleasePickups sends the held pickup answers and stops holding.
func (s *Server) ReleasePickups() { s.Release(OpPickup) }

// storedPickup is what the fake reads back from a creation's body.
type storedPickup struct {
	ReferenceNumber, PickupDate, ContactName, Account string
}

func pickupFields(body []byte) storedPickup {
	var req struct {
		PickupCreationRequest struct {
			ReferenceNumber string
			PickupDateInfo  struct{ PickupDate string }
			PickupAddress   struct{ ContactName string }
			Shipper         struct {
				Account struct{ AccountNumber string }
			}
		}
	}
	_ = json.Unmarshal(body, &req)
	p := req.PickupCreationRequest
	return storedPickup{ReferenceNumber: p.ReferenceNumber, PickupDate: p.PickupDateInfo.PickupDate,
		ContactName: p.PickupAddress.ContactName, Account: p.Shipper.Account.AccountNumber}
}

// pickupPending answers Pickup Pending Status: the on-call pickups of the
// AccountNumber header's account, as Pickup.yaml says, "for today and
// tomorrow only" (service dates from yesterday to tomorrow in UTC, so that
// a US pickup's local today and tomorrow are in). A cancelled pickup is
// listed with status 007.
func (s *Server) pickupPending(w http.ResponseWriter, r *http.Request, _ []byte) {
	switch {
	case r.PathValue("version") != "v2409":
		writeErrors(w, http.StatusBadRequest, apiError{codeInvalid, "The field, version, contains invalid data."})
		return
	case r.PathValue("pickuptype") != "oncall" && r.PathValue("pickuptype") != "smart" && r.PathValue("pickuptype") != "both":
		writeErrors(w, http.StatusBadRequest, apiError{codeInvalid, "The field, pickuptype, contains invalid data; oncall, smart or both."})
		return
	case r.Header.Get("AccountNumber") == "":
		writeErrors(w, http.StatusBadRequest, apiError{"20002", "Missing or invalid AccountNumber."})
		return
	case r.Header.Get("AccountNumber") != accountOf(r):
		writeErrors(w, http.StatusBadRequest, apiError{"9500505", "The account number is not valid for this client."})
		return
	}
	today := s.Now().UTC()
	listed := []map[string]string{}
	s.pickups.Each(func(p *fakekit.Pickup) {
		f := pickupFields(p.Body)
		day, err := time.Parse("20060102", f.PickupDate)
		if err != nil || f.Account != accountOf(r) || day.Before(dateOf(today.AddDate(0, 0, -1))) || day.After(dateOf(today.AddDate(0, 0, 1))) {
			return
		}
		status := "012" // "Your pickup request is being processed"
		if p.Cancelled {
			status = "007"
		}
		entry := map[string]string{"PickupType": "01", "ServiceDate": f.PickupDate, "PRN": p.Code,
			"PickupStatusMessage": status, "BillingCode": "01", "ContactName": f.ContactName}
		if f.ReferenceNumber != "" {
			entry["ReferenceNumber"] = f.ReferenceNumber
		}
		listed = append(listed, entry)
	})
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"PickupPendingStatusResponse": map[string]any{
		"Response": success(), "PendingStatus": listed,
	}})
}

func dateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
