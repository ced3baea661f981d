package upsfake

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

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
