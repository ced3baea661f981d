package ups

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// rateOption is the Rating API requestoption: every service UPS offers
// between the two addresses ("Shop"), with transit times.
const rateOption = "Shoptimeintransit"

// Codes from the Rating and Shipping APIs.
const (
	chargeTransportation = "01" // ShipmentCharge/Type
	packagingCustomer    = "02" // PackagingType/Code "Package" (customer supplied)
	billTypeDocument     = "02" // DeliveryTimeInformation/PackageBillType "Document only"
	billTypeNonDocument  = "03" // DeliveryTimeInformation/PackageBillType "Non-Document"
	// Package level DeliveryConfirmation/DCISType "2 - Delivery Confirmation
	// Signature Required"; valid for US/PR domestic packages.
	dcisPackageSignature = "2"
	// Shipment level DeliveryConfirmation/DCISType "1 - Delivery
	// Confirmation Signature Required"; used for every other lane.
	dcisShipmentSignature = "1"
)

// Rates quotes every UPS service between the shipment's addresses.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkShipment(s); err != nil {
		return nil, err
	}
	a, err := c.do(ctx, apiRequest{
		op:     opRate,
		method: http.MethodPost,
		path:   "/api/rating/" + ratingVersion + "/" + rateOption,
		body:   c.rateRequest(s),
	})
	if err != nil {
		return nil, err
	}
	if !a.ok() {
		return nil, c.failure(opRate, a)
	}
	rates, perr := parseRateResponse(a.body)
	if perr != nil {
		return nil, a.redact.Err(malformed(opRate, a.status, "%v", perr))
	}
	return carriers.DropZeroRates(c.cfg.Logger, carrierName, rates)
}

// checkShipment refuses what no UPS request could carry; these are shipd
// input errors, not carrier answers.
func checkShipment(s carriers.Shipment) error {
	if !(s.Parcel.WeightOz > 0) {
		return fmt.Errorf("ups: parcel weight must be greater than 0 (got %g oz): %w", s.Parcel.WeightOz, carriers.ErrInvalidShipment)
	}
	if carriers.CustomsRequired(s.From, s.To) && s.Customs == nil {
		return fmt.Errorf("ups: shipment from %s to %s: %w", carriers.NormalizeCountry(s.From.Country),
			carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	return nil
}

// Rating API request (Rating.yaml RATERequestWrapper).
type rateEnvelope struct {
	RateRequest rateRequest `json:"RateRequest"`
}

type rateRequest struct {
	Request  rateRequestHeader `json:"Request"`
	Shipment rateShipment      `json:"Shipment"`
}

type rateRequestHeader struct {
	RequestOption        string                `json:"RequestOption"`
	TransactionReference *transactionReference `json:"TransactionReference,omitempty"`
}

type party struct {
	// Name is left out when empty: Rating.yaml makes it optional but at
	// least 1 character when sent, and a quote need not name anyone (a
	// purchase always does: its requirements).
	Name          string `json:"Name,omitempty"`
	AttentionName string `json:"AttentionName,omitempty"`
	ShipperNumber string `json:"ShipperNumber,omitempty"`
	Phone         *phone `json:"Phone,omitempty"`
	EMailAddress  string `json:"EMailAddress,omitempty"`
	// TaxIdentificationNumber: the shipper's (exporter's) or the sold-to
	// party's (importer's) on an international shipment (customs.go).
	TaxIdentificationNumber string  `json:"TaxIdentificationNumber,omitempty"`
	Address                 address `json:"Address"`
}

type rateShipment struct {
	Shipper                 party                    `json:"Shipper"`
	ShipTo                  party                    `json:"ShipTo"`
	ShipFrom                party                    `json:"ShipFrom"`
	PaymentDetails          paymentDetails           `json:"PaymentDetails"`
	ShipmentRatingOptions   *ratingOptions           `json:"ShipmentRatingOptions,omitempty"`
	DocumentsOnlyIndicator  *indicator               `json:"DocumentsOnlyIndicator,omitempty"`
	NumOfPieces             string                   `json:"NumOfPieces"`
	ShipmentTotalWeight     *weight                  `json:"ShipmentTotalWeight,omitempty"`
	Package                 []ratePackage            `json:"Package"`
	ShipmentServiceOptions  *shipmentServiceOptions  `json:"ShipmentServiceOptions,omitempty"`
	InvoiceLineTotal        *money                   `json:"InvoiceLineTotal,omitempty"`
	DeliveryTimeInformation *deliveryTimeInformation `json:"DeliveryTimeInformation,omitempty"`
}

type paymentDetails struct {
	ShipmentCharge []shipmentCharge `json:"ShipmentCharge"`
}

type ratingOptions struct {
	NegotiatedRatesIndicator *indicator `json:"NegotiatedRatesIndicator,omitempty"`
}

type ratePackage struct {
	PackagingType         codeDesc               `json:"PackagingType"`
	Dimensions            *dimensions            `json:"Dimensions,omitempty"`
	PackageWeight         weight                 `json:"PackageWeight"`
	PackageServiceOptions *packageServiceOptions `json:"PackageServiceOptions,omitempty"`
}

type packageServiceOptions struct {
	DeliveryConfirmation *deliveryConfirmation `json:"DeliveryConfirmation,omitempty"`
}

type shipmentServiceOptions struct {
	DeliveryConfirmation *deliveryConfirmation `json:"DeliveryConfirmation,omitempty"`
	InternationalForms   *internationalForms   `json:"InternationalForms,omitempty"`
}

type deliveryTimeInformation struct {
	PackageBillType string  `json:"PackageBillType"`
	Pickup          *pickup `json:"Pickup,omitempty"`
}

type pickup struct {
	Date string `json:"Date"`
}

// rateRequest builds the Shop-with-transit-times request for a shipment.
func (c *Carrier) rateRequest(s carriers.Shipment) rateEnvelope {
	from, to := s.From, s.To
	fromCountry, toCountry := carriers.NormalizeCountry(from.Country), carriers.NormalizeCountry(to.Country)
	documents := s.Customs != nil && s.Customs.ContentsType == carriers.ContentsDocuments
	lbs := packageWeight(s.Parcel)

	sh := rateShipment{
		Shipper:  c.shipper(from),
		ShipTo:   recipient(to),
		ShipFrom: sender(from),
		PaymentDetails: paymentDetails{ShipmentCharge: []shipmentCharge{{
			Type: chargeTransportation, BillShipper: &billShipper{AccountNumber: c.cfg.AccountNumber},
		}}},
		// The account's negotiated rates, when it has any, are what UPS
		// will bill; without the indicator only list rates come back.
		ShipmentRatingOptions:  &ratingOptions{NegotiatedRatesIndicator: presence(true)},
		DocumentsOnlyIndicator: presence(documents),
		NumOfPieces:            "1",
		// Required for international time-in-transit; harmless elsewhere.
		ShipmentTotalWeight: &lbs,
		Package: []ratePackage{{
			PackagingType: codeDesc{Code: packagingCustomer, Description: "Package"},
			Dimensions:    packageDimensions(s.Parcel),
			PackageWeight: lbs,
		}},
		DeliveryTimeInformation: &deliveryTimeInformation{
			PackageBillType: billTypeNonDocument,
			Pickup:          &pickup{Date: c.cfg.Now().Format("20060102")},
		},
	}
	if documents {
		sh.DeliveryTimeInformation.PackageBillType = billTypeDocument
	}
	if s.Options.SignatureConfirmation {
		if domesticUS(fromCountry, toCountry) {
			sh.Package[0].PackageServiceOptions = &packageServiceOptions{
				DeliveryConfirmation: &deliveryConfirmation{DCISType: dcisPackageSignature},
			}
		} else {
			sh.ShipmentServiceOptions = &shipmentServiceOptions{
				DeliveryConfirmation: &deliveryConfirmation{DCISType: dcisShipmentSignature},
			}
		}
	}
	if fromCountry != toCountry && s.Customs != nil {
		// "Required for international shipments when using request option
		// ratetimeintransit or shoptimeintransit": the declared value of the
		// goods, in whole dollars.
		var total int64
		for _, it := range s.Customs.Items {
			total += it.ValueCents
		}
		sh.InvoiceLineTotal = &money{CurrencyCode: "USD", MonetaryValue: wholeDollarsUp(total)}
	}
	ratePieces(&sh, s) // pieces.go
	for _, a := range []*address{&sh.Shipper.Address, &sh.ShipTo.Address, &sh.ShipFrom.Address} {
		streetless(a)
	}
	return rateEnvelope{RateRequest: rateRequest{
		Request:  rateRequestHeader{RequestOption: rateOption},
		Shipment: sh,
	}}
}

// streetless gives the address of a quote without a street (a quick
// quote: a postal code and a country) an address line: Rating.yaml
// requires AddressLine of the Shipper and the ShipTo, of at least one
// character, yet documents it as needed only for the Roadie service (which
// shipd does not sell), its length "not validated": UPS rates by postal
// code and country. The line is the postal code, the one part of the
// address the rate depends on, so nothing is invented. A purchase always
// has its streets (shipping's requirements).
func streetless(a *address) {
	if len(a.AddressLine) == 0 && a.PostalCode != "" {
		a.AddressLine = []string{a.PostalCode}
	}
}

// domesticUS reports a US or Puerto Rico domestic lane, where UPS takes
// package level delivery confirmation and package level reference numbers.
func domesticUS(fromCountry, toCountry string) bool {
	return fromCountry == toCountry && (fromCountry == "US" || fromCountry == "PR")
}

func packageWeight(p carriers.Parcel) weight {
	// Pounds (LBS), one decimal, rounded up: see poundsFromOunces.
	return weight{UnitOfMeasurement: codeDesc{Code: "LBS", Description: "Pounds"}, Weight: poundsFromOunces(p.WeightOz)}
}

// packageDimensions are sent in inches, and only when all three are given:
// without them UPS rates on weight alone.
func packageDimensions(p carriers.Parcel) *dimensions {
	if p.LengthIn <= 0 || p.WidthIn <= 0 || p.HeightIn <= 0 {
		return nil
	}
	return &dimensions{
		UnitOfMeasurement: codeDesc{Code: "IN", Description: "Inches"},
		Length:            inches(p.LengthIn),
		Width:             inches(p.WidthIn),
		Height:            inches(p.HeightIn),
	}
}

func upsAddress(a carriers.Address) address {
	country := carriers.NormalizeCountry(a.Country)
	lines := []string{}
	for _, l := range []string{a.Street1, a.Street2} {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	postal := strings.TrimSpace(a.Zip)
	if country == "US" || country == "PR" || country == "CA" {
		// US ZIP+4 goes as 9 digits and Canadian codes as A#A#A#: the
		// PostalCode element takes at most 9 characters.
		postal = strings.NewReplacer("-", "", " ", "").Replace(postal)
	}
	return address{
		AddressLine:       lines,
		City:              strings.TrimSpace(a.City),
		StateProvinceCode: strings.ToUpper(strings.TrimSpace(a.State)),
		PostalCode:        strings.ToUpper(postal),
		CountryCode:       country,
	}
}

// partyOf fills the name fields the way UPS uses them: Name is the company
// (or the person when there is none), AttentionName the person. UPS
// requires AttentionName on international shipments and on the invoice's
// SoldTo, so it is always sent.
func partyOf(a carriers.Address) party {
	person := strings.TrimSpace(a.Name)
	p := party{Name: person, AttentionName: person, Address: upsAddress(a)}
	if company := strings.TrimSpace(a.Company); company != "" {
		p.Name = company
	}
	if n := digitsOnly(a.Phone, p.Address.CountryCode); n != "" {
		p.Phone = &phone{Number: n}
	}
	p.EMailAddress = strings.TrimSpace(a.Email)
	return p
}

func (c *Carrier) shipper(from carriers.Address) party {
	p := partyOf(from)
	p.ShipperNumber = c.cfg.AccountNumber
	return p
}

func sender(from carriers.Address) party { return partyOf(from) }

func recipient(to carriers.Address) party {
	p := partyOf(to)
	p.Address.Residential = presence(to.Residential)
	return p
}

// Rating API response (Rating.yaml RATEResponseWrapper).
type rateAnswer struct {
	RateResponse *struct {
		Response      responseStatus           `json:"Response"`
		RatedShipment oneOrMany[ratedShipment] `json:"RatedShipment"`
	} `json:"RateResponse"`
}

type ratedShipment struct {
	Service               codeDesc `json:"Service"`
	TotalCharges          *money   `json:"TotalCharges"`
	NegotiatedRateCharges *struct {
		TotalCharge *money `json:"TotalCharge"`
	} `json:"NegotiatedRateCharges"`
	GuaranteedDelivery *struct {
		BusinessDaysInTransit string `json:"BusinessDaysInTransit"`
		ScheduledDeliveryDate string `json:"ScheduledDeliveryDate"`
	} `json:"GuaranteedDelivery"`
	TimeInTransit *struct {
		ServiceSummary *struct {
			// GuaranteedIndicator is an empty tag: present means guaranteed.
			GuaranteedIndicator *json.RawMessage `json:"GuaranteedIndicator"`
			EstimatedArrival    *struct {
				BusinessDaysInTransit string `json:"BusinessDaysInTransit"`
				Arrival               *struct {
					Date string `json:"Date"` // YYYYMMDD
				} `json:"Arrival"`
			} `json:"EstimatedArrival"`
		} `json:"ServiceSummary"`
	} `json:"TimeInTransit"`
}

// deliveryDate is the service's date from the answer: the time-in-transit
// arrival date ("the most accurate delivery information available via the
// Rating API"), else the guarantee's scheduled date; guaranteed when UPS
// returned a guarantee for it. A date that does not parse is not given:
// like transit days, it is informative and must not fail the quote.
func deliveryDate(rs ratedShipment) (time.Time, bool) {
	var candidates []string
	guaranteed := rs.GuaranteedDelivery != nil
	if t := rs.TimeInTransit; t != nil && t.ServiceSummary != nil {
		guaranteed = guaranteed || t.ServiceSummary.GuaranteedIndicator != nil
		if a := t.ServiceSummary.EstimatedArrival; a != nil && a.Arrival != nil {
			candidates = append(candidates, a.Arrival.Date)
		}
	}
	if g := rs.GuaranteedDelivery; g != nil {
		candidates = append(candidates, g.ScheduledDeliveryDate)
	}
	for _, v := range candidates {
		if d, err := time.Parse("20060102", strings.TrimSpace(v)); err == nil && d.Year() >= 1970 {
			return d, guaranteed
		}
	}
	return time.Time{}, false
}

// parseRateResponse maps a Rating answer to rates. Services missing from
// the service table are skipped; a known service without a usable price
// makes the whole answer malformed, since quoting it wrong is worse than
// not quoting.
func parseRateResponse(body []byte) ([]carriers.Rate, error) {
	var a rateAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("rate answer is not the documented JSON: %w", err)
	}
	if a.RateResponse == nil {
		return nil, fmt.Errorf("rate answer has no RateResponse")
	}
	if code := a.RateResponse.Response.ResponseStatus.Code; code != "" && code != "1" {
		return nil, fmt.Errorf("rate answer has ResponseStatus %q, not 1 (success)", code)
	}
	rates := []carriers.Rate{}
	seen := map[string]bool{}
	for _, rs := range a.RateResponse.RatedShipment {
		svc, ok := serviceByCode(strings.TrimSpace(rs.Service.Code))
		if !ok || seen[svc.code] {
			continue
		}
		seen[svc.code] = true
		charge := rs.TotalCharges
		if rs.NegotiatedRateCharges != nil && rs.NegotiatedRateCharges.TotalCharge != nil &&
			strings.TrimSpace(rs.NegotiatedRateCharges.TotalCharge.MonetaryValue) != "" {
			// The account's own price: what UPS will actually bill.
			charge = rs.NegotiatedRateCharges.TotalCharge
		}
		if charge == nil {
			return nil, fmt.Errorf("service %s has no TotalCharges", svc.code)
		}
		cents, err := parseCents(charge.MonetaryValue)
		if err != nil {
			return nil, fmt.Errorf("service %s: TotalCharges: %w", svc.code, err)
		}
		currency := strings.ToUpper(strings.TrimSpace(charge.CurrencyCode))
		if !isCurrency(currency) {
			return nil, fmt.Errorf("service %s: CurrencyCode %q is not a currency code", svc.code, charge.CurrencyCode)
		}
		rates = append(rates, carriers.Rate{
			Carrier:          carrierName,
			Service:          svc.name,
			ServiceCategory:  svc.category,
			CarrierRateCents: cents,
			Currency:         currency,
			EstimatedDays:    transitDays(rs, svc),
		})
		last := &rates[len(rates)-1]
		last.EstimatedDeliveryDate, last.Guaranteed = deliveryDate(rs)
	}
	return rates, nil
}

// transitDays prefers the time-in-transit estimate, then the guarantee,
// then the table's typical days. A value that is not a positive number is
// treated as not given: transit times are informative, the price is not.
func transitDays(rs ratedShipment, svc service) int {
	var candidates []string
	if t := rs.TimeInTransit; t != nil && t.ServiceSummary != nil && t.ServiceSummary.EstimatedArrival != nil {
		candidates = append(candidates, t.ServiceSummary.EstimatedArrival.BusinessDaysInTransit)
	}
	if g := rs.GuaranteedDelivery; g != nil {
		candidates = append(candidates, g.BusinessDaysInTransit)
	}
	for _, v := range candidates {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 && n < 100 {
			return n
		}
	}
	return svc.typicalDays
}

func isCurrency(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
