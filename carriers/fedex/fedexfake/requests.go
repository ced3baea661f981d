package fedexfake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Request bodies, as the documented schemas define them (the subset of
// fields a shipping platform uses). Pointers tell a missing field from a
// zero one; numbers are float64 or int so that a string where the schema
// says number fails to decode.

type accountNumber struct {
	Value string `json:"value"`
}

type weight struct {
	Units *string  `json:"units"`
	Value *float64 `json:"value"`
}

type dimensions struct {
	Length *int    `json:"length"`
	Width  *int    `json:"width"`
	Height *int    `json:"height"`
	Units  *string `json:"units"`
}

type money struct {
	Amount   *float64 `json:"amount"`
	Currency string   `json:"currency"`
}

type packageSpecialServices struct {
	SpecialServiceTypes []string `json:"specialServiceTypes"`
	SignatureOptionType string   `json:"signatureOptionType"`
}

type customerReference struct {
	CustomerReferenceType string `json:"customerReferenceType"`
	Value                 string `json:"value"`
}

type packageLineItem struct {
	SequenceNumber         *int                    `json:"sequenceNumber"`
	GroupPackageCount      *int                    `json:"groupPackageCount"`
	Weight                 *weight                 `json:"weight"`
	Dimensions             *dimensions             `json:"dimensions"`
	DeclaredValue          *money                  `json:"declaredValue"`
	PackageSpecialServices *packageSpecialServices `json:"packageSpecialServices"`
	CustomerReferences     []customerReference     `json:"customerReferences"`
}

type commodity struct {
	Description          string  `json:"description"`
	Name                 string  `json:"name"`
	CountryOfManufacture string  `json:"countryOfManufacture"`
	Quantity             *int    `json:"quantity"`
	QuantityUnits        string  `json:"quantityUnits"`
	NumberOfPieces       *int    `json:"numberOfPieces"`
	Weight               *weight `json:"weight"`
	CustomsValue         *money  `json:"customsValue"`
	UnitPrice            *money  `json:"unitPrice"`
	HarmonizedCode       string  `json:"harmonizedCode"`
	PartNumber           string  `json:"partNumber"`
}

type commercialInvoice struct {
	ShipmentPurpose    string              `json:"shipmentPurpose"`
	TermsOfSale        string              `json:"termsOfSale"`
	CustomerReferences []customerReference `json:"customerReferences"`
}

type payment struct {
	PaymentType string `json:"paymentType"`
}

type rateAddress struct {
	City                string `json:"city"`
	StateOrProvinceCode string `json:"stateOrProvinceCode"`
	PostalCode          string `json:"postalCode"`
	CountryCode         string `json:"countryCode"`
	Residential         *bool  `json:"residential"`
}

type rateParty struct {
	Address *rateAddress `json:"address"`
}

// rateRequest is Full_Schema_Quote_Rate (rate/v1).
// rateCustoms is the Rate API's customsClearanceDetail.
type rateCustoms struct {
	CommercialInvoice *commercialInvoice `json:"commercialInvoice"`
	DutiesPayment     *payment           `json:"dutiesPayment"`
	Commodities       []commodity        `json:"commodities"`
}

type rateRequest struct {
	AccountNumber                *accountNumber `json:"accountNumber"`
	RateRequestControlParameters *struct {
		ReturnTransitTimes          *bool  `json:"returnTransitTimes"`
		ServicesNeededOnRateFailure *bool  `json:"servicesNeededOnRateFailure"`
		RateSortOrder               string `json:"rateSortOrder"`
	} `json:"rateRequestControlParameters"`
	RequestedShipment *struct {
		Shipper                   *rateParty        `json:"shipper"`
		Recipient                 *rateParty        `json:"recipient"`
		ServiceType               string            `json:"serviceType"`
		PreferredCurrency         string            `json:"preferredCurrency"`
		RateRequestType           []string          `json:"rateRequestType"`
		ShipDateStamp             string            `json:"shipDateStamp"`
		PickupType                string            `json:"pickupType"`
		PackagingType             string            `json:"packagingType"`
		TotalPackageCount         *int              `json:"totalPackageCount"`
		TotalWeight               *float64          `json:"totalWeight"`
		DocumentShipment          *bool             `json:"documentShipment"`
		RequestedPackageLineItems []packageLineItem `json:"requestedPackageLineItems"`
		CustomsClearanceDetail    *rateCustoms      `json:"customsClearanceDetail"`
		// EdtRequestType is not in the published schema's RequestedShipment
		// but is in its international example ("edtRequestType": "NONE"):
		// ALL asks for estimated duties and taxes.
		EdtRequestType string `json:"edtRequestType"`
	} `json:"requestedShipment"`
	CarrierCodes []string `json:"carrierCodes"`
}

type shipAddress struct {
	StreetLines         []string `json:"streetLines"`
	City                string   `json:"city"`
	StateOrProvinceCode string   `json:"stateOrProvinceCode"`
	PostalCode          string   `json:"postalCode"`
	CountryCode         string   `json:"countryCode"`
	Residential         *bool    `json:"residential"`
}

type contact struct {
	PersonName     string `json:"personName"`
	CompanyName    string `json:"companyName"`
	PhoneNumber    string `json:"phoneNumber"`
	PhoneExtension string `json:"phoneExtension"`
	EmailAddress   string `json:"emailAddress"`
}

type shipParty struct {
	Address *shipAddress `json:"address"`
	Contact *contact     `json:"contact"`
	Tins    []tin        `json:"tins"`
}

// shipRequest is Full_Schema_Ship (ship/v1).
type shipRequest struct {
	MergeLabelDocOption  string         `json:"mergeLabelDocOption"`
	LabelResponseOptions string         `json:"labelResponseOptions"`
	ShipAction           string         `json:"shipAction"`
	AccountNumber        *accountNumber `json:"accountNumber"`
	RequestedShipment    *struct {
		ShipDatestamp          string      `json:"shipDatestamp"`
		Shipper                *shipParty  `json:"shipper"`
		Recipients             []shipParty `json:"recipients"`
		PickupType             string      `json:"pickupType"`
		ServiceType            string      `json:"serviceType"`
		PackagingType          string      `json:"packagingType"`
		TotalWeight            *float64    `json:"totalWeight"`
		BlockInsightVisibility *bool       `json:"blockInsightVisibility"`
		ShippingChargesPayment *payment    `json:"shippingChargesPayment"`
		LabelSpecification     *struct {
			LabelFormatType string `json:"labelFormatType"`
			ImageType       string `json:"imageType"`
			LabelStockType  string `json:"labelStockType"`
		} `json:"labelSpecification"`
		CustomsClearanceDetail *struct {
			CommercialInvoice *commercialInvoice `json:"commercialInvoice"`
			DutiesPayment     *payment           `json:"dutiesPayment"`
			IsDocumentOnly    *bool              `json:"isDocumentOnly"`
			TotalCustomsValue *money             `json:"totalCustomsValue"`
			Commodities       []commodity        `json:"commodities"`
			ExportDetail      *struct {
				ExportComplianceStatement string `json:"exportComplianceStatement"`
			} `json:"exportDetail"`
		} `json:"customsClearanceDetail"`
		ShippingDocumentSpecification *shippingDocumentSpecification `json:"shippingDocumentSpecification"`
		RateRequestType               []string                       `json:"rateRequestType"`
		TotalPackageCount             *int                           `json:"totalPackageCount"`
		RequestedPackageLineItems     []packageLineItem              `json:"requestedPackageLineItems"`
		ShipmentSpecialServices       *struct {
			SpecialServiceTypes  []string `json:"specialServiceTypes"`
			ReturnShipmentDetail *struct {
				ReturnType string `json:"returnType"`
			} `json:"returnShipmentDetail"`
			EtdDetail *struct {
				RequestedDocumentTypes []string `json:"requestedDocumentTypes"`
			} `json:"etdDetail"`
		} `json:"shipmentSpecialServices"`
	} `json:"requestedShipment"`
}

// cancelRequest is Full_Schema_Cancel_Shipment (ship/v1).
type cancelRequest struct {
	AccountNumber     *accountNumber `json:"accountNumber"`
	EmailShipment     *bool          `json:"emailShipment"`
	SenderCountryCode string         `json:"senderCountryCode"`
	DeletionControl   string         `json:"deletionControl"`
	TrackingNumber    string         `json:"trackingNumber"`
}

// trackRequest is Full_Schema_Tracking_Numbers (track/v1).
type trackRequest struct {
	IncludeDetailedScans *bool               `json:"includeDetailedScans"`
	TrackingInfo         []trackingNumberRef `json:"trackingInfo"`
}

// trackingNumberRef names one shipment to track, as both Track requests
// (by tracking numbers, by associated shipments) take it.
type trackingNumberRef struct {
	ShipDateBegin      string `json:"shipDateBegin"`
	ShipDateEnd        string `json:"shipDateEnd"`
	TrackingNumberInfo *struct {
		TrackingNumber         string `json:"trackingNumber"`
		CarrierCode            string `json:"carrierCode"`
		TrackingNumberUniqueID string `json:"trackingNumberUniqueId"`
	} `json:"trackingNumberInfo"`
}

// Documented enumerations.
var (
	pickupTypes      = []string{"CONTACT_FEDEX_TO_SCHEDULE", "DROPOFF_AT_FEDEX_LOCATION", "USE_SCHEDULED_PICKUP"}
	packagingTypes   = []string{"YOUR_PACKAGING", "FEDEX_ENVELOPE", "FEDEX_BOX", "FEDEX_EXTRA_SMALL_BOX", "FEDEX_SMALL_BOX", "FEDEX_MEDIUM_BOX", "FEDEX_LARGE_BOX", "FEDEX_EXTRA_LARGE_BOX", "FEDEX_10KG_BOX", "FEDEX_25KG_BOX", "FEDEX_PAK", "FEDEX_TUBE"}
	rateRequestTypes = []string{"LIST", "INCENTIVE", "ACCOUNT", "PREFERRED"}
	weightUnits      = []string{"LB", "KG"}
	dimUnits         = []string{"IN", "CM"}
	signatureOptions = []string{"SERVICE_DEFAULT", "NO_SIGNATURE_REQUIRED", "INDIRECT", "DIRECT", "ADULT"}
	paymentTypes     = []string{"SENDER", "RECIPIENT", "THIRD_PARTY", "COLLECT"}
	imageTypes       = []string{"ZPLII", "EPL2", "PDF", "PNG"}
	labelStockTypes  = []string{"PAPER_4X6", "STOCK_4X675", "PAPER_4X675", "PAPER_4X8", "PAPER_4X9", "PAPER_7X475", "PAPER_85X11_BOTTOM_HALF_LABEL", "PAPER_85X11_TOP_HALF_LABEL", "PAPER_LETTER", "STOCK_4X675_LEADING_DOC_TAB", "STOCK_4X8", "STOCK_4X9_LEADING_DOC_TAB", "STOCK_4X6", "STOCK_4X675_TRAILING_DOC_TAB", "STOCK_4X9_TRAILING_DOC_TAB", "STOCK_4X9", "STOCK_4X85_TRAILING_DOC_TAB", "STOCK_4X105_TRAILING_DOC_TAB"}
	// paperStocks are the stocks the documented Label Stock Types allow for PDF and PNG.
	paperStocks        = []string{"PAPER_4X6", "PAPER_4X675", "PAPER_4X8", "PAPER_4X9", "PAPER_7X475", "PAPER_85X11_BOTTOM_HALF_LABEL", "PAPER_85X11_TOP_HALF_LABEL", "PAPER_LETTER"}
	customerRefTypes   = []string{"CUSTOMER_REFERENCE", "DEPARTMENT_NUMBER", "INVOICE_NUMBER", "P_O_NUMBER", "INTRACOUNTRY_REGULATORY_REFERENCE", "RMA_ASSOCIATION"}
	shipmentPurposes   = []string{"GIFT", "NOT_SOLD", "PERSONAL_EFFECTS", "REPAIR_AND_RETURN", "SAMPLE", "SOLD"}
	labelResponseOpts  = []string{"URL_ONLY", "LABEL"}
	countryCodePattern = regexp.MustCompile(`^[A-Z]{2}$`)
	datePattern        = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

// problems collects what is wrong with a request, named by JSON path.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p *problems) required(path, v string) {
	if strings.TrimSpace(v) == "" {
		p.add("%s is required", path)
	}
}

func (p *problems) enum(path, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		p.add("%s %q is not one of %s", path, v, strings.Join(allowed, ", "))
	}
}

func (p *problems) account(a *accountNumber) {
	if a == nil || a.Value == "" {
		p.add("accountNumber.value is required")
	}
}

func (p *problems) date(path, v string) {
	if !datePattern.MatchString(v) {
		p.add("%s %q is not YYYY-MM-DD", path, v)
		return
	}
	if _, err := time.Parse("2006-01-02", v); err != nil {
		p.add("%s %q is not a date", path, v)
	}
}

// country checks the country and, where FedEx requires them (US, CA), the
// state and postal code.
func (p *problems) country(path, country, state, postal string) {
	if !countryCodePattern.MatchString(country) {
		p.add("%s.countryCode %q is not a two-letter code", path, country)
	}
	if country == "US" || country == "CA" {
		p.required(path+".stateOrProvinceCode", state)
		p.required(path+".postalCode", postal)
	}
}

func (p *problems) weight(path string, w *weight, maxLB float64) {
	if w == nil || w.Units == nil || w.Value == nil {
		p.add("%s.units and %s.value are required", path, path)
		return
	}
	p.enum(path+".units", *w.Units, weightUnits)
	if *w.Value <= 0 {
		p.add("%s.value must be greater than 0", path)
	}
	if maxLB > 0 && *w.Units == "LB" && *w.Value > maxLB {
		p.add("%s.value %.1f LB is over the %g LB package limit", path, *w.Value, maxLB)
	}
}

// lineItems checks package line items: the weight (150 LB is FedEx's
// package limit), whole-number dimensions given all three or none, the
// signature option, customer references.
func (p *problems) lineItems(path string, items []packageLineItem) {
	if len(items) == 0 {
		p.add("%s must have at least one package", path)
	}
	for i, it := range items {
		ip := fmt.Sprintf("%s[%d]", path, i)
		p.weight(ip+".weight", it.Weight, 150)
		if d := it.Dimensions; d != nil {
			if d.Length == nil || d.Width == nil || d.Height == nil || d.Units == nil {
				p.add("%s.dimensions needs length, width, height and units", ip)
			} else {
				p.enum(ip+".dimensions.units", *d.Units, dimUnits)
				for _, v := range []int{*d.Length, *d.Width, *d.Height} {
					if v < 1 || v > 999 {
						p.add("%s.dimensions must be whole numbers from 1 to 999", ip)
						break
					}
				}
			}
		}
		if ss := it.PackageSpecialServices; ss != nil {
			if ss.SignatureOptionType != "" {
				p.enum(ip+".packageSpecialServices.signatureOptionType", ss.SignatureOptionType, signatureOptions)
				if !slices.Contains(ss.SpecialServiceTypes, "SIGNATURE_OPTION") {
					p.add("%s.packageSpecialServices.specialServiceTypes must include SIGNATURE_OPTION with a signatureOptionType", ip)
				}
			}
		}
		for j, ref := range it.CustomerReferences {
			rp := fmt.Sprintf("%s.customerReferences[%d]", ip, j)
			p.enum(rp+".customerReferenceType", ref.CustomerReferenceType, customerRefTypes)
			p.required(rp+".value", ref.Value)
			if ref.CustomerReferenceType == "CUSTOMER_REFERENCE" && len(ref.Value) > 30 {
				p.add("%s.value is longer than 30 characters", rp)
			}
		}
	}
}

func (p *problems) commodities(path string, cs []commodity) {
	if len(cs) == 0 {
		p.add("%s must have at least one commodity", path)
	}
	for i, c := range cs {
		cp := fmt.Sprintf("%s[%d]", path, i)
		p.required(cp+".description", c.Description)
		if !countryCodePattern.MatchString(c.CountryOfManufacture) {
			p.add("%s.countryOfManufacture %q is not a two-letter code", cp, c.CountryOfManufacture)
		}
		if c.Quantity == nil || *c.Quantity < 1 {
			p.add("%s.quantity must be at least 1", cp)
		}
		p.weight(cp+".weight", c.Weight, 0)
		if c.CustomsValue == nil || c.CustomsValue.Amount == nil || *c.CustomsValue.Amount < 0 || c.CustomsValue.Currency == "" {
			p.add("%s.customsValue needs an amount and a currency", cp)
		}
	}
}

// phone checks a contact phone: 10 to 15 digits; for US and CA exactly 10,
// with an optional leading 1.
func (p *problems) phone(path, phone, country string) {
	if phone == "" {
		p.add("%s is required", path)
		return
	}
	for _, r := range phone {
		if r < '0' || r > '9' {
			p.add("%s %q must be digits only", path, phone)
			return
		}
	}
	n := len(phone)
	switch {
	case country == "US" || country == "CA":
		if !(n == 10 || n == 11 && phone[0] == '1') {
			p.add("%s must have 10 digits for %s", path, country)
		}
	case n < 10 || n > 15:
		p.add("%s must have 10 to 15 digits", path)
	}
}

func (p *problems) shipParty(path string, sp *shipParty) {
	if sp == nil || sp.Address == nil || sp.Contact == nil {
		p.add("%s needs an address and a contact", path)
		return
	}
	a := sp.Address
	if len(a.StreetLines) == 0 || len(a.StreetLines) > 3 {
		p.add("%s.address.streetLines needs 1 to 3 lines", path)
	}
	for i, l := range a.StreetLines {
		if strings.TrimSpace(l) == "" || len(l) > 35 {
			p.add("%s.address.streetLines[%d] must be 1 to 35 characters", path, i)
		}
	}
	p.required(path+".address.city", a.City)
	p.country(path+".address", a.CountryCode, a.StateOrProvinceCode, a.PostalCode)
	if sp.Contact.PersonName == "" && sp.Contact.CompanyName == "" {
		p.add("%s.contact needs a personName or a companyName", path)
	}
	p.phone(path+".contact.phoneNumber", sp.Contact.PhoneNumber, a.CountryCode)
}
