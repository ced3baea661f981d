package uspsfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// OpSCANForm is POST /scan-forms/v3/scan-form.
const OpSCANForm = "scan-form"

const scanFormsAPI = "/scan-forms/v3"

// scanFormRequest is SCANFormRequest (SCAN Forms 3.0): the fields the
// document lists as required are checked, and only the label-level
// shipment (trackingNumbers) is taken; the MID shipments need the
// payment token's MID, which shipd does not use for forms.
type scanFormRequest struct {
	ImageInfo *struct {
		ImageType string `json:"imageType"`
		LabelType string `json:"labelType"`
	} `json:"imageInfo"`
	MailingDate                  string `json:"mailingDate"`
	OverwriteMailingDate         bool   `json:"overwriteMailingDate"`
	EntryFacilityZIPCode         string `json:"entryFacilityZIPCode"`
	DestinationEntryFacilityType string `json:"destinationEntryFacilityType"`
	Shipment                     *struct {
		TrackingNumbers []string `json:"trackingNumbers"`
		MID             string   `json:"MID"`
		ManifestMID     string   `json:"manifestMID"`
	} `json:"shipment"`
	FromAddress *labelAddressIn `json:"fromAddress"`
}

var destinationEntryFacilityTypes = map[string]bool{
	"NONE": true, "DESTINATION_NETWORK_DISTRIBUTION_CENTER": true, "DESTINATION_REGIONAL_PROCESSING_DISTRIBUTION_CENTER": true,
	"DESTINATION_SECTIONAL_CENTER_FACILITY": true, "DESTINATION_DELIVERY_UNIT": true, "DESTINATION_SERVICE_HUB": true,
}

// scanForm is POST /scan-forms/v3/scan-form. As the document's label
// eligibility rules say: every listed label must exist, be domestic or
// international of this account, not cancelled, and on no SCAN form yet
// (a label already on one is refused); labels of another mailing date need
// overwriteMailingDate. The answer is the vendor JSON for Accept:
// application/vnd.usps.labels+json, the multipart representation otherwise.
func (s *Server) scanForm(w http.ResponseWriter, r *http.Request, body []byte) {
	var req scanFormRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, scanFormsAPI, "Bad Request", "", "the request body is not valid JSON", "")
		return
	}
	var p problems
	if _, err := time.Parse(time.DateOnly, req.MailingDate); err != nil {
		p.add("mailingDate", "mailingDate %q is not a date (YYYY-MM-DD)", req.MailingDate)
	}
	if !zip5Pattern.MatchString(req.EntryFacilityZIPCode) {
		p.add("entryFacilityZIPCode", "entryFacilityZIPCode %q is not a 5-digit ZIP Code", req.EntryFacilityZIPCode)
	}
	if !destinationEntryFacilityTypes[req.DestinationEntryFacilityType] {
		p.add("destinationEntryFacilityType", "destinationEntryFacilityType %q is not one of the documented values", req.DestinationEntryFacilityType)
	}
	if req.ImageInfo != nil {
		if t := req.ImageInfo.ImageType; t != "" && t != "PDF" {
			p.add("imageInfo.imageType", "the fake draws PDF forms only, not %q", t)
		}
		if t := req.ImageInfo.LabelType; t != "" && t != "8.5X11LABEL" && t != "4X6LABEL" {
			p.add("imageInfo.labelType", "labelType %q is not 8.5X11LABEL or 4X6LABEL", t)
		}
	}
	switch {
	case req.FromAddress == nil:
		p.add("fromAddress", "fromAddress is required")
	default:
		checkDomesticAddress(&p, "fromAddress", *req.FromAddress)
	}
	switch {
	case req.Shipment == nil:
		p.add("shipment", "shipment is required")
	case len(req.Shipment.TrackingNumbers) == 0:
		p.add("shipment.trackingNumbers", "trackingNumbers must list 1 to 40000 labels")
	case len(req.Shipment.TrackingNumbers) > 40000:
		p.add("shipment.trackingNumbers", "trackingNumbers must list 1 to 40000 labels")
	}
	if p.write(w, scanFormsAPI) {
		return
	}
	var number string
	s.sales.Update(func(find func(string) (*label, bool)) {
		for _, tn := range req.Shipment.TrackingNumbers {
			l, ok := find(tn)
			switch {
			case !ok:
				p.add("shipment.trackingNumbers", "label %s was not found", tn)
			case l.State == fakekit.Voided:
				p.add("shipment.trackingNumbers", "label %s was cancelled", tn)
			case l.scanForm != "":
				p.add("shipment.trackingNumbers", "label %s is already on SCAN form %s", tn, l.scanForm)
			case !req.OverwriteMailingDate && l.SoldAt.UTC().Format(time.DateOnly) != req.MailingDate:
				p.add("mailingDate", "label %s has another mailing date; set overwriteMailingDate", tn)
			}
		}
		if len(p) > 0 {
			return
		}
		number = fmt.Sprintf("9475711%015d", 899000000000000+s.scanForms.Add(1))
		for _, tn := range req.Shipment.TrackingNumbers {
			l, _ := find(tn)
			l.scanForm = number
		}
	})
	if p.write(w, scanFormsAPI) {
		return
	}

	pdf, err := scanFormPDF(number, *req.FromAddress, req.MailingDate, req.Shipment.TrackingNumbers)
	if err != nil {
		writeError(w, http.StatusInternalServerError, scanFormsAPI, "Internal Server Error", "", "the SCAN form image could not be made", "")
		return
	}
	meta := map[string]any{
		"imageInfo":   map[string]any{"imageType": "PDF", "labelType": "8.5X11LABEL"},
		"mailingDate": req.MailingDate, "overwriteMailingDate": req.OverwriteMailingDate,
		"entryFacilityZIPCode": req.EntryFacilityZIPCode, "destinationEntryFacilityType": req.DestinationEntryFacilityType,
		"shipment": map[string]any{"trackingNumbers": req.Shipment.TrackingNumbers}, "fromAddress": req.FromAddress,
		"manifestNumber": number, "trackingNumbers": req.Shipment.TrackingNumbers,
	}
	image := base64.StdEncoding.EncodeToString(pdf)
	if strings.Contains(r.Header.Get("Accept"), labelsVendorJSON) {
		meta["SCANFormImage"] = image
		b, _ := json.Marshal(meta)
		w.Header().Set("Content-Type", labelsVendorJSON)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b)
		return
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	metaJSON, _ := json.Marshal(meta)
	part, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/json"}, "Content-Disposition": {`form-data; name="SCANFormMetaData"`}})
	_, _ = part.Write(metaJSON)
	part, _ = mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/pdf"},
		"Content-Disposition": {`attachment; filename="SCANForm.pdf"`}, "Content-Transfer-Encoding": {"base64"}})
	_, _ = part.Write([]byte(image))
	_ = mw.Close()
	w.Header().Set("Content-Type", "multipart/form-data; boundary="+mw.Boundary())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// SCANForm is the SCAN form number a label is on, "" for none.
func (s *Server) SCANForm(trackingNumber string) string {
	form := ""
	s.sales.With(trackingNumber, func(l *label) { form = l.scanForm })
	return form
}

// scanFormPDF draws a one-page test form: its number, the shipper and the
// tracking numbers, plainly marked as a test.
func scanFormPDF(number string, from labelAddressIn, date string, numbers []string) ([]byte, error) {
	pdf := fpdf.New("P", "pt", "Letter", "")
	pdf.SetCompression(false)
	pdf.SetTitle("USPS test SCAN form "+number, false)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.Text(40, 50, "PS FORM 5630 - TEST SCAN FORM "+number)
	pdf.SetFont("Helvetica", "", 10)
	pdf.Text(40, 70, strings.ToUpper(from.Firm+" "+from.FirstName+" "+from.LastName+", "+from.StreetAddress+", "+from.City+" "+from.State+" "+from.ZIPCode))
	pdf.Text(40, 85, fmt.Sprintf("Mailing date %s, %d packages", date, len(numbers)))
	for i, tn := range numbers {
		if i == 40 {
			pdf.Text(40, 110+float64(i)*14, fmt.Sprintf("... and %d more", len(numbers)-i))
			break
		}
		pdf.Text(40, 110+float64(i)*14, tn)
	}
	var buf bytes.Buffer
	err := pdf.Output(&buf)
	return buf.Bytes(), err
}

// HoldSCANForms makes every SCAN form answer from now on wait until
// ReleaseSCANForms: the form is made (SCANForm reports each label on it)
// when the request arrives, only the answer is held, as when the client
// dies mid-call. A held answer is dropped when the client goes away.
func (s *Server) HoldSCANForms() { s.Hold(OpSCANForm) }

// ReleaseSCANForms sends the held SCAN form answers and stops holding.
func (s *Server) ReleaseSCANForms() { s.Release(OpSCANForm) }
