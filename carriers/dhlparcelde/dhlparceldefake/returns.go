package dhlparceldefake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// receivers are the return receivers every customer of the fake has: one
// per country of the Returns API, named by the country's three letters.
var receivers = []string{"aut", "bel", "bgr", "che", "cyp", "cze", "deu", "dnk", "esp", "est", "fin", "fra", "gbr", "grc", "hrv",
	"hun", "irl", "ita", "ltu", "lux", "lva", "mlt", "nld", "nor", "pol", "prt", "rou", "swe", "svk", "svn"}

// outsideEU are the receivers' countries outside the EU, whose returns
// carry customs lines.
var outsideEU = []string{"che", "gbr", "nor"}

// returnOrder is POST /orders of the Returns API: a DHL Retoure label
// from the customer to the receiver, a PDF.
func (s *Server) returnOrder(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		ReceiverID        string `json:"receiverId"`
		CustomerReference string `json:"customerReference"`
		ShipmentReference string `json:"shipmentReference"`
		Shipper           struct {
			Name1, AddressStreet, AddressHouse, PostalCode, City string
		} `json:"shipper"`
		CustomsDetails *struct {
			Items []json.RawMessage `json:"items"`
		} `json:"customsDetails"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, problemJSON, map[string]any{"title": "Bad Request", "status": 400, "detail": "The body does not parse."})
		return
	}
	switch {
	case !slices.Contains(receivers, req.ReceiverID):
		writeJSON(w, http.StatusUnprocessableEntity, problemJSON, map[string]any{"title": "Unprocessable Entity", "status": 422,
			"detail": "Unknown receiverId."})
		return
	case slices.Contains(outsideEU, req.ReceiverID) && (req.CustomsDetails == nil || len(req.CustomsDetails.Items) == 0):
		writeJSON(w, http.StatusUnprocessableEntity, problemJSON, map[string]any{"title": "Unprocessable Entity", "status": 422,
			"detail": "Customs details are required for returns from outside the EU."})
		return
	}
	c := s.customerOf(r)
	tn := fmt.Sprintf("99999%07d", s.next())
	ref := req.ShipmentReference
	if ref == "" {
		ref = req.CustomerReference
	}
	s.sales.Sell(&shipment{
		Sale:    fakekit.Sale{TrackingNumber: tn, Reference: ref, Account: c.Username, Return: true, SoldAt: s.Now()},
		product: "RETOURE", destination: "DEU", city: req.Shipper.City, postal: req.Shipper.PostalCode,
	})
	pdf, _ := fakekit.TextPDF("DHL RETOURE", []string{"Sendungsnummer " + tn, "Von: " + req.Shipper.Name1,
		req.Shipper.AddressStreet + " " + req.Shipper.AddressHouse, req.Shipper.PostalCode + " " + req.Shipper.City,
		"Empfaenger " + req.ReceiverID, "Referenz " + req.CustomerReference})
	writeJSON(w, http.StatusCreated, plainJSON, map[string]any{
		"sstatus":     map[string]any{"title": "Created", "status": 201, "detail": "Created"},
		"shipmentNo":  tn,
		"label":       map[string]any{"b64": base64.StdEncoding.EncodeToString(pdf)},
		"routingCode": "40327653113+99000933090010",
	})
}

// IsReturn reports whether the label of tn was sold as a DHL Retoure.
func (s *Server) IsReturn(tn string) bool { return s.sales.IsReturn(tn) }
