package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// maxCloseout is the most shipments one closeout names
// (ShipmentManifestingRequest.shipmentNumbers maxItems).
const maxCloseout = 30

// ShipmentManifestingRequest (parcel-de-shipping-v2_2.yaml).
type closeoutRequest struct {
	Profile         string   `json:"profile"`
	ShipmentNumbers []string `json:"shipmentNumbers"`
}

// MultipleManifestResponse and SingleManifestResponse, as far as shipd
// reads them.
type closeoutAnswer struct {
	Items []item `json:"items"`
}

type manifestAnswer struct {
	ManifestDate string     `json:"manifestDate"`
	Manifest     []document `json:"manifest"`
	SheetNo      []struct {
		BillingNumber string `json:"billingNumber"`
		SheetNo       string `json:"sheetNo"`
	} `json:"sheetNo"`
	Items []struct {
		ShipmentNo string `json:"shipmentNo"`
		SheetNo    string `json:"sheetNo"`
	} `json:"items"`
}

// Manifest is DHL Paket's end of day (Tagesabschluss): the labels' orders
// are closed out now (POST /manifests, 30 shipments a call), which DHL
// otherwise does at the account's fixed time, and the day's manifest is
// the form (GET /manifests of today, Germany's date: a closeout "will
// also override the original shipDate"). The manifest lists every
// shipment of the EKP that day, by billing number; its number is the
// sheet of the first label. A closeout asked again after a lost answer
// is harmless ("calling closeout for the same shipment will result in a
// warning"), so a resumed manifest simply runs again. DHL Retoure labels
// have no closeout and are left out.
func (c *Carrier) Manifest(ctx context.Context, req carriers.ManifestRequest) (carriers.ManifestForm, error) {
	var numbers []string
	for _, l := range req.Labels {
		if tn := carriers.NormalizeTrackingNumber(l.TrackingNumber); tn != "" && l.CarrierShipmentID != retoureMarker {
			numbers = append(numbers, tn)
		}
	}
	if len(numbers) == 0 {
		return carriers.ManifestForm{}, rejected(opManifest, "no DHL Paket label to close out (return labels have no closeout)")
	}
	for start := 0; start < len(numbers); start += maxCloseout {
		chunk := numbers[start:min(start+maxCloseout, len(numbers))]
		if err := c.closeout(ctx, chunk); err != nil {
			return carriers.ManifestForm{}, c.scrub(err)
		}
	}
	a, err := c.do(ctx, apiRequest{op: opManifest, method: http.MethodGet, path: shippingPath + "/manifests",
		query: url.Values{"date": {berlinDate(c.cfg.Now())}, "includeDocs": {"include"}}})
	if err != nil {
		return carriers.ManifestForm{}, c.scrub(err)
	}
	if !a.ok() {
		return carriers.ManifestForm{}, c.scrub(c.failure(opManifest, a))
	}
	form, err := parseManifestAnswer(a.status, a.body, numbers)
	return form, c.scrub(err)
}

// closeout closes out the orders of numbers.
func (c *Carrier) closeout(ctx context.Context, numbers []string) error {
	a, err := c.do(ctx, apiRequest{op: opManifest, method: http.MethodPost, path: shippingPath + "/manifests",
		body: closeoutRequest{Profile: profile, ShipmentNumbers: numbers}})
	if err != nil {
		return err
	}
	if !a.ok() {
		return c.failure(opManifest, a)
	}
	return parseCloseoutAnswer(a.status, a.body)
}

// parseCloseoutAnswer reads a closeout's answer (MultipleManifestResponse):
// a shipment DHL refused (unknown, deleted) is a refusal naming it; its
// warning for one closed out already is not.
func parseCloseoutAnswer(httpStatus int, body []byte) error {
	var r closeoutAnswer
	if err := json.Unmarshal(body, &r); err != nil {
		return malformed(opManifest, httpStatus, "the closeout answer is not the documented JSON: %v", err)
	}
	var refused []string
	for _, it := range r.Items {
		if it.Sstatus.code() >= 400 {
			refused = append(refused, strings.TrimSpace(it.ShipmentNo+": "+it.message()))
		}
	}
	if len(refused) > 0 {
		return &carriers.Error{Carrier: carrierName, Operation: opManifest, HTTPStatus: httpStatus, Kind: carriers.ErrRejected,
			Message: carriers.Excerpt("DHL did not close out " + strings.Join(refused, "; "))}
	}
	return nil
}

// parseManifestAnswer reads the day's manifest: its PDF (the first
// document), numbered by the sheet of the first of numbers, else the first
// billing number's sheet, else the date.
func parseManifestAnswer(httpStatus int, body []byte, numbers []string) (carriers.ManifestForm, error) {
	var r manifestAnswer
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.ManifestForm{}, malformed(opManifest, httpStatus, "the manifest answer is not the documented JSON: %v", err)
	}
	if len(r.Manifest) == 0 || strings.TrimSpace(r.Manifest[0].B64) == "" {
		return carriers.ManifestForm{}, malformed(opManifest, httpStatus, "the manifest answer has no document")
	}
	pdf, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(r.Manifest[0].B64), ""))
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return carriers.ManifestForm{}, malformed(opManifest, httpStatus, "the manifest is not a base64 PDF")
	}
	// Each candidate is excerpted before it is judged: an answer's number of
	// invalid bytes or control characters alone is no number.
	number := ""
	for _, it := range r.Items {
		if carriers.NormalizeTrackingNumber(it.ShipmentNo) == numbers[0] {
			if number = carriers.Excerpt(it.SheetNo); number != "" {
				break
			}
		}
	}
	if number == "" && len(r.SheetNo) > 0 {
		number = carriers.Excerpt(r.SheetNo[0].SheetNo)
	}
	if number == "" {
		number = carriers.Excerpt(r.ManifestDate)
	}
	if number == "" {
		return carriers.ManifestForm{}, malformed(opManifest, httpStatus, "the manifest answer has no sheet number nor date")
	}
	return carriers.ManifestForm{Number: number, PDF: pdf}, nil
}
