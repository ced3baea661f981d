package fedex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// endOfDayPath is the Ship API's Ground End of Day Close (PUT). Karrio's
// copy of FedEx's ship-api.json does not have it; its shape is FedEx's
// "Ground End of Day Close" reference (VARIANTS.md, "Manifests").
const endOfDayPath = "/ship/v1/endofday/"

const opManifest = "manifest"

// endOfDayRequest closes the account's FedEx Ground shipments of a day
// (closeReqType GCDR; RGCDR reprints a report).
type endOfDayRequest struct {
	AccountNumber         accountNumber `json:"accountNumber"`
	CloseReqType          string        `json:"closeReqType"`
	GroundServiceCategory string        `json:"groundServiceCategory"`
	CloseDate             string        `json:"closeDate"`
	// ReprintOption and TrackingNumber ask a reprint (RGCDR) of the close
	// documents of the close that took one shipment.
	ReprintOption  string `json:"reprintOption,omitempty"`
	TrackingNumber string `json:"trackingNumber,omitempty"`
}

// endOfDayResponse carries the close documents, each in base64 parts.
type endOfDayResponse struct {
	TransactionID string `json:"transactionId"`
	Output        *struct {
		CloseDocuments []struct {
			Type  string `json:"type"`
			Parts []struct {
				DocumentPartSequenceNumber int    `json:"documentPartSequenceNumber"`
				Image                      string `json:"image"`
			} `json:"parts"`
		} `json:"closeDocuments"`
	} `json:"output"`
}

// Manifest closes the day's FedEx Ground shipments: FedEx closes every
// Ground shipment of the account for the date, not a list, so the labels
// of the request are shipd's record of what the close covers. The form is
// the close's first document (the Ground manifest report), its parts
// joined; the form number is the close's transaction id. A resumed close
// that FedEx refuses for having nothing to close reprints the documents of
// the close that took the labels (endofday_recover.go).
func (c *Carrier) Manifest(ctx context.Context, req carriers.ManifestRequest) (carriers.ManifestForm, error) {
	body, err := c.do(ctx, request{op: opManifest, method: http.MethodPut, path: endOfDayPath, transactionID: req.Reference,
		body: endOfDayRequest{AccountNumber: accountNumber{Value: c.account}, CloseReqType: "GCDR",
			GroundServiceCategory: "GROUND", CloseDate: c.shipDate()}})
	if err != nil {
		if req.Resumed && nothingToClose(err) {
			return c.reprintClose(ctx, req, c.scrub(err))
		}
		return carriers.ManifestForm{}, c.scrub(err)
	}
	return closeForm(body, req.Reference)
}

// closeForm reads a close's (or a reprint's) answer: its first document,
// the parts joined, numbered by the answer's transaction id (reference
// when it has none).
func closeForm(body []byte, reference string) (carriers.ManifestForm, error) {
	var r endOfDayResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.ManifestForm{}, malformed(opManifest, "the close answer does not parse: %v", err)
	}
	if r.Output == nil || len(r.Output.CloseDocuments) == 0 || len(r.Output.CloseDocuments[0].Parts) == 0 {
		return carriers.ManifestForm{}, malformed(opManifest, "the close answer has no close document")
	}
	var doc []byte
	for _, p := range r.Output.CloseDocuments[0].Parts {
		b, err := base64.StdEncoding.DecodeString(p.Image)
		if err != nil {
			return carriers.ManifestForm{}, malformed(opManifest, "a close document part is not base64: %v", err)
		}
		doc = append(doc, b...)
	}
	number := strings.TrimSpace(r.TransactionID)
	if number == "" {
		number = reference
	}
	return carriers.ManifestForm{Number: number, PDF: doc}, nil
}

// nothingToClose reports whether FedEx refused a close for having no open
// Ground shipment (CLOSE.NOSHIPMENTS.ERROR, "No shipments to close").
func nothingToClose(err error) bool {
	var ce *carriers.Error
	if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrRejected) {
		return false
	}
	return strings.Contains(strings.ToUpper(ce.Code), "NOSHIPMENTS") || strings.Contains(strings.ToLower(ce.Message), "no shipments to close")
}

// reprintClose is a resumed close that FedEx refused for having nothing to
// close: the earlier call closed the labels (FedEx closes every open
// Ground shipment of the account at once) and its answer was lost. FedEx
// keeps a close's documents three days and reprints them (closeReqType
// RGCDR); by the first label's tracking number, the reprint is of the
// close that took the labels, whoever made it. A reprint FedEx refuses
// leaves the close's own refusal (closed is that error): the labels were
// not closed by a close FedEx can show.
func (c *Carrier) reprintClose(ctx context.Context, req carriers.ManifestRequest, closed error) (carriers.ManifestForm, error) {
	if len(req.Labels) == 0 || strings.TrimSpace(req.Labels[0].TrackingNumber) == "" {
		return carriers.ManifestForm{}, closed
	}
	body, err := c.do(ctx, request{op: opManifest, method: http.MethodPut, path: endOfDayPath, transactionID: req.Reference,
		body: endOfDayRequest{AccountNumber: accountNumber{Value: c.account}, CloseReqType: "RGCDR",
			GroundServiceCategory: "GROUND", CloseDate: c.shipDate(),
			ReprintOption: "BY_TRACKING_NUMBER", TrackingNumber: req.Labels[0].TrackingNumber}})
	switch {
	case errors.Is(err, carriers.ErrRejected):
		return carriers.ManifestForm{}, closed
	case err != nil:
		return carriers.ManifestForm{}, c.scrub(err)
	}
	form, err := closeForm(body, req.Reference)
	if err != nil {
		return carriers.ManifestForm{}, err
	}
	form.Recovered = true
	return form, nil
}
