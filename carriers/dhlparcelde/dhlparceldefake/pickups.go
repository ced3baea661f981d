package dhlparceldefake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// pickup is what the fake keeps of a pickup it booked.
type pickup struct {
	fakekit.Pickup
	account, date string
}

// token is POST /parcel/de/account/auth/ropc/v1/token, the authentication
// API's resource owner password grant: a form body with grant_type
// password, the portal user and password, and the app's API key and secret
// as client_id and client_secret. No vendored document has it; its
// answers are RFC 6749's (the token, or "error" and
// "error_description").
func (s *Server) token(w http.ResponseWriter, r *http.Request, body []byte) {
	oauthError := func(status int, code, desc string) {
		writeJSON(w, status, plainJSON, map[string]string{"error": code, "error_description": desc})
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		oauthError(http.StatusBadRequest, "invalid_request", "The body must be a form.")
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		oauthError(http.StatusBadRequest, "invalid_request", "The form does not parse.")
		return
	}
	if form.Get("grant_type") != "password" {
		oauthError(http.StatusBadRequest, "unsupported_grant_type", "Only the password grant is supported.")
		return
	}
	s.mu.Lock()
	c, known := s.customers[form.Get("username")]
	s.mu.Unlock()
	switch {
	case !known || c.APIKey != form.Get("client_id") || c.APISecret == "" || c.APISecret != form.Get("client_secret"):
		oauthError(http.StatusUnauthorized, "invalid_client", "Client authentication failed.")
		return
	case c.Password != form.Get("password"):
		oauthError(http.StatusUnauthorized, "invalid_grant", "Invalid user credentials.")
		return
	}
	tok, _ := s.tokens.Issue(fakekit.Client{ID: c.Username, Secret: c.Password, Account: c.BillingNumber}, DefaultTokenTTL)
	writeJSON(w, http.StatusOK, plainJSON, map[string]any{
		"access_token": tok, "token_type": "Bearer", "expires_in": int(DefaultTokenTTL.Seconds()),
	})
}

// ExpireTokens makes every pickup token issued so far invalid, as if they
// had expired: the next pickup call with one is refused.
func (s *Server) ExpireTokens() { s.tokens.Clear() }

// pickupError answers the Pickup API's 422: an array of Error.
func pickupError(w http.ResponseWriter, code int, title, instance, detail string) {
	writeJSON(w, http.StatusUnprocessableEntity, pickupJSON, []any{map[string]any{
		"errorCode": code, "title": title, "instance": instance, "detail": detail}})
}

// pickup is POST /orders of the Pickup API: a pickup at an address in
// Germany, on a date not past, booked on the caller's billing number.
func (s *Server) pickup(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		CustomerDetails *struct {
			BillingNumber string `json:"billingNumber"`
		} `json:"customerDetails"`
		PickupLocation struct {
			Type          string `json:"type"`
			PickupAddress *struct {
				Country string `json:"country"`
			} `json:"pickupAddress"`
		} `json:"pickupLocation"`
		PickupDetails struct {
			PickupDate struct {
				Type  string `json:"type"`
				Value string `json:"value"`
			} `json:"pickupDate"`
		} `json:"pickupDetails"`
		ShipmentDetails struct {
			Shipments []struct {
				TransportationType string `json:"transportationType"`
				ShipmentNo         string `json:"shipmentNo"`
				Size               string `json:"size"`
			} `json:"shipments"`
		} `json:"shipmentDetails"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	c := s.customerOf(r)
	today := berlinDate(s.Now())
	date := req.PickupDetails.PickupDate.Value
	switch {
	case req.CustomerDetails == nil || len(req.CustomerDetails.BillingNumber) != 14 || req.CustomerDetails.BillingNumber[:10] != c.BillingNumber[:10]:
		pickupError(w, 456, "Unknown billingnumber", "customerDetails.billingNumber", "")
		return
	case req.PickupLocation.Type != "Address" || req.PickupLocation.PickupAddress == nil || req.PickupLocation.PickupAddress.Country != "DE":
		pickupError(w, 410, "Pickup location not served", "pickupLocation", "DHL picks up in Germany only.")
		return
	case req.PickupDetails.PickupDate.Type == "Date" && date < today:
		pickupError(w, 420, "Pickup date in the past", "pickupDetails.pickupDate", date)
		return
	case req.PickupDetails.PickupDate.Type == "ASAP":
		date = today
	}
	id := fakekit.NewID("")[:32]
	s.pickups.Schedule(&pickup{Pickup: fakekit.Pickup{Code: id, Body: body}, account: c.Username, date: date})
	var confirmed []any
	for _, sh := range req.ShipmentDetails.Shipments {
		cs := map[string]any{"transportationType": sh.TransportationType,
			"orderDate": s.Now().UTC().Format("2006-01-02T15:04:05")}
		if sh.ShipmentNo != "" {
			cs["shipmentNo"] = sh.ShipmentNo
		}
		confirmed = append(confirmed, cs)
	}
	writeJSON(w, http.StatusOK, pickupJSON, map[string]any{"confirmation": map[string]any{
		"type": "ORDERPICKUP",
		"value": map[string]any{"orderID": id, "pickupDate": date, "freeOfCharge": false, "pickupType": "EZA",
			"confirmedShipments": confirmed},
	}})
}

var errNotYours = errors.New("dhlparceldefake: not the caller's pickup")

// cancelPickup is DELETE /orders?orderID=… of the Pickup API: each pickup
// of the caller's cancelled unless cancelled already.
func (s *Server) cancelPickup(w http.ResponseWriter, r *http.Request, _ []byte) {
	c := s.customerOf(r)
	ids := r.URL.Query()["orderID"]
	if len(ids) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	confirmed, failed := []any{}, []any{}
	for _, id := range ids {
		err := s.pickups.Cancel(id, func(p *pickup) error {
			if p.account != c.Username {
				return errNotYours
			}
			return nil
		})
		if err != nil {
			msg := "Pickup order not found."
			if errors.Is(err, fakekit.ErrPickupCancelled) {
				msg = "Pickup order is already cancelled."
			}
			failed = append(failed, map[string]any{"orderID": id, "message": msg})
			continue
		}
		confirmed = append(confirmed, map[string]any{"orderID": id, "orderState": "STORNIERT", "message": fmt.Sprintf("Pickup order %s cancelled.", id)})
	}
	writeJSON(w, http.StatusOK, pickupJSON, map[string]any{"confirmedCancellations": confirmed, "failedCancellations": failed})
}

// Pickup returns the body a pickup was ordered with and whether it was
// cancelled; ok is false for an unknown orderID.
func (s *Server) Pickup(orderID string) (body []byte, cancelled, ok bool) {
	return s.pickups.Pickup(orderID)
}
