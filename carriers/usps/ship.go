package usps

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/carriers"
)

const (
	labelPath = "/labels/v3/label"
	// returnLabelPath makes a domestic return label, paid on use.
	returnLabelPath = "/labels/v3/return-label"
	intlLabelPath   = "/international-labels/v3/international-label"
	// labelsJSON asks for the "vendor" representation: one JSON document
	// with the label image base64-encoded in labelImage, instead of the
	// default multipart answer.
	labelsJSON = "application/vnd.usps.labels+json"
	// aesExemption is the AESITN value for exports that need no Electronic
	// Export Information: 15 CFR 30.37(a), goods worth $2,500 or less per
	// Schedule B number. USPS's own example.
	aesExemption = "NO EEI 30.37(a)"
	// aesLimitCents is that $2,500 limit: above it, per Schedule B number,
	// the export needs its ITN.
	aesLimitCents = carriers.EEIThresholdCents
)

// imageInfo asks for a 4x6 PDF label without a receipt. USPS does not print
// the postage unless asked (suppressPostage defaults to true), which keeps
// the carrier's price off a label that the customer paid shipd's price for.
type imageInfo struct {
	ImageType string `json:"imageType"`
	LabelType string `json:"labelType"`
	// ReceiptOption is domestic only; the international schema forbids it.
	ReceiptOption string `json:"receiptOption,omitempty"`
}

// domesticAddress is DomesticLabelAddress.
type domesticAddress struct {
	FirstName        string `json:"firstName,omitempty"`
	LastName         string `json:"lastName,omitempty"`
	Firm             string `json:"firm,omitempty"`
	StreetAddress    string `json:"streetAddress"`
	SecondaryAddress string `json:"secondaryAddress,omitempty"`
	City             string `json:"city"`
	State            string `json:"state"`
	ZIPCode          string `json:"ZIPCode"`
	ZIPPlus4         string `json:"ZIPPlus4,omitempty"`
	Phone            string `json:"phone,omitempty"`
	Email            string `json:"email,omitempty"`
}

// internationalAddress is InternationalLabelAddress.
type internationalAddress struct {
	FirstName            string `json:"firstName,omitempty"`
	LastName             string `json:"lastName,omitempty"`
	Firm                 string `json:"firm,omitempty"`
	StreetAddress        string `json:"streetAddress"`
	SecondaryAddress     string `json:"secondaryAddress,omitempty"`
	City                 string `json:"city"`
	Province             string `json:"province,omitempty"`
	PostalCode           string `json:"postalCode,omitempty"`
	Country              string `json:"country"`
	CountryISOAlpha2Code string `json:"countryISOAlpha2Code"`
	Phone                string `json:"phone,omitempty"`
}

type customerReference struct {
	ReferenceNumber      string `json:"referenceNumber"`
	PrintReferenceNumber bool   `json:"printReferenceNumber,omitempty"`
}

type packageOptions struct {
	NonDeliveryOption string `json:"nonDeliveryOption,omitempty"`
}

// labelPackage is the packageDescription of both label APIs: weight in
// pounds (weightUOM "lb"), dimensions in inches (dimensionsUOM "in").
type labelPackage struct {
	parcelShape
	DestinationEntryFacilityType string              `json:"destinationEntryFacilityType"`
	MailingDate                  string              `json:"mailingDate"`
	ExtraServices                []int               `json:"extraServices,omitempty"`
	CustomerReference            []customerReference `json:"customerReference,omitempty"`
	PackageOptions               *packageOptions     `json:"packageOptions,omitempty"`
}

// parcelShape is what every label request says of the parcel, outbound or
// return: its class, weight in pounds and dimensions in inches.
type parcelShape struct {
	MailClass          string  `json:"mailClass"`
	RateIndicator      string  `json:"rateIndicator"`
	WeightUOM          string  `json:"weightUOM"`
	Weight             float64 `json:"weight"`
	DimensionsUOM      string  `json:"dimensionsUOM"`
	Length             float64 `json:"length"`
	Width              float64 `json:"width"`
	Height             float64 `json:"height"`
	ProcessingCategory string  `json:"processingCategory"`
}

type domesticLabelRequest struct {
	ImageInfo          imageInfo       `json:"imageInfo"`
	ToAddress          domesticAddress `json:"toAddress"`
	FromAddress        domesticAddress `json:"fromAddress"`
	PackageDescription labelPackage    `json:"packageDescription"`
}

type internationalLabelRequest struct {
	ImageInfo          imageInfo            `json:"imageInfo"`
	ToAddress          internationalAddress `json:"toAddress"`
	FromAddress        domesticAddress      `json:"fromAddress"`
	PackageDescription labelPackage         `json:"packageDescription"`
	CustomsForm        customsForm          `json:"customsForm"`
}

type customsForm struct {
	CustomsContentType string           `json:"customsContentType"`
	ContentComments    string           `json:"contentComments,omitempty"`
	AESITN             string           `json:"AESITN"`
	InvoiceNumber      string           `json:"invoiceNumber,omitempty"`
	Contents           []customsContent `json:"contents"`
}

// customsContent declares one line with its totals (itemTotalValue in USD,
// itemTotalWeight in pounds), the fields USPS asks for now that the per-unit
// ones are deprecated.
type customsContent struct {
	ItemDescription string  `json:"itemDescription"`
	ItemQuantity    int     `json:"itemQuantity"`
	ItemTotalValue  dollars `json:"itemTotalValue"`
	WeightUOM       string  `json:"weightUOM"`
	ItemTotalWeight float64 `json:"itemTotalWeight"`
	HSTariffNumber  string  `json:"HSTariffNumber,omitempty"`
	CountryOfOrigin string  `json:"countryofOrigin"`
}

// Buy purchases the label for req.Rate.Service. The X-Idempotency-Key is
// derived from req.Reference, so a purchase retried after a timeout or crash
// is answered with the label already bought instead of a second one.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return carriers.Label{}, &carriers.Error{Carrier: CarrierName, Operation: opBuy,
			Message: fmt.Sprintf("USPS has no service %q", req.Rate.Service), Kind: carriers.ErrRejected}
	}
	if strings.TrimSpace(req.Reference) == "" {
		return carriers.Label{}, fmt.Errorf("usps: a purchase needs a Reference to make it idempotent: %w", carriers.ErrInvalidShipment)
	}
	if err := checkShipment(req.Shipment, true); err != nil {
		return carriers.Label{}, err
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches USPS anyway.
	if err := carriers.CheckRequirements(CarrierName, requirements(), svc.name, req.Shipment); err != nil {
		return carriers.Label{}, err
	}
	if svc.international == isDomestic(req.Shipment.To) {
		return carriers.Label{}, &carriers.Error{Carrier: CarrierName, Operation: opBuy,
			Message: fmt.Sprintf("%s does not go to %s", svc.name, carriers.NormalizeCountry(req.Shipment.To.Country)), Kind: carriers.ErrRejected}
	}
	if req.Shipment.Return && svc.returnMailClass == "" {
		// The shipping flow quotes returns from ReturnService only.
		return carriers.Label{}, &carriers.Error{Carrier: CarrierName, Operation: opBuy,
			Message: fmt.Sprintf("USPS makes no %s return label", svc.name), Kind: carriers.ErrRejected}
	}
	if svc.international && req.Format() == carriers.LabelZPL {
		// The International Labels API draws PDF and TIFF only.
		return carriers.Label{}, &carriers.Error{Carrier: CarrierName, Operation: opBuy,
			Message: "USPS draws international labels as PDF or TIFF only: buy it as a pdf or png label", Kind: carriers.ErrRejected}
	}
	r := request{op: opBuy, method: http.MethodPost, accept: labelsJSON, payment: true,
		header: map[string]string{"X-Idempotency-Key": idempotencyKey(req.Reference)}}
	switch {
	case req.Shipment.Return:
		r.path, r.body = returnLabelPath, c.returnLabelRequest(req, svc)
	case svc.international:
		body, err := c.internationalLabelRequest(req, svc)
		if err != nil {
			return carriers.Label{}, err
		}
		r.path, r.body = intlLabelPath, body
	default:
		r.path, r.body = labelPath, c.domesticLabelRequest(req, svc)
	}
	a, err := c.send(ctx, r)
	if err != nil {
		return carriers.Label{}, err
	}
	if !a.ok() {
		return carriers.Label{}, statusError(opBuy, a, c.now())
	}
	return c.labelIn(ctx, a.header.Get("Content-Type"), a.body, req.Format(), req.Size())
}

// idempotencyKey derives a UUID-shaped key from the shipd shipment id: the
// same shipment always sends the same key, two shipments never share one.
func idempotencyKey(reference string) string {
	sum := sha256.Sum256([]byte("shipd/usps/label/" + reference))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50 // version 5 layout: name-based
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func (c *Carrier) labelPackage(req carriers.BuyRequest, svc service) labelPackage {
	p := req.Shipment.Parcel
	l, w, h := dimensions(p)
	pkg := labelPackage{
		parcelShape: parcelShape{
			MailClass: svc.mailClass, RateIndicator: svc.rateIndicator,
			WeightUOM: "lb", Weight: poundsFromOunces(p.WeightOz),
			DimensionsUOM: "in", Length: l, Width: w, Height: h,
			ProcessingCategory: processingCategory(p),
		},
		DestinationEntryFacilityType: "NONE",
		MailingDate:                  c.mailingDate(),
	}
	ref := customerReference{ReferenceNumber: truncate(req.Reference, 30)}
	if !svc.international {
		// Printed, the shipd id lets support match a label in hand to
		// its shipment.
		ref.PrintReferenceNumber = true
	}
	pkg.CustomerReference = []customerReference{ref}
	if req.Shipment.Options.SignatureConfirmation && svc.signatureCode != 0 {
		pkg.ExtraServices = []int{svc.signatureCode}
	}
	return pkg
}

// processingCategory is MACHINABLE for a parcel within the machinable limits
// of DMM 201.7 (at most 22 x 18 x 15 inches and 25 pounds) and NONSTANDARD
// beyond them, as USPS would classify it at acceptance.
func processingCategory(p carriers.Parcel) string {
	dims := []float64{p.LengthIn, p.WidthIn, p.HeightIn}
	sortDesc(dims)
	if dims[0] > 22 || dims[1] > 18 || dims[2] > 15 || p.WeightOz > 25*16 {
		return "NONSTANDARD"
	}
	return "MACHINABLE"
}

func sortDesc(xs []float64) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] > xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

func (c *Carrier) domesticLabelRequest(req carriers.BuyRequest, svc service) domesticLabelRequest {
	return domesticLabelRequest{
		ImageInfo:          imageInfo{ImageType: imageTypeFor(req.Format(), req.Size()), LabelType: "4X6LABEL", ReceiptOption: "NONE"},
		ToAddress:          toDomesticAddress(req.Shipment.To),
		FromAddress:        toDomesticAddress(req.Shipment.From),
		PackageDescription: c.labelPackage(req, svc),
	}
}

// returnLabelRequest is ReturnLabelRequest: the customer (From) sends to the
// merchant (To), who pays when USPS first scans it. Its package is a
// BaseReturnsPackageDescription, which has no mailing date or entry
// facility: a return is mailed whenever the customer drops it off.
type returnLabelRequest struct {
	ImageInfo          imageInfo       `json:"imageInfo"`
	ToAddress          domesticAddress `json:"toAddress"`
	FromAddress        domesticAddress `json:"fromAddress"`
	PackageDescription returnPackage   `json:"packageDescription"`
}

type returnPackage struct {
	parcelShape
	CustomerReference []customerReference `json:"customerReference,omitempty"`
}

func (c *Carrier) returnLabelRequest(req carriers.BuyRequest, svc service) returnLabelRequest {
	out := c.labelPackage(req, svc)
	out.MailClass = svc.returnMailClass
	return returnLabelRequest{
		ImageInfo:          imageInfo{ImageType: imageTypeFor(req.Format(), req.Size()), LabelType: "4X6LABEL", ReceiptOption: "NONE"},
		ToAddress:          toDomesticAddress(req.Shipment.To),
		FromAddress:        toDomesticAddress(req.Shipment.From),
		PackageDescription: returnPackage{parcelShape: out.parcelShape, CustomerReference: out.CustomerReference},
	}
}

func (c *Carrier) internationalLabelRequest(req carriers.BuyRequest, svc service) (internationalLabelRequest, error) {
	customs, err := toCustomsForm(req.Shipment)
	if err != nil {
		return internationalLabelRequest{}, err
	}
	pkg := c.labelPackage(req, svc)
	switch req.Shipment.Customs.NonDeliveryOption {
	case carriers.NonDeliveryAbandon:
		pkg.PackageOptions = &packageOptions{NonDeliveryOption: "ABANDON"}
	default:
		pkg.PackageOptions = &packageOptions{NonDeliveryOption: "RETURN"}
	}
	to := req.Shipment.To
	country := carriers.NormalizeCountry(to.Country)
	first, last, firm := addressee(to)
	name := countryNames[country]
	if name == "" {
		name = country
	}
	return internationalLabelRequest{
		ImageInfo: imageInfo{ImageType: imageTypeFor(req.Format(), req.Size()), LabelType: "4X6LABEL"},
		ToAddress: internationalAddress{
			FirstName: first, LastName: last, Firm: firm,
			StreetAddress: strings.TrimSpace(to.Street1), SecondaryAddress: strings.TrimSpace(to.Street2),
			City: strings.TrimSpace(to.City), Province: strings.TrimSpace(to.State),
			PostalCode: strings.TrimSpace(to.Zip), Country: name, CountryISOAlpha2Code: country,
			Phone: phone(to.Phone),
		},
		FromAddress:        toDomesticAddress(req.Shipment.From),
		PackageDescription: pkg,
		CustomsForm:        customs,
	}, nil
}

var customsContentTypes = map[string]string{
	carriers.ContentsMerchandise:   "MERCHANDISE",
	carriers.ContentsDocuments:     "DOCUMENT",
	carriers.ContentsGift:          "GIFT",
	carriers.ContentsReturnedGoods: "RETURNED_GOODS",
	carriers.ContentsSample:        "COMMERCIAL_SAMPLE",
	carriers.ContentsOther:         "OTHER",
}

// toCustomsForm maps the declaration. shipd's CustomsItem gives the value and
// weight of the whole line (all its units), which is what USPS's
// itemTotalValue and itemTotalWeight are. The CN22 or CN23 USPS prints
// with the label (integrated on the label document) is drawn from it.
func toCustomsForm(s carriers.Shipment) (customsForm, error) {
	cu := s.Customs
	kind, ok := customsContentTypes[cu.ContentsType]
	if !ok {
		kind = "OTHER"
	}
	form := customsForm{CustomsContentType: kind, AESITN: aesITN(cu), InvoiceNumber: truncate(strings.TrimSpace(cu.InvoiceNumber), 15)}
	if kind == "OTHER" {
		// Required for OTHER, at most 25 characters.
		form.ContentComments = truncate(orDefault(strings.TrimSpace(cu.ContentsExplanation), "Other"), 25)
	}
	var total int64
	origin := carriers.NormalizeCountry(s.From.Country)
	for _, it := range cu.Items {
		qty := max(it.Quantity, 1)
		value := it.ValueCents
		total += value
		item := customsContent{
			// USPS takes at most 30 characters; the start of a
			// description is the informative part.
			ItemDescription: truncate(strings.TrimSpace(it.Description), 30),
			ItemQuantity:    qty,
			// USPS refuses a zero value; one cent is the least it takes
			// (documents and samples are often declared at no value).
			ItemTotalValue:  dollars(max(value, 1)),
			WeightUOM:       "lb",
			ItemTotalWeight: poundsFromOunces(it.WeightOz),
			CountryOfOrigin: carriers.NormalizeCountry(orDefault(it.OriginCountry, origin)),
		}
		if hs := tariffNumber(it.HSTariffNumber); hs != "" {
			item.HSTariffNumber = hs
		}
		form.Contents = append(form.Contents, item)
	}
	// The shipping flow refuses such an export without its ITN; this is
	// the defence for one that reaches USPS anyway.
	if _, filed := carriers.ITN(cu.EELPFC); !filed {
		if v := cu.ScheduleBValues(); len(v) > 0 && v[0].ValueCents > aesLimitCents {
			return customsForm{}, &carriers.Error{Carrier: CarrierName, Operation: opBuy, Kind: carriers.ErrRejected,
				Message: fmt.Sprintf("exports with more than $2,500 under one Schedule B number (here $%d.%02d of %d declared) need an AES filing: give its ITN in eelPfc",
					v[0].ValueCents/100, v[0].ValueCents%100, total)}
		}
	}
	return form, nil
}

// tariffNumber keeps an HS tariff number USPS accepts (6 to 14 letters or
// digits, dots allowed); anything else is dropped, since the field is
// optional and USPS would refuse the label over it.
func tariffNumber(hs string) string {
	hs = strings.TrimSpace(hs)
	n := 0
	for _, r := range hs {
		switch {
		case r == '.':
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
			n++
		default:
			return ""
		}
	}
	if n < 6 || n > 14 {
		return ""
	}
	return hs
}

func toDomesticAddress(a carriers.Address) domesticAddress {
	first, last, firm := addressee(a)
	zip, plus4 := splitZIP(a.Zip)
	state := strings.ToUpper(strings.TrimSpace(a.State))
	if country := carriers.NormalizeCountry(a.Country); state == "" && country != "US" {
		// Territories are their own state: PR, GU, VI...
		state = country
	}
	return domesticAddress{
		FirstName: first, LastName: last, Firm: firm,
		StreetAddress: strings.TrimSpace(a.Street1), SecondaryAddress: strings.TrimSpace(a.Street2),
		City: strings.TrimSpace(a.City), State: state, ZIPCode: zip, ZIPPlus4: plus4,
		Phone: phone(a.Phone), Email: email(a.Email),
	}
}

// addressee splits a name into the first and last name USPS wants. A label
// needs a first and last name or a firm, so a single-word name without a
// company is sent as the firm.
func addressee(a carriers.Address) (first, last, firm string) {
	firm = strings.TrimSpace(a.Company)
	words := strings.Fields(a.Name)
	switch {
	case len(words) >= 2:
		first, last = strings.Join(words[:len(words)-1], " "), words[len(words)-1]
	case len(words) == 1 && firm == "":
		firm = words[0]
	case len(words) == 1:
		first = words[0]
	}
	return truncate(first, 50), truncate(last, 50), truncate(firm, 50)
}

// splitZIP splits "12345-6789" or "123456789" into the ZIP Code and ZIP+4.
func splitZIP(zip string) (zip5, plus4 string) {
	zip = strings.TrimSpace(zip)
	switch {
	case len(zip) == 10 && zip[5] == '-' && isDigits(zip[:5]) && isDigits(zip[6:]):
		return zip[:5], zip[6:]
	case len(zip) == 9 && isDigits(zip):
		return zip[:5], zip[5:]
	}
	return zip, ""
}

var (
	phonePattern = regexp.MustCompile(`^\+?[1-9][0-9]{7,14}$`)
	emailPattern = regexp.MustCompile(`^[a-zA-Z0-9_+&*-]+(?:\.[a-zA-Z0-9_+&*-]+)*@(?:[a-zA-Z0-9-]+\.)+[a-zA-Z]{2,}$`)
)

// phone keeps the digits (and a leading +) of a phone number, or nothing when
// the result is not what the Labels API's Phone pattern accepts: the phone
// is optional, a malformed one would make USPS refuse the whole label.
func phone(p string) string {
	var b strings.Builder
	for i, r := range strings.TrimSpace(p) {
		if (r >= '0' && r <= '9') || (r == '+' && i == 0) {
			b.WriteRune(r)
		}
	}
	if s := b.String(); phonePattern.MatchString(s) {
		return s
	}
	return ""
}

// email keeps an address the Labels API's Email pattern accepts, for the same
// reason as phone.
func email(e string) string {
	e = strings.TrimSpace(e)
	if len(e) <= 50 && emailPattern.MatchString(e) {
		return e
	}
	return ""
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// labelAnswer is LabelVendorResponse (domestic) and
// InternationalLabelVendorResponse: the label metadata at the top level, the
// image base64-encoded in labelImage. Some answers nest the metadata under
// labelMetadata, as the multipart representation does, so that is read too.
type labelAnswer struct {
	labelMetadata
	LabelImage    string         `json:"labelImage"`
	LabelMetadata *labelMetadata `json:"labelMetadata"`
	// The return label answer (ReturnLabelVendorResponse) names its image
	// and nested metadata returnLabel*.
	ReturnLabelImage    string         `json:"returnLabelImage"`
	ReturnLabelMetadata *labelMetadata `json:"returnLabelMetadata"`
}

type labelMetadata struct {
	TrackingNumber              string `json:"trackingNumber"`
	InternationalTrackingNumber string `json:"internationalTrackingNumber"`
}

func (m labelMetadata) trackingNumber() string {
	return strings.TrimSpace(orDefault(m.TrackingNumber, m.InternationalTrackingNumber))
}

// parseLabel decodes a label answer: the JSON asked for, or the multipart one
// USPS sends by default (a JSON labelMetadata part and a labelImage part
// whose content is base64 "always", per the Labels API).
func parseLabel(contentType string, body []byte) (carriers.Label, error) {
	return parseLabelAs(contentType, body, imagePDF)
}

// parseLabelAs is parseLabel for a label asked as imageType: a PDF, ZPL
// (bounded, starting ^XA) or a TIFF left in Document for the caller to
// convert.
func parseLabelAs(contentType string, body []byte, imageType string) (carriers.Label, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err == nil && strings.HasPrefix(mediaType, "multipart/") {
		return parseMultipartLabel(params["boundary"], body, imageType)
	}
	var ans labelAnswer
	if err := decodeJSON(body, &ans); err != nil {
		return carriers.Label{}, failed(opBuy, http.StatusOK, "the label answer does not parse: %v", err)
	}
	tracking := ans.trackingNumber()
	for _, nested := range []*labelMetadata{ans.LabelMetadata, ans.ReturnLabelMetadata} {
		if tracking == "" && nested != nil {
			tracking = nested.trackingNumber()
		}
	}
	image := orDefault(ans.LabelImage, ans.ReturnLabelImage)
	return finishLabel(tracking, []byte(image), imageType)
}

func parseMultipartLabel(boundary string, body []byte, imageType string) (carriers.Label, error) {
	if boundary == "" {
		return carriers.Label{}, failed(opBuy, http.StatusOK, "the multipart label answer has no boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var meta labelMetadata
	var image []byte
	metaSeen := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return carriers.Label{}, failed(opBuy, http.StatusOK, "the multipart label answer does not parse: %v", err)
		}
		content, err := io.ReadAll(part)
		if err != nil {
			return carriers.Label{}, failed(opBuy, http.StatusOK, "the multipart label answer does not parse: %v", err)
		}
		partType, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch name := part.FormName(); {
		case name == "labelMetadata" || name == "returnLabelMetadata" || (name == "" && !metaSeen && partType == "application/json"):
			var m labelMetadata
			if err := json.Unmarshal(content, &m); err != nil {
				return carriers.Label{}, failed(opBuy, http.StatusOK, "the labelMetadata part does not parse: %v", err)
			}
			meta, metaSeen = m, true
		case name == "labelImage" || name == "returnLabelImage" || (name == "" && image == nil && partType != "application/json"):
			image = content
		}
	}
	if !metaSeen {
		return carriers.Label{}, failed(opBuy, http.StatusOK, "the multipart label answer has no labelMetadata part")
	}
	return finishLabel(meta.trackingNumber(), image, imageType)
}

// finishLabel checks what every label needs: a tracking number and a PDF.
func finishLabel(tracking string, image []byte, imageType string) (carriers.Label, error) {
	if tracking == "" {
		return carriers.Label{}, failed(opBuy, http.StatusOK, "the label answer has no tracking number")
	}
	if imageType != imagePDF {
		doc, err := labelBytes(image)
		if err == nil && imageType == imageZPL {
			err = carriers.CheckZPL(doc)
		}
		if err != nil {
			// USPS sold the label: an answer that cannot be used says what to void.
			return carriers.Label{}, carriers.Unusable(carriers.Label{TrackingNumber: tracking}, failed(opBuy, http.StatusOK, "label %s: %v", tracking, err))
		}
		label := carriers.Label{TrackingNumber: tracking, Document: doc}
		if imageType == imageZPL {
			label.Format = carriers.LabelZPL
		}
		return label, nil
	}
	pdf, err := labelPDF(image)
	if err != nil {
		return carriers.Label{}, carriers.Unusable(carriers.Label{TrackingNumber: tracking}, failed(opBuy, http.StatusOK, "label %s: %v", tracking, err))
	}
	// USPS voids and refunds by tracking number, so there is no other id
	// to keep.
	return carriers.Label{TrackingNumber: tracking, Document: pdf, Format: carriers.LabelPDF}, nil
}

// labelPDF decodes a label image, base64 as USPS sends it (wrapped lines
// included), or raw bytes should a server send the PDF itself.
func labelPDF(image []byte) ([]byte, error) {
	pdf, err := labelBytes(image)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		return nil, errors.New("the label image is not a PDF")
	}
	return pdf, nil
}

// labelBytes decodes a label image, base64 as USPS sends it, or raw bytes
// should a server send the PDF or ZPL itself; bounded before decoding.
func labelBytes(image []byte) ([]byte, error) {
	image = bytes.TrimLeft(image, " \t\r\n")
	if len(bytes.TrimSpace(image)) == 0 {
		return nil, errors.New("the answer has no label image")
	}
	if bytes.HasPrefix(image, []byte("%PDF")) || bytes.HasPrefix(image, []byte("^XA")) {
		if err := carriers.CheckLabelBytes(len(image)); err != nil {
			return nil, err
		}
		return image, nil
	}
	compact := bytes.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, image)
	// Refused before the decoded copy is allocated.
	if err := carriers.CheckLabelBase64(compact); err != nil {
		return nil, err
	}
	pdf := make([]byte, base64.StdEncoding.DecodedLen(len(compact)))
	n, err := base64.StdEncoding.Decode(pdf, compact)
	if err != nil {
		return nil, fmt.Errorf("the label image is not base64: %v", err)
	}
	return pdf[:n], nil
}

// aesITN is the AESITN of a declaration: its ITN as "AES X...", or its
// exemption legend in USPS's spelling ("NO EEI 30.37(a)"), by default
// 30.37(a).
func aesITN(cu *carriers.Customs) string {
	if itn, ok := carriers.ITN(cu.EELPFC); ok {
		return "AES " + itn
	}
	e := strings.TrimSpace(cu.EELPFC)
	if len(e) > 6 && strings.EqualFold(e[:6], "NOEEI ") {
		return "NO EEI " + e[6:]
	}
	if e == "" {
		return aesExemption
	}
	return truncate(e, 35)
}
