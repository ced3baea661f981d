package dhlexpressfake

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// pickup is the fake's record of a pickup booked.
type pickup struct {
	fakekit.Pickup
	account string
}

type pickupRequest struct {
	PlannedPickupDateAndTime string    `json:"plannedPickupDateAndTime"`
	CloseTime                string    `json:"closeTime"`
	Accounts                 []account `json:"accounts"`
	ShipmentDetails          []struct {
		Packages []packageIn `json:"packages"`
	} `json:"shipmentDetails"`
}

var closeTimeForm = regexp.MustCompile(`^([0-1][0-9]|2[0-3]):[0-5][0-9]$`)

func (s *Server) schedulePickup(w http.ResponseWriter, r *http.Request, body []byte) {
	var req pickupRequest
	if !decode(w, r, body, &req) || !checkAccounts(w, r, req.Accounts) {
		return
	}
	ready, ok := parsePlanned(req.PlannedPickupDateAndTime)
	if !ok {
		badRequest(w, r, "", "plannedPickupDateAndTime is not of the form 2022-11-20T09:19:40 GMT+08:00")
		return
	}
	if req.CloseTime != "" && !closeTimeForm.MatchString(req.CloseTime) {
		badRequest(w, r, "", "closeTime is not of the form HH:MM")
		return
	}
	if ready.Before(s.Now().Add(-24 * time.Hour)) {
		badRequest(w, r, "8012", "The pickup date is in the past.")
		return
	}
	s.mu.Lock()
	s.pickupSeq++
	code := fmt.Sprintf("PRG%s%06d", ready.Format("060102"), s.pickupSeq)
	s.mu.Unlock()
	s.pickups.Schedule(&pickup{Pickup: fakekit.Pickup{Code: code, Body: body}, account: callerAccount(r)})
	fakekit.WriteJSON(w, http.StatusCreated, map[string]any{"dispatchConfirmationNumbers": []string{code}})
}

// Pickup returns the body the pickup of code was booked with and whether
// it was cancelled; ok is false for an unknown code.
func (s *Server) Pickup(code string) (body []byte, cancelled, ok bool) { return s.pickups.Pickup(code) }

var errNotYours = errors.New("not the caller's pickup")

func (s *Server) cancelPickup(w http.ResponseWriter, r *http.Request, _ []byte) {
	code := r.PathValue("number")
	q := r.URL.Query()
	if q.Get("requestorName") == "" || q.Get("reason") == "" {
		badRequest(w, r, "", "Missing mandatory parameters: requestorName, reason")
		return
	}
	err := s.pickups.Cancel(code, func(p *pickup) error {
		if p.account != callerAccount(r) {
			return errNotYours
		}
		return nil
	})
	switch {
	case errors.Is(err, fakekit.ErrNoPickup), errors.Is(err, errNotYours):
		writeProblem(w, r, http.StatusNotFound, "Not data found", "", "No pickup found for dispatch confirmation number "+code)
	case errors.Is(err, fakekit.ErrPickupCancelled):
		badRequest(w, r, "8030", "The pickup "+code+" is already cancelled.")
	case err != nil:
		badRequest(w, r, "", err.Error())
	default:
		w.WriteHeader(http.StatusOK)
	}
}
