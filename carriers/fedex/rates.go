package fedex

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// ratePath is the Rates and Transit Times API v1 endpoint.
const ratePath = "/rate/v1/rates/quotes"

// rateRequest is the Rate API request body (Full_Schema_Quote_Rate).
type rateRequest struct {
	AccountNumber                accountNumber         `json:"accountNumber"`
	RateRequestControlParameters rateControlParams     `json:"rateRequestControlParameters"`
	RequestedShipment            rateRequestedShipment `json:"requestedShipment"`
}

type rateControlParams struct {
	// ReturnTransitTimes asks for the transit time of each service.
	ReturnTransitTimes bool `json:"returnTransitTimes"`
}

type rateRequestedShipment struct {
	Shipper                   rateParty         `json:"shipper"`
	Recipient                 rateParty         `json:"recipient"`
	ShipDateStamp             string            `json:"shipDateStamp"`
	PickupType                string            `json:"pickupType"`
	PackagingType             string            `json:"packagingType"`
	RateRequestType           []string          `json:"rateRequestType"`
	TotalPackageCount         int               `json:"totalPackageCount"`
	TotalWeight               json.Number       `json:"totalWeight,omitempty"`
	RequestedPackageLineItems []packageLineItem `json:"requestedPackageLineItems"`
	CustomsClearanceDetail    *rateCustoms      `json:"customsClearanceDetail,omitempty"`
	// EdtRequestType ALL asks for the estimated duties and taxes
	// (totalDutiesAndTaxes), as the Rate API's documented international
	// example does; sent for DDP shipments only.
	EdtRequestType string `json:"edtRequestType,omitempty"`
}

// rateParty is where a rated shipment leaves from or goes to: the Rate API
// prices by place, so it takes no street or contact.
type rateParty struct {
	Address rateAddress `json:"address"`
}

type rateAddress struct {
	City                string `json:"city,omitempty"`
	StateOrProvinceCode string `json:"stateOrProvinceCode,omitempty"`
	PostalCode          string `json:"postalCode"`
	CountryCode         string `json:"countryCode"`
	Residential         bool   `json:"residential"`
}

// rateCustoms is the part of the customs detail the Rate API takes.
type rateCustoms struct {
	CommercialInvoice commercialInvoice `json:"commercialInvoice"`
	// DutiesPayment SENDER prices a DDP shipment, as it is shipped.
	DutiesPayment *payment    `json:"dutiesPayment,omitempty"`
	Commodities   []commodity `json:"commodities"`
}

func toRateAddress(a carriers.Address) rateAddress {
	return rateAddress{
		City:                strings.TrimSpace(a.City),
		StateOrProvinceCode: strings.ToUpper(strings.TrimSpace(a.State)),
		PostalCode:          strings.TrimSpace(a.Zip),
		CountryCode:         carriers.NormalizeCountry(a.Country),
		Residential:         a.Residential,
	}
}

// checkShipment refuses what FedEx could not rate or ship at all.
func checkShipment(s carriers.Shipment) error {
	if s.Parcel.WeightOz <= 0 {
		return fmt.Errorf("fedex: parcel weight must be greater than 0 (got %g oz): %w", s.Parcel.WeightOz, carriers.ErrInvalidShipment)
	}
	if carriers.CustomsRequired(s.From, s.To) && s.Customs == nil {
		return fmt.Errorf("fedex: shipment from %s to %s: %w",
			carriers.NormalizeCountry(s.From.Country), carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	return nil
}

// buildRateRequest turns a shipd shipment into a Rate API request. Weight
// goes in pounds (LB, see poundsValue), dimensions in whole inches (IN).
func (c *Carrier) buildRateRequest(s carriers.Shipment) rateRequest {
	rs := rateRequestedShipment{
		Shipper:       rateParty{Address: toRateAddress(s.From)},
		Recipient:     rateParty{Address: toRateAddress(s.To)},
		ShipDateStamp: c.shipDate(),
		PickupType:    pickupType,
		PackagingType: packagingType,
		// ACCOUNT: the account's own negotiated rates, what the label costs.
		RateRequestType:           []string{"ACCOUNT"},
		TotalPackageCount:         1,
		RequestedPackageLineItems: []packageLineItem{parcelLineItem(s)},
	}
	if items := pieceItems(rs.RequestedPackageLineItems[0], s); items != nil { // pieces.go
		rs.RequestedPackageLineItems, rs.TotalPackageCount = items, len(items)
	}
	if carriers.IsInternational(s.From, s.To) {
		// totalWeight "only applies to International shipments".
		rs.TotalWeight = piecesWeight(s)
		if cc := customsFor(s); cc != nil {
			rs.CustomsClearanceDetail = &rateCustoms{CommercialInvoice: cc.CommercialInvoice, Commodities: cc.Commodities}
			if landedCost(s) {
				rs.CustomsClearanceDetail.DutiesPayment = &payment{PaymentType: "SENDER"}
				rs.EdtRequestType = "ALL"
			}
		}
	}
	return rateRequest{
		AccountNumber:                accountNumber{Value: c.account},
		RateRequestControlParameters: rateControlParams{ReturnTransitTimes: true},
		RequestedShipment:            rs,
	}
}

// Rates quotes every FedEx service the account can use for the shipment.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := checkShipment(s); err != nil {
		return nil, err
	}
	body, err := c.do(ctx, request{op: opRate, method: http.MethodPost, path: ratePath, body: c.buildRateRequest(s)})
	if err != nil {
		return nil, c.scrub(err)
	}
	rates, err := parseRateResponse(body, landedCost(s))
	if err != nil {
		return nil, c.scrub(err)
	}
	return carriers.DropZeroRates(c.log, Name, rates)
}

// rateResponse is the part of the Rate API answer (RatcResponseVO) shipd
// reads. Transit information is decoded leniently (lenientString): it is
// optional, and a field of an unexpected type there only loses the
// estimate, while the service and the charge must be exactly right.
type rateResponse struct {
	Output *struct {
		RateReplyDetails []rateReplyDetail `json:"rateReplyDetails"`
	} `json:"output"`
}

type rateReplyDetail struct {
	ServiceType          string                `json:"serviceType"`
	RatedShipmentDetails []ratedShipmentDetail `json:"ratedShipmentDetails"`
	OperationalDetail    struct {
		TransitTime  lenientString `json:"transitTime"`
		DeliveryDate lenientString `json:"deliveryDate"`
		CommitDate   lenientString `json:"commitDate"`
		// IneligibleForMoneyBackGuarantee: FedEx does not guarantee the date.
		IneligibleForMoneyBackGuarantee bool `json:"ineligibleForMoneyBackGuarantee"`
	} `json:"operationalDetail"`
	Commit struct {
		DateDetail struct {
			DayFormat    lenientString `json:"dayFormat"`
			DayCxsFormat lenientString `json:"dayCxsFormat"`
		} `json:"dateDetail"`
		DaysInTransit lenientString `json:"daysInTransit"`
		TransitDays   struct {
			MinimumTransitTime lenientString `json:"minimumTransitTime"`
			MaximumTransitTime lenientString `json:"maximumTransitTime"`
		} `json:"transitDays"`
	} `json:"commit"`
}

type ratedShipmentDetail struct {
	RateType       string          `json:"rateType"`
	TotalNetCharge carriers.Amount `json:"totalNetCharge"`
	// TotalDutiesAndTaxes is the estimate of duties and taxes, answered to
	// edtRequestType ALL (absent when FedEx could not estimate them, e.g.
	// without harmonized codes: alert EDT.DETAILS.MISSING).
	TotalDutiesAndTaxes moneyAmount `json:"totalDutiesAndTaxes"`
	Currency            string      `json:"currency"`
	ShipmentRateDetail  struct {
		Currency string `json:"currency"`
	} `json:"shipmentRateDetail"`
}

// lenientString is a string field that decodes to "" when it holds anything else.
type lenientString string

func (l *lenientString) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = lenientString(s)
	} else {
		*l = ""
	}
	return nil
}

// UnmarshalJSON decodes optional objects leniently too: operationalDetail
// and commit hold many loosely typed fields (the documented example sends
// strings where the schema says arrays), none of which shipd needs.
func (r *rateReplyDetail) UnmarshalJSON(b []byte) error {
	var strict struct {
		ServiceType          string                `json:"serviceType"`
		RatedShipmentDetails []ratedShipmentDetail `json:"ratedShipmentDetails"`
		OperationalDetail    json.RawMessage       `json:"operationalDetail"`
		Commit               json.RawMessage       `json:"commit"`
	}
	if err := json.Unmarshal(b, &strict); err != nil {
		return err
	}
	r.ServiceType, r.RatedShipmentDetails = strict.ServiceType, strict.RatedShipmentDetails
	_ = json.Unmarshal(strict.OperationalDetail, &r.OperationalDetail)
	_ = json.Unmarshal(strict.Commit, &r.Commit)
	return nil
}

// parseRateResponse maps every known service of a Rate API answer to a
// carriers.Rate. Unknown service codes are skipped; a known service without
// a usable charge fails the whole answer (ErrFailed), since a quote that
// silently lost a service or a cent is worse than none. With landed cost
// (a DDP shipment) a service's estimated duties and taxes are its
// DutiesCents and part of its price; a service without them has none, and
// the caller leaves it out of a DDP quote.
func parseRateResponse(body []byte, landed bool) ([]carriers.Rate, error) {
	var r rateResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, malformed(opRate, "the rate answer does not parse: %v", err)
	}
	if r.Output == nil {
		return nil, malformed(opRate, "the rate answer has no output")
	}
	rates := []carriers.Rate{}
	for _, d := range r.Output.RateReplyDetails {
		svc, ok := serviceByCode(d.ServiceType)
		if !ok {
			continue
		}
		detail, ok := accountRate(d.RatedShipmentDetails)
		if !ok {
			return nil, malformed(opRate, "service %s has no rated shipment detail", d.ServiceType)
		}
		cents, err := detail.TotalNetCharge.Minor(2)
		if err != nil {
			return nil, malformed(opRate, "service %s: totalNetCharge: %v", d.ServiceType, err)
		}
		currency := strings.ToUpper(strings.TrimSpace(detail.Currency))
		if currency == "" {
			currency = strings.ToUpper(strings.TrimSpace(detail.ShipmentRateDetail.Currency))
		}
		if len(currency) != 3 {
			return nil, malformed(opRate, "service %s has no currency", d.ServiceType)
		}
		var duties int64
		if t := carriers.Amount(detail.TotalDutiesAndTaxes); landed && t != "" {
			if duties, err = t.Minor(2); err != nil {
				return nil, malformed(opRate, "service %s: totalDutiesAndTaxes: %v", d.ServiceType, err)
			}
			cents += duties
		}
		days := svc.typicalDays
		if n, ok := d.transitDays(); ok {
			days = n
		}
		date, dated := d.deliveryDate()
		rates = append(rates, carriers.Rate{
			Carrier:               Name,
			Service:               svc.name,
			ServiceCategory:       svc.category,
			CarrierRateCents:      cents,
			Currency:              currency,
			EstimatedDays:         days,
			EstimatedDeliveryDate: date,
			// FedEx's money-back guarantee covers its Express services'
			// committed dates, not Ground's estimates.
			Guaranteed: dated && (svc.category == carriers.CategoryExpress || svc.category == carriers.CategoryOvernight) &&
				!d.OperationalDetail.IneligibleForMoneyBackGuarantee,
			DutiesCents: duties,
		})
	}
	return rates, nil
}

// accountRate picks the account's own rate (what the label will cost) among
// the rate types FedEx returns, else the first one given.
func accountRate(ds []ratedShipmentDetail) (ratedShipmentDetail, bool) {
	for _, d := range ds {
		if d.RateType == "ACCOUNT" {
			return d, true
		}
	}
	if len(ds) == 0 {
		return ratedShipmentDetail{}, false
	}
	return ds[0], true
}

// deliveryDate is the service's committed date from the answer, when given:
// commit.dateDetail (dayFormat, then dayCxsFormat, both "2020-07-16T10:30:00"),
// else operationalDetail's deliveryDate or commitDate. Like transit days, a
// date that does not parse only loses the date.
func (d rateReplyDetail) deliveryDate() (time.Time, bool) {
	for _, v := range []lenientString{
		d.Commit.DateDetail.DayFormat, d.Commit.DateDetail.DayCxsFormat,
		d.OperationalDetail.DeliveryDate, d.OperationalDetail.CommitDate,
	} {
		text := strings.TrimSpace(string(v))
		if len(text) < len(time.DateOnly) {
			continue
		}
		if t, err := time.Parse(time.DateOnly, text[:len(time.DateOnly)]); err == nil && t.Year() >= 1970 {
			return t, true
		}
	}
	return time.Time{}, false
}

// transitDays is the service's transit time from the answer, when given:
// operationalDetail.transitTime (Ground), else commit.daysInTransit, else
// the slower end of commit.transitDays.
func (d rateReplyDetail) transitDays() (int, bool) {
	for _, enum := range []lenientString{
		d.OperationalDetail.TransitTime,
		d.Commit.DaysInTransit,
		d.Commit.TransitDays.MaximumTransitTime,
		d.Commit.TransitDays.MinimumTransitTime,
	} {
		if n, ok := transitDays(string(enum)); ok {
			return n, true
		}
	}
	return 0, false
}

// landedCost reports whether a shipment's rates must include the duties and
// taxes: goods crossing a border DDP, whose duties the sender pays.
func landedCost(s carriers.Shipment) bool {
	c := s.Customs
	return c != nil && c.DDP() && c.ContentsType != carriers.ContentsDocuments && carriers.IsInternational(s.From, s.To)
}
