package uspsfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

const labelsVendorJSON = "application/vnd.usps.labels+json"

// labelAddressIn is an address as the label and SCAN form requests send
// it; omitempty because a SCAN form answer echoes fromAddress, where
// scan-forms.yaml refuses an empty ZIPPlus4 (pattern ^\d{4}$).
type labelAddressIn struct {
	FirstName            string `json:"firstName,omitempty"`
	LastName             string `json:"lastName,omitempty"`
	Firm                 string `json:"firm,omitempty"`
	StreetAddress        string `json:"streetAddress,omitempty"`
	SecondaryAddress     string `json:"secondaryAddress,omitempty"`
	City                 string `json:"city,omitempty"`
	State                string `json:"state,omitempty"`
	ZIPCode              string `json:"ZIPCode,omitempty"`
	ZIPPlus4             string `json:"ZIPPlus4,omitempty"`
	Phone                string `json:"phone,omitempty"`
	Email                string `json:"email,omitempty"`
	Province             string `json:"province,omitempty"`
	PostalCode           string `json:"postalCode,omitempty"`
	Country              string `json:"country,omitempty"`
	CountryISOAlpha2Code string `json:"countryISOAlpha2Code,omitempty"`
}

type labelPackageIn struct {
	MailClass                    string   `json:"mailClass"`
	RateIndicator                string   `json:"rateIndicator"`
	WeightUOM                    string   `json:"weightUOM"`
	Weight                       *float64 `json:"weight"`
	DimensionsUOM                string   `json:"dimensionsUOM"`
	Length                       *float64 `json:"length"`
	Width                        *float64 `json:"width"`
	Height                       *float64 `json:"height"`
	ProcessingCategory           string   `json:"processingCategory"`
	DestinationEntryFacilityType string   `json:"destinationEntryFacilityType"`
	MailingDate                  string   `json:"mailingDate"`
	ExtraServices                []int    `json:"extraServices"`
	CustomerReference            []struct {
		ReferenceNumber      string `json:"referenceNumber"`
		PrintReferenceNumber bool   `json:"printReferenceNumber"`
	} `json:"customerReference"`
	PackageOptions *struct {
		NonDeliveryOption string `json:"nonDeliveryOption"`
	} `json:"packageOptions"`
}

type customsIn struct {
	CustomsContentType string `json:"customsContentType"`
	ContentComments    string `json:"contentComments"`
	AESITN             string `json:"AESITN"`
	InvoiceNumber      string `json:"invoiceNumber"`
	Contents           []struct {
		ItemDescription string   `json:"itemDescription"`
		ItemQuantity    *int     `json:"itemQuantity"`
		ItemValue       *float64 `json:"itemValue"`
		ItemTotalValue  *float64 `json:"itemTotalValue"`
		WeightUOM       string   `json:"weightUOM"`
		ItemWeight      *float64 `json:"itemWeight"`
		ItemTotalWeight *float64 `json:"itemTotalWeight"`
		HSTariffNumber  string   `json:"HSTariffNumber"`
		CountryofOrigin string   `json:"countryofOrigin"`
	} `json:"contents"`
}

type labelRequest struct {
	ImageInfo *struct {
		ImageType     string `json:"imageType"`
		LabelType     string `json:"labelType"`
		ReceiptOption string `json:"receiptOption"`
	} `json:"imageInfo"`
	ToAddress          *labelAddressIn `json:"toAddress"`
	FromAddress        *labelAddressIn `json:"fromAddress"`
	PackageDescription *labelPackageIn `json:"packageDescription"`
	CustomsForm        *customsIn      `json:"customsForm"`
}

// label is a label the fake sold; its Sale's Return is a label sold by
// /return-label, paid on use.
type label struct {
	fakekit.Sale
	international bool
	mailClass     string
	from, to      labelAddressIn
	weightLb      float64
	postageCents  int64
	pdf           []byte // the label image, in imageType
	imageType     string // as asked: PDF (also ""), TIFF, ZPL203DPI
	manifested    bool
	scanForm      string // the SCAN form the label is on
	disputedOn    string // the day of the latest refund request
	events        []scan
	// customs is the CN22 / CN23 printed on an international label.
	customs *customsDeclaration
}

var (
	rateIndicators   = strings.Fields("3D 3N 3R 5D BA BB CP CM DC DE DF DN DR E4 E6 FA FB FE FP FS LC LF LL LO LS NP OS P5 P6 P7 P8 P9 Q6 Q7 Q8 Q9 Q0 PA PL PM PR SN SP SR")
	labelMailClasses = []string{"PARCEL_SELECT", "PARCEL_SELECT_LIGHTWEIGHT", "USPS_CONNECT_LOCAL", "USPS_CONNECT_REGIONAL", "USPS_CONNECT_MAIL",
		"USPS_GROUND_ADVANTAGE", "PRIORITY_MAIL_EXPRESS", "PRIORITY_MAIL", "FIRST-CLASS_PACKAGE_SERVICE", "LIBRARY_MAIL", "MEDIA_MAIL", "BOUND_PRINTED_MATTER"}
	// returnMailClasses are BaseReturnsPackageDescription's, by the outbound
	// class each is priced as.
	returnMailClasses = map[string]string{
		"USPS_GROUND_ADVANTAGE_RETURN_SERVICE": "USPS_GROUND_ADVANTAGE",
		"GROUND_RETURN_SERVICE":                "USPS_GROUND_ADVANTAGE",
		"FIRST-CLASS_PACKAGE_RETURN_SERVICE":   "USPS_GROUND_ADVANTAGE",
		"PRIORITY_MAIL_RETURN_SERVICE":         "PRIORITY_MAIL",
		"PRIORITY_MAIL_EXPRESS_RETURN_SERVICE": "PRIORITY_MAIL_EXPRESS",
	}
	intlLabelMailClasses = []string{"FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE", "PRIORITY_MAIL_INTERNATIONAL", "PRIORITY_MAIL_EXPRESS_INTERNATIONAL"}
	facilityTypes        = []string{"NONE", "DESTINATION_NETWORK_DISTRIBUTION_CENTER", "DESTINATION_SECTIONAL_CENTER_FACILITY", "DESTINATION_DELIVERY_UNIT", "DESTINATION_SERVICE_HUB"}
	processingCategories = []string{"LETTERS", "FLATS", "MACHINABLE", "IRREGULAR", "NON_MACHINABLE", "NONSTANDARD"}
)

// labelKind is which of the three label operations is answering.
type labelKind int

const (
	domesticKind labelKind = iota
	internationalKind
	returnKind
)

// domesticLabel is POST /labels/v3/label (Domestic Labels 3.0).
func (s *Server) domesticLabel(w http.ResponseWriter, r *http.Request, body []byte) {
	s.buyLabel(w, r, body, domesticKind)
}

// internationalLabel is POST /international-labels/v3/international-label.
func (s *Server) internationalLabel(w http.ResponseWriter, r *http.Request, body []byte) {
	s.buyLabel(w, r, body, internationalKind)
}

// returnLabel is POST /labels/v3/return-label (Domestic Labels 3.0): a
// domestic return label, which USPS bills when it is first scanned.
func (s *Server) returnLabel(w http.ResponseWriter, r *http.Request, body []byte) {
	s.buyLabel(w, r, body, returnKind)
}

func (s *Server) buyLabel(w http.ResponseWriter, r *http.Request, body []byte, kind labelKind) {
	international := kind == internationalKind
	api := "/labels/v3"
	if international {
		api = "/international-labels/v3"
	}
	var p problems
	if !isJSON(r) {
		p.add("Content-Type", "Content-Type must be application/json")
	}
	payment := r.Header.Get("X-Payment-Authorization-Token")
	if payment == "" {
		p.add("X-Payment-Authorization-Token", "the X-Payment-Authorization-Token header is required")
	}
	key := r.Header.Get("X-Idempotency-Key")
	if !uuidPattern.MatchString(key) {
		p.add("X-Idempotency-Key", "the X-Idempotency-Key header must be a UUID")
	}
	if p.write(w, api) {
		return
	}
	if !s.validPaymentToken(r) {
		writeError(w, http.StatusUnauthorized, api, "Unauthorized", "", "The payment authorization token is invalid or has expired.", "X-Payment-Authorization-Token")
		return
	}
	s.mu.Lock()
	tn, seen := s.byKey[key]
	s.mu.Unlock()
	if seen {
		// Same key, same label: a retried purchase is not sold twice.
		s.writeLabel(w, r, tn)
		return
	}

	var req labelRequest
	if err := json.Unmarshal(body, &req); err != nil {
		p.add("body", "the request body is not a valid label request: %v", err)
		p.write(w, api)
		return
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(body, &top)
	if international {
		checkKeys(&p, body, "request", "imageInfo", "toAddress", "fromAddress", "senderAddress", "packageDescription", "customsForm")
		checkKeys(&p, top["imageInfo"], "imageInfo", "imageType", "labelType", "holdForManifest", "suppressPostage", "includeLabelBrokerPDF", "addZPLComments")
		checkKeys(&p, top["packageDescription"], "packageDescription", "weightUOM", "weight", "dimensionsUOM", "length", "height", "width", "girth",
			"hasNonstandardCharacteristics", "mailClass", "rateIndicator", "packagingType", "diameter", "shape", "processingCategory",
			"destinationEntryFacilityType", "mailingDate", "packageOptions", "customerReference", "extraServices", "inductionZIPCode",
			"mailOwnerMID", "logisticsManagerMID")
		checkKeys(&p, top["customsForm"], "customsForm", "contentComments", "restrictionType", "restrictionComments", "AESITN", "invoiceNumber",
			"licenseNumber", "certificateNumber", "customsContentType", "importersReference", "exportersReference", "contents")
	} else {
		checkKeys(&p, body, "request", "imageInfo", "toAddress", "fromAddress", "senderAddress", "returnAddress", "packageDescription", "customsForm")
	}
	if kind == returnKind {
		// BaseReturnsPackageDescription has no mailing date (a return is
		// mailed when the customer drops it off) nor entry facility.
		checkKeys(&p, top["packageDescription"], "packageDescription", "weightUOM", "weight", "dimensionsUOM", "length", "height", "width",
			"girth", "hasNonstandardCharacteristics", "mailClass", "rateIndicator", "packagingType", "shape", "processingCategory",
			"customerReference", "extraServices", "packageOptions")
	}
	if img := req.ImageInfo; img != nil {
		oneOf(&p, "imageInfo.imageType", img.ImageType, false, "PDF", "TIFF", "JPG", "PNG", "GIF", "SVG", "ZPL203DPI", "ZPL300DPI", "LABEL_BROKER", "NONE")
		oneOf(&p, "imageInfo.labelType", img.LabelType, false, "4X4LABEL", "4X5LABEL", "4X6LABEL", "6X4LABEL", "2X7LABEL")
		oneOf(&p, "imageInfo.receiptOption", img.ReceiptOption, false, "SAME_PAGE", "SEPARATE_PAGE", "NONE")
		switch {
		case international && img.ImageType != "" && img.ImageType != "PDF" && img.ImageType != "TIFF":
			// The International Labels API draws PDF and TIFF only.
			p.add("imageInfo.imageType", "%s is not an international label image type (PDF, TIFF)", img.ImageType)
		case img.ImageType != "" && img.ImageType != "PDF" && img.ImageType != "TIFF" && img.ImageType != "ZPL203DPI":
			p.add("imageInfo.imageType", "the fake makes PDF, TIFF and ZPL203DPI labels only")
		}
	}
	if req.FromAddress == nil {
		p.add("fromAddress", "fromAddress is required")
	} else {
		checkDomesticAddress(&p, "fromAddress", *req.FromAddress)
	}
	if req.ToAddress == nil {
		p.add("toAddress", "toAddress is required")
	} else if international {
		checkInternationalAddress(&p, "toAddress", *req.ToAddress)
	} else {
		checkDomesticAddress(&p, "toAddress", *req.ToAddress)
	}
	pkg := req.PackageDescription
	if pkg == nil {
		p.add("packageDescription", "packageDescription is required")
	} else {
		s.checkLabelPackage(&p, *pkg, kind)
	}
	if international {
		if req.CustomsForm == nil {
			p.add("customsForm", "customsForm is required for international labels")
		} else {
			checkCustoms(&p, *req.CustomsForm)
		}
	}
	if p.write(w, api) {
		return
	}

	priced := pkg.MailClass
	if kind == returnKind {
		priced = returnMailClasses[pkg.MailClass]
	}
	l := &label{
		Sale:          fakekit.Sale{Account: AccountNumber, Return: kind == returnKind, SoldAt: s.Now()},
		international: international, mailClass: pkg.MailClass, from: *req.FromAddress, to: *req.ToAddress,
		weightLb: *pkg.Weight, postageCents: priceFor(priced, *pkg.Weight),
	}
	if international {
		l.customs = customsOf(*req.CustomsForm) // customs.go
	}
	if req.ImageInfo != nil {
		l.imageType = req.ImageInfo.ImageType
	}
	for _, ref := range pkg.CustomerReference {
		if ref.PrintReferenceNumber || international {
			l.Reference = ref.ReferenceNumber
			break
		}
	}
	s.mu.Lock()
	if tn, seen := s.byKey[key]; seen {
		// A concurrent retry with the same key got there first.
		s.mu.Unlock()
		s.writeLabel(w, r, tn)
		return
	}
	s.serial++
	if international {
		l.TrackingNumber = s10("LZ", s.serial)
	} else {
		l.TrackingNumber = impb(s.serial)
	}
	l.Pieces = []string{l.TrackingNumber}
	pdf, err := labelImage(l)
	if err == nil {
		l.pdf = pdf
		s.sales.Sell(l)
		s.byKey[key] = l.TrackingNumber
	}
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, api, "Internal Server Error", "", "the label image could not be made", "")
		return
	}
	s.writeLabel(w, r, l.TrackingNumber)
}

func checkDomesticAddress(p *problems, where string, a labelAddressIn) {
	length(p, where+".streetAddress", a.StreetAddress, 1, 50)
	length(p, where+".city", a.City, 1, 28)
	if !validState(a.State) {
		p.add(where+".state", "state %q is not a two-character state code", a.State)
	}
	if !zip5Pattern.MatchString(a.ZIPCode) {
		p.add(where+".ZIPCode", "ZIPCode %q is not a 5-digit ZIP Code", a.ZIPCode)
	}
	if a.ZIPPlus4 != "" && !zipPlus4Pattern.MatchString(a.ZIPPlus4) {
		p.add(where+".ZIPPlus4", "ZIPPlus4 %q is not 4 digits", a.ZIPPlus4)
	}
	checkAddressee(p, where, a)
}

func checkInternationalAddress(p *problems, where string, a labelAddressIn) {
	length(p, where+".streetAddress", a.StreetAddress, 1, 50)
	length(p, where+".city", a.City, 1, 28)
	if a.Country == "" {
		p.add(where+".country", "country is required")
	}
	if !countryPattern.MatchString(a.CountryISOAlpha2Code) {
		p.add(where+".countryISOAlpha2Code", "countryISOAlpha2Code %q is not an ISO 3166-1 alpha-2 code", a.CountryISOAlpha2Code)
	}
	if len(a.PostalCode) > 11 {
		p.add(where+".postalCode", "postalCode is at most 11 characters")
	}
	checkAddressee(p, where, a)
}

// checkAddressee: "The First and Last Name or Firm Name are always required."
func checkAddressee(p *problems, where string, a labelAddressIn) {
	if a.Firm == "" && (a.FirstName == "" || a.LastName == "") {
		p.add(where+".firstName", "firstName and lastName, or firm, are required")
	}
	for _, f := range []struct{ name, v string }{{"firstName", a.FirstName}, {"lastName", a.LastName}, {"firm", a.Firm}} {
		if len([]rune(f.v)) > 50 {
			p.add(where+"."+f.name, "%s is at most 50 characters", f.name)
		}
	}
	if a.Phone != "" && !phonePattern.MatchString(a.Phone) {
		p.add(where+".phone", "phone %q is not digits with the country and area code", a.Phone)
	}
	if a.Email != "" && !emailPattern.MatchString(a.Email) {
		p.add(where+".email", "email %q is not an email address", a.Email)
	}
}

func (s *Server) checkLabelPackage(p *problems, pkg labelPackageIn, kind labelKind) {
	const w = "packageDescription."
	switch kind {
	case returnKind:
		classes := make([]string, 0, len(returnMailClasses))
		for c := range returnMailClasses {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		oneOf(p, w+"mailClass", pkg.MailClass, true, classes...)
		oneOf(p, w+"rateIndicator", pkg.RateIndicator, true, rateIndicators...)
		oneOf(p, w+"processingCategory", pkg.ProcessingCategory, true, processingCategories...)
		if pkg.ProcessingCategory == "FLATS" && returnMailClasses[pkg.MailClass] == "USPS_GROUND_ADVANTAGE" {
			p.add(w+"processingCategory", "FLATS is not valid for USPS_GROUND_ADVANTAGE_RETURN_SERVICE")
		}
		if pkg.MailClass == "PRIORITY_MAIL_EXPRESS_RETURN_SERVICE" && pkg.RateIndicator == "SP" {
			p.add(w+"rateIndicator", "no price (SKU) found for PRIORITY_MAIL_EXPRESS_RETURN_SERVICE with rate indicator SP")
		}
		if len(pkg.CustomerReference) > 4 {
			p.add(w+"customerReference", "at most 4 customer references")
		}
	case internationalKind:
		oneOf(p, w+"mailClass", pkg.MailClass, true, intlLabelMailClasses...)
		oneOf(p, w+"rateIndicator", pkg.RateIndicator, false, "E4", "E6", "FA", "FB", "FE", "FP", "FS", "PA", "PL", "SP")
		oneOf(p, w+"destinationEntryFacilityType", pkg.DestinationEntryFacilityType, true, "NONE", "INTERNATIONAL_SERVICE_CENTER")
		oneOf(p, w+"processingCategory", pkg.ProcessingCategory, true, "LETTERS", "FLATS", "MACHINABLE", "NON_MACHINABLE", "NONSTANDARD")
		if len(pkg.CustomerReference) > 2 {
			p.add(w+"customerReference", "at most 2 customer references")
		}
		if o := pkg.PackageOptions; o != nil {
			oneOf(p, w+"packageOptions.nonDeliveryOption", o.NonDeliveryOption, false, "RETURN", "REDIRECT", "ABANDON")
		}
	default:
		oneOf(p, w+"mailClass", pkg.MailClass, true, labelMailClasses...)
		oneOf(p, w+"rateIndicator", pkg.RateIndicator, true, rateIndicators...)
		oneOf(p, w+"destinationEntryFacilityType", pkg.DestinationEntryFacilityType, true, facilityTypes...)
		oneOf(p, w+"processingCategory", pkg.ProcessingCategory, true, processingCategories...)
		if pkg.MailClass == "PRIORITY_MAIL_EXPRESS" && pkg.RateIndicator == "SP" {
			// No Priority Mail Express price has the SP indicator; USPS
			// answers that it cannot find the price.
			p.add(w+"rateIndicator", "no price (SKU) found for PRIORITY_MAIL_EXPRESS with rate indicator SP")
		}
		if len(pkg.CustomerReference) > 4 {
			p.add(w+"customerReference", "at most 4 customer references")
		}
		if len(pkg.ExtraServices) > 5 {
			p.add(w+"extraServices", "at most 5 extra services")
		}
		for _, es := range pkg.ExtraServices {
			if !containsInt(domesticExtraServices, es) {
				p.add(w+"extraServices", "%d is not an extra service code", es)
			}
		}
	}
	for _, ref := range pkg.CustomerReference {
		length(p, w+"customerReference.referenceNumber", ref.ReferenceNumber, 1, 30)
	}
	if pkg.WeightUOM != "" && pkg.WeightUOM != "lb" {
		p.add(w+"weightUOM", "weightUOM must be lb")
	}
	if pkg.DimensionsUOM != "" && pkg.DimensionsUOM != "in" {
		p.add(w+"dimensionsUOM", "dimensionsUOM must be in")
	}
	positive(p, w+"weight", pkg.Weight, 70)
	positive(p, w+"length", pkg.Length, 0)
	positive(p, w+"width", pkg.Width, 0)
	positive(p, w+"height", pkg.Height, 0)
	switch {
	case kind == returnKind:
	case pkg.MailingDate == "":
		p.add(w+"mailingDate", "mailingDate is required")
	default:
		checkMailingDate(p, w+"mailingDate", pkg.MailingDate, s.Now(), 7)
	}
}

func checkCustoms(p *problems, c customsIn) {
	const w = "customsForm."
	oneOf(p, w+"customsContentType", c.CustomsContentType, true, "MERCHANDISE", "GIFT", "DOCUMENT", "COMMERCIAL_SAMPLE", "RETURNED_GOODS",
		"OTHER", "HUMANITARIAN_DONATIONS", "DANGEROUS_GOODS", "CREMATED_REMAINS", "NON_NEGOTIABLE_DOCUMENT", "MEDICAL_SUPPLIES", "PHARMACEUTICALS")
	if c.CustomsContentType == "OTHER" {
		length(p, w+"contentComments", c.ContentComments, 1, 25)
	}
	length(p, w+"AESITN", c.AESITN, 1, 35)
	if c.InvoiceNumber != "" {
		length(p, w+"invoiceNumber", c.InvoiceNumber, 1, 15)
	}
	if len(c.Contents) == 0 || len(c.Contents) > 30 {
		p.add(w+"contents", "contents needs 1 to 30 items")
	}
	for i, it := range c.Contents {
		at := fmt.Sprintf("%scontents[%d].", w, i)
		length(p, at+"itemDescription", it.ItemDescription, 1, 30)
		if it.ItemQuantity == nil || *it.ItemQuantity < 1 || *it.ItemQuantity > 9999 {
			p.add(at+"itemQuantity", "itemQuantity must be 1 to 9999")
		}
		value, weight := it.ItemTotalValue, it.ItemTotalWeight
		if value == nil {
			value = it.ItemValue
		}
		if weight == nil {
			weight = it.ItemWeight
		}
		if value == nil || *value < 0.01 || *value > 999999.99 {
			p.add(at+"itemTotalValue", "itemTotalValue must be 0.01 to 999999.99 USD")
		}
		positive(p, at+"itemTotalWeight", weight, 70)
		if it.WeightUOM != "" && it.WeightUOM != "lb" {
			p.add(at+"weightUOM", "weightUOM must be lb")
		}
		if !countryPattern.MatchString(it.CountryofOrigin) {
			p.add(at+"countryofOrigin", "countryofOrigin %q is not an ISO 3166-1 alpha-2 code", it.CountryofOrigin)
		}
		if it.HSTariffNumber != "" && !tariffPattern.MatchString(it.HSTariffNumber) {
			p.add(at+"HSTariffNumber", "HSTariffNumber %q is not 6 to 14 digits", it.HSTariffNumber)
		}
	}
}

// impb makes a 22-digit IMpb tracking number: 92, service type 055, the
// fake's MID, a serial, and the USPS MOD 10 check digit.
func impb(serial int) string {
	base := fmt.Sprintf("92055%s%07d", MID, serial)
	return base + strconv.Itoa(mod10(base))
}

// mod10 is the IMpb check digit: from the right, odd positions weigh 3.
func mod10(digits string) int {
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return (10 - sum%10) % 10
}

// s10 makes a UPU S10 international tracking number with its check digit.
func s10(prefix string, serial int) string {
	n := fmt.Sprintf("%08d", serial%100000000)
	weights := []int{8, 6, 4, 2, 3, 5, 9, 7}
	sum := 0
	for i, c := range n {
		sum += int(c-'0') * weights[i]
	}
	check := 11 - sum%11
	switch check {
	case 10:
		check = 0
	case 11:
		check = 5
	}
	return prefix + n + strconv.Itoa(check) + "US"
}

// writeLabel answers the label of trackingNumber as the client asked: the
// vendor JSON for Accept: application/vnd.usps.labels+json, the default
// multipart representation otherwise (metadata part, then the base64 label
// image).
func (s *Server) writeLabel(w http.ResponseWriter, r *http.Request, trackingNumber string) {
	var meta map[string]any
	var image, imageType string
	status := http.StatusOK
	// A return label's answer (ReturnLabelVendorResponse,
	// ReturnLabelMultiPartResponse) names its parts returnLabel*.
	metaName, imageName := "labelMetadata", "labelImage"
	s.sales.With(trackingNumber, func(l *label) {
		meta, image, imageType = labelMetadata(l), base64.StdEncoding.EncodeToString(l.pdf), l.imageType
		if l.international {
			status = http.StatusCreated
		}
		if l.Return {
			metaName, imageName = "returnLabelMetadata", "returnLabelImage"
		}
	})
	if strings.Contains(r.Header.Get("Accept"), labelsVendorJSON) {
		meta[imageName] = image
		b, _ := json.Marshal(meta)
		w.Header().Set("Content-Type", labelsVendorJSON)
		w.WriteHeader(status)
		_, _ = w.Write(b)
		return
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	metaJSON, _ := json.Marshal(meta)
	part, _ := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":        {"application/json"},
		"Content-Disposition": {`form-data; name="` + metaName + `"`},
	})
	_, _ = part.Write(metaJSON)
	ctype, ext := "application/pdf", "pdf"
	switch imageType {
	case "TIFF":
		ctype, ext = "image/tiff", "tiff"
	case "ZPL203DPI":
		ctype, ext = "application/zpl", "zpl"
	}
	part, _ = mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {ctype},
		"Content-Disposition":       {`form-data; name="` + imageName + `"; filename="` + imageName + `.` + ext + `"`},
		"Content-Transfer-Encoding": {"base64"},
	})
	_, _ = part.Write([]byte(image))
	_ = mw.Close()
	w.Header().Set("Content-Type", "multipart/form-data; boundary="+mw.Boundary())
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// labelMetadata is LabelMetadata or InternationalLabelMetadata. Called with
// the sales book locked.
func labelMetadata(l *label) map[string]any {
	if l.international {
		return map[string]any{
			"internationalTrackingNumber": l.TrackingNumber, "constructCode": "I01", "SKU": "IPXX0XXXXC01010",
			"postage": money(l.postageCents), "extraServices": []any{}, "internationalPriceGroup": "01", // two characters in international-labels.yaml
			"weightUOM": "lb", "weight": l.weightLb, "fees": []any{},
			"labelAddress": map[string]any{
				"streetAddress": strings.ToUpper(l.to.StreetAddress), "city": strings.ToUpper(l.to.City),
				"postalCode": l.to.PostalCode, "country": l.to.Country, "countryISOAlpha2Code": l.to.CountryISOAlpha2Code,
			},
		}
	}
	return map[string]any{
		"labelAddress": withoutEmpty(map[string]any{
			"streetAddress": strings.ToUpper(l.to.StreetAddress), "secondaryAddress": strings.ToUpper(l.to.SecondaryAddress),
			"city": strings.ToUpper(l.to.City), "state": l.to.State, "ZIPCode": l.to.ZIPCode, "ZIPPlus4": plus4For(l.to.StreetAddress),
			"firstName": strings.ToUpper(l.to.FirstName), "lastName": strings.ToUpper(l.to.LastName), "firm": strings.ToUpper(l.to.Firm),
			"ignoreBadAddress": false,
		}),
		"routingInformation": "420" + l.to.ZIPCode + plus4For(l.to.StreetAddress),
		"trackingNumber":     l.TrackingNumber, "constructCode": "C01", "SKU": "DUXP0XXXXC01010",
		"postage": money(l.postageCents), "extraServices": []any{}, "zone": "05",
		"commitment": map[string]any{"name": "3 Days", "scheduleDeliveryDate": l.SoldAt.AddDate(0, 0, 3).Format(time.DateOnly)},
		"weightUOM":  "lb", "weight": l.weightLb, "dimensionalWeight": 0, "fees": []any{},
		"bannerText": "USPS TRACKING # USPS Ship", "retailDistributionCode": "03", "serviceTypeCode": "055",
		"links": []any{map[string]any{"rel": []string{"Tracking URL"},
			"href": "https://tools.usps.com/go/TrackConfirmAction_input?origTrackNum=" + l.TrackingNumber, "method": "GET"}},
	}
}

// ManifestLabel marks a label's Shipping Services File as sent, as USPS does
// at 12:30am CT after the mailing date: from then on it cannot be cancelled,
// only refunded. False when the fake sold no such label.
func (s *Server) ManifestLabel(trackingNumber string) bool {
	return s.sales.With(trackingNumber, func(l *label) { l.manifested = true })
}

// IsReturn reports whether the label of trackingNumber was sold by
// /return-label.
func (s *Server) IsReturn(trackingNumber string) bool { return s.sales.IsReturn(trackingNumber) }

// LabelCount is the number of labels sold.
func (s *Server) LabelCount() int { return s.sales.Len() }

// cancel is DELETE .../label/{trackingNumber}: CANCELED before the Shipping
// Services File, a DISPUTED refund request after it, the documented 400s
// otherwise.
func (s *Server) cancel(api string) func(w http.ResponseWriter, r *http.Request, body []byte) {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Header.Get("X-Payment-Authorization-Token") == "" {
			writeError(w, http.StatusBadRequest, api, "Bad Request", "", "the X-Payment-Authorization-Token header is required", "X-Payment-Authorization-Token")
			return
		}
		if !s.validPaymentToken(r) {
			writeError(w, http.StatusUnauthorized, api, "Unauthorized", "", "The payment authorization token is invalid or has expired.", "X-Payment-Authorization-Token")
			return
		}
		tn := r.PathValue("trackingNumber")
		today := s.Now().UTC().Format(time.DateOnly)
		refusal := BodyLabelNotFound
		var answer map[string]any
		s.sales.With(tn, func(l *label) {
			switch {
			case l.international != (api == "/international-labels/v3"):
			case len(l.events) > 1:
				refusal = BodyRefundNotSubmitted // USPS has scanned the parcel: it was used.
			case l.disputedOn == today:
				refusal = BodyRefundSameDay
			case l.manifested && l.State != fakekit.Voided:
				l.disputedOn, l.State = today, fakekit.RefundRequested
				answer = map[string]any{"trackingNumber": tn, "status": "DISPUTED", "disputeId": strconv.FormatInt(103000+s.disputes.Add(1), 10)}
			default:
				l.State = fakekit.Voided
				answer = map[string]any{"trackingNumber": tn, "status": "CANCELED"}
			}
		})
		if answer == nil {
			writeBody(w, http.StatusBadRequest, strings.Replace(refusal, "/labels/v3", api, 1))
			return
		}
		fakekit.WriteJSON(w, http.StatusOK, answer)
	}
}

func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// withoutEmpty leaves out the empty strings of an answer's object: the
// Labels API's fields have a minimum length of 1, so USPS omits a name or a
// firm it was not given rather than answer "".
func withoutEmpty(m map[string]any) map[string]any {
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	return m
}
