package usps

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

const (
	opManifest   = "manifest"
	scanFormPath = "/scan-forms/v3/scan-form"
)

// scanFormRequest is SCANFormRequest of the SCAN Forms 3.0 API, with the
// label-level shipment (LabelShipment: the tracking numbers listed).
type scanFormRequest struct {
	ImageInfo                    scanFormImageInfo `json:"imageInfo"`
	MailingDate                  string            `json:"mailingDate"`
	OverwriteMailingDate         bool              `json:"overwriteMailingDate"`
	EntryFacilityZIPCode         string            `json:"entryFacilityZIPCode"`
	DestinationEntryFacilityType string            `json:"destinationEntryFacilityType"`
	Shipment                     scanFormShipment  `json:"shipment"`
	FromAddress                  scanFormAddress   `json:"fromAddress"`
}

type scanFormImageInfo struct {
	ImageType string `json:"imageType"`
	LabelType string `json:"labelType"`
}

type scanFormShipment struct {
	TrackingNumbers []string `json:"trackingNumbers"`
}

type scanFormAddress struct {
	FirstName        string `json:"firstName,omitempty"`
	LastName         string `json:"lastName,omitempty"`
	Firm             string `json:"firm,omitempty"`
	StreetAddress    string `json:"streetAddress"`
	SecondaryAddress string `json:"secondaryAddress,omitempty"`
	City             string `json:"city"`
	State            string `json:"state"`
	ZIPCode          string `json:"ZIPCode"`
	ZIPPlus4         string `json:"ZIPPlus4,omitempty"`
	IgnoreBadAddress bool   `json:"ignoreBadAddress"`
}

// Manifest makes a SCAN form (PS Form 5630) of the labels: POST
// /scan-forms/v3/scan-form with the tracking numbers listed. The answer is
// asked as application/vnd.usps.labels+json, one JSON document with the
// form's number (manifestNumber, the EFN its barcode carries) and its PDF
// in SCANFormImage, instead of the default multipart answer. The labels are
// entered at the origin's own post office (entry facility: the origin's
// ZIP, type NONE), and mailed today (mailingDate, as labels are bought): overwriteMailingDate
// moves labels bought on earlier days to it, as USPS requires one mailing
// date per form. A refusal because every label is already on one SCAN
// form answers that form (Recovered, formAlreadyMade): a SCAN form request
// has no idempotency key, so a retry after a lost answer meets it.
func (c *Carrier) Manifest(ctx context.Context, req carriers.ManifestRequest) (carriers.ManifestForm, error) {
	if len(req.Labels) == 0 {
		return carriers.ManifestForm{}, &carriers.Error{Carrier: CarrierName, Operation: opManifest, Message: "no labels to put on a SCAN form", Kind: carriers.ErrRejected}
	}
	from := toDomesticAddress(req.From)
	numbers := make([]string, len(req.Labels))
	for i, l := range req.Labels {
		numbers[i] = l.TrackingNumber
	}
	body := scanFormRequest{
		ImageInfo:   scanFormImageInfo{ImageType: "PDF", LabelType: "8.5X11LABEL"},
		MailingDate: c.mailingDate(), OverwriteMailingDate: true,
		EntryFacilityZIPCode: from.ZIPCode, DestinationEntryFacilityType: "NONE",
		Shipment: scanFormShipment{TrackingNumbers: numbers},
		FromAddress: scanFormAddress{FirstName: from.FirstName, LastName: from.LastName, Firm: from.Firm,
			StreetAddress: from.StreetAddress, SecondaryAddress: from.SecondaryAddress, City: from.City,
			State: from.State, ZIPCode: from.ZIPCode, ZIPPlus4: from.ZIPPlus4},
	}
	a, err := c.send(ctx, request{op: opManifest, method: http.MethodPost, path: scanFormPath, body: body,
		accept: "application/vnd.usps.labels+json"})
	if err != nil {
		return carriers.ManifestForm{}, err
	}
	if !a.ok() {
		if form, made := formAlreadyMade(a.body, numbers); a.status == http.StatusBadRequest && made {
			// The form of these labels exists: an earlier call made it (its
			// answer lost) or the labels were put on it elsewhere. Either
			// way it is the form to hand over with them.
			return form, nil
		}
		return carriers.ManifestForm{}, statusError(opManifest, a, c.now())
	}
	var ans struct {
		ManifestNumber  string   `json:"manifestNumber"`
		TrackingNumbers []string `json:"trackingNumbers"`
		SCANFormImage   string   `json:"SCANFormImage"`
	}
	if err := decodeJSON(a.body, &ans); err != nil {
		return carriers.ManifestForm{}, failed(opManifest, a.status, "the SCAN form answer does not parse: %v", err)
	}
	if strings.TrimSpace(ans.ManifestNumber) == "" {
		return carriers.ManifestForm{}, failed(opManifest, a.status, "the SCAN form answer has no manifestNumber")
	}
	pdf, err := base64.StdEncoding.DecodeString(ans.SCANFormImage)
	if err != nil || len(pdf) == 0 {
		return carriers.ManifestForm{}, failed(opManifest, a.status, "the SCAN form answer has no readable SCANFormImage")
	}
	if len(ans.TrackingNumbers) != len(numbers) {
		// USPS leaves out labels it cannot add (already on a form, already
		// manifested): the form would not cover every package handed over.
		return carriers.ManifestForm{}, &carriers.Error{Carrier: CarrierName, Operation: opManifest, HTTPStatus: a.status,
			Message: "USPS put " + strconv.Itoa(len(ans.TrackingNumbers)) + " of " + strconv.Itoa(len(numbers)) + " labels on the SCAN form " + ans.ManifestNumber,
			Kind:    carriers.ErrRejected}
	}
	return carriers.ManifestForm{Number: ans.ManifestNumber, PDF: pdf}, nil
}

// formNumberInDetail is a SCAN form's number in a refusal's detail: the EFN
// its barcode carries, 20 to 34 digits after the words "SCAN form".
var formNumberInDetail = regexp.MustCompile(`(?i)\bSCAN\s+form\s+(?:number\s+)?#?(\d{20,34})\b`)

// formAlreadyMade reads a refused SCAN form request: when USPS refused it
// because every listed label is already on one SCAN form, each error's
// detail naming its label and that form, the labels' form is that one
// (USPS puts a label on one form only, and has no GET of a form: its
// refusal is the only place the number is). It answers the form, known by
// its number alone (USPS cannot give its image again), and true; false for
// any other refusal, or labels on several forms, or some not named.
func formAlreadyMade(body []byte, numbers []string) (carriers.ManifestForm, bool) {
	var ans struct {
		Error struct {
			Errors []struct {
				Detail string `json:"detail"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &ans) != nil || len(ans.Error.Errors) == 0 {
		return carriers.ManifestForm{}, false
	}
	form := ""
	onForm := make(map[string]bool, len(numbers))
	for _, e := range ans.Error.Errors {
		m := formNumberInDetail.FindStringSubmatch(e.Detail)
		if m == nil || (form != "" && m[1] != form) {
			return carriers.ManifestForm{}, false
		}
		form = m[1]
		named := false
		for _, tn := range numbers {
			if tn != form && strings.Contains(e.Detail, tn) {
				onForm[tn], named = true, true
			}
		}
		if !named {
			return carriers.ManifestForm{}, false
		}
	}
	if len(onForm) != len(numbers) {
		return carriers.ManifestForm{}, false
	}
	return carriers.ManifestForm{Number: form, Recovered: true}, true
}
