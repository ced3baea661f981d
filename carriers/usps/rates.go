package usps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

const optionsPath = "/shipments/v3/options/search"

// noDimensionIn stands in for a dimension the caller did not give. Shipping
// Options and Labels require all three; USPS prices by dimensions only when
// one exceeds 12 inches, so one inch never changes the price of a parcel
// whose size is unknown.
const noDimensionIn = 1

// optionsRequest is a Shipping Options 3.0 request, domestic
// (DomesticOptionsRequest) or international (InternationalOptionsRequest).
// Both schemas forbid unknown properties, so fields of the other kind are
// omitted when empty. USPS charges no residential surcharge and has no field
// for it, so Address.Residential is not sent; customs play no part in the
// price either.
type optionsRequest struct {
	PricingOptions               []pricingOption `json:"pricingOptions"`
	OriginZIPCode                string          `json:"originZIPCode"`
	DestinationZIPCode           string          `json:"destinationZIPCode,omitempty"`
	DestinationEntryFacilityType string          `json:"destinationEntryFacilityType,omitempty"`
	ForeignPostalCode            string          `json:"foreignPostalCode,omitempty"`
	DestinationCountryCode       string          `json:"destinationCountryCode,omitempty"`
	PackageDescription           optionsPackage  `json:"packageDescription"`
}

// pricingOption asks for the prices of the EPS account's contract, which is
// what the label will cost; without a contract USPS answers the published
// commercial price.
type pricingOption struct {
	PriceType      string         `json:"priceType"`
	PaymentAccount paymentAccount `json:"paymentAccount"`
}

type paymentAccount struct {
	AccountType   string `json:"accountType"`
	AccountNumber string `json:"accountNumber"`
	// CRID selects contract service standards; domestic only.
	CRID string `json:"CRID,omitempty"`
}

// optionsPackage: weight in pounds (the schema's only unit), dimensions in
// inches.
type optionsPackage struct {
	Weight        float64 `json:"weight"`
	Length        float64 `json:"length"`
	Width         float64 `json:"width"`
	Height        float64 `json:"height"`
	MailClass     string  `json:"mailClass"`
	ExtraServices []int   `json:"extraServices,omitempty"`
	MailingDate   string  `json:"mailingDate"`
}

// Rates prices every service in the service table that USPS offers for the
// shipment, in one Shipping Options call.
func (c *Carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := checkShipment(s, false); err != nil {
		return nil, err
	}
	if !isDomestic(s.From) {
		// USPS only takes mail that starts in the US.
		return []carriers.Rate{}, nil
	}
	domestic := isDomestic(s.To)
	if !domestic && s.Options.SignatureConfirmation {
		// No USPS international service offers a signature at delivery.
		return []carriers.Rate{}, nil
	}
	if s.Return && (!domestic || s.Options.SignatureConfirmation) {
		// USPS return labels are domestic only, and shipd does not sell a
		// signature on a return (the merchant receives it).
		return []carriers.Rate{}, nil
	}
	q := rateQuery{international: !domestic, signature: s.Options.SignatureConfirmation, returns: s.Return, mailingDate: c.mailingDate()}
	a, err := c.send(ctx, request{op: opRate, method: http.MethodPost, path: optionsPath, body: c.optionsRequest(s, q)})
	if err != nil {
		return nil, err
	}
	if !a.ok() {
		return nil, statusError(opRate, a, c.now())
	}
	rates, err := parseRates(a.body, q)
	if err != nil {
		return nil, a.redact.Err(err)
	}
	return carriers.DropZeroRates(c.log, CarrierName, rates)
}

// checkShipment refuses what no USPS call could accept, before calling.
func checkShipment(s carriers.Shipment, buying bool) error {
	if s.Parcel.WeightOz <= 0 {
		return fmt.Errorf("usps: parcel weight must be greater than 0 (got %g oz): %w", s.Parcel.WeightOz, carriers.ErrInvalidShipment)
	}
	if buying && !isDomestic(s.To) && s.Customs == nil {
		return fmt.Errorf("usps: shipment to %s: %w", carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	return nil
}

func (c *Carrier) optionsRequest(s carriers.Shipment, q rateQuery) optionsRequest {
	l, w, h := dimensions(s.Parcel)
	req := optionsRequest{
		PricingOptions: []pricingOption{{PriceType: "CONTRACT",
			PaymentAccount: paymentAccount{AccountType: c.cfg.AccountType, AccountNumber: c.cfg.AccountNumber}}},
		OriginZIPCode: zip5(s.From.Zip),
		PackageDescription: optionsPackage{
			Weight: poundsFromOunces(s.Parcel.WeightOz), Length: l, Width: w, Height: h,
			MailingDate: q.mailingDate,
		},
	}
	if q.international {
		req.DestinationCountryCode = carriers.NormalizeCountry(s.To.Country)
		req.ForeignPostalCode = strings.TrimSpace(s.To.Zip)
		req.PackageDescription.MailClass = "ALL"
		return req
	}
	req.PricingOptions[0].PaymentAccount.CRID = c.cfg.CRID
	req.DestinationZIPCode = zip5(s.To.Zip)
	req.DestinationEntryFacilityType = "NONE"
	req.PackageDescription.MailClass = "ALL_OUTBOUND"
	if q.returns {
		// The return services' prices: what the merchant's account is
		// billed when the customer uses the label.
		req.PackageDescription.MailClass = "ALL_RETURNS"
	}
	if q.signature {
		req.PackageDescription.ExtraServices = signatureCodes()
	}
	return req
}

// dimensions returns length, width and height in inches, noDimensionIn for
// one not given.
func dimensions(p carriers.Parcel) (l, w, h float64) {
	dim := func(v float64) float64 {
		if v <= 0 {
			return noDimensionIn
		}
		return v
	}
	return dim(p.LengthIn), dim(p.WidthIn), dim(p.HeightIn)
}

// zip5 is the 5-digit ZIP Code of "12345", "12345-6789" or "123456789".
func zip5(zip string) string {
	zip = strings.TrimSpace(zip)
	if len(zip) > 5 && isDigits(zip[:5]) {
		return zip[:5]
	}
	return zip
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// rateQuery is what parsing the answer needs to know about the question.
type rateQuery struct {
	international bool
	signature     bool
	returns       bool
	mailingDate   string
}

// optionsAnswer is the part of OptionsResponse the adapter reads; numbers are
// kept as text so that money is exact.
type optionsAnswer struct {
	PricingOptions []struct {
		ShippingOptions []struct {
			MailClass string `json:"mailClass"`
			// Decoded only for known mail classes, so that an odd
			// answer about a service shipd does not sell cannot fail
			// the quote.
			RateOptions json.RawMessage `json:"rateOptions"`
		} `json:"shippingOptions"`
	} `json:"pricingOptions"`
}

type optionAnswer struct {
	Commitment *struct {
		Name                 string `json:"name"`
		ExpectedDeliveryDate string `json:"expectedDeliveryDate"`
		// ScheduleDeliveryDate is deprecated for expectedDeliveryDate
		// and will be removed; read only while an answer lacks the new field.
		ScheduleDeliveryDate string `json:"scheduleDeliveryDate"`
		GuaranteedDelivery   bool   `json:"guaranteedDelivery"`
	} `json:"commitment"`
	TotalBasePrice json.Number `json:"totalBasePrice"`
	Rates          []struct {
		Price         json.Number `json:"price"`
		RateIndicator string      `json:"rateIndicator"`
		MailClass     string      `json:"mailClass"`
	} `json:"rates"`
	ExtraServices []struct {
		ExtraService flexString  `json:"extraService"`
		Price        json.Number `json:"price"`
	} `json:"extraServices"`
}

// parseRates maps a Shipping Options answer to one rate per known service:
// the cheapest single-piece option, plus the signature extra service when
// asked for. Unknown mail classes are skipped; a known one whose price is
// missing or not a number makes the answer unusable.
func parseRates(body []byte, q rateQuery) ([]carriers.Rate, error) {
	var ans optionsAnswer
	if err := decodeJSON(body, &ans); err != nil {
		return nil, failed(opRate, http.StatusOK, "the rates answer does not parse: %v", err)
	}
	best := map[string]carriers.Rate{}
	for _, po := range ans.PricingOptions {
		for _, so := range po.ShippingOptions {
			svc, ok := serviceByMailClass(so.MailClass, q.returns)
			if !ok || svc.international != q.international {
				continue
			}
			var opts []optionAnswer
			if len(so.RateOptions) > 0 {
				if err := decodeJSON(so.RateOptions, &opts); err != nil {
					return nil, failed(opRate, http.StatusOK, "the %s rate options do not parse: %v", svc.mailClass, err)
				}
			}
			for _, opt := range opts {
				r, ok, err := optionRate(svc, opt, q)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				// A price of 0 is no price (DropZeroRates leaves the
				// service out): any priced option of the service wins.
				if cur, seen := best[svc.name]; !seen || cur.CarrierRateCents == 0 ||
					(r.CarrierRateCents > 0 && r.CarrierRateCents < cur.CarrierRateCents) {
					best[svc.name] = r
				}
			}
		}
	}
	rates := make([]carriers.Rate, 0, len(best))
	for _, r := range best {
		rates = append(rates, r)
	}
	sort.Slice(rates, func(i, j int) bool {
		if rates[i].CarrierRateCents != rates[j].CarrierRateCents {
			return rates[i].CarrierRateCents < rates[j].CarrierRateCents
		}
		return rates[i].Service < rates[j].Service
	})
	return rates, nil
}

// optionRate prices one rate option of a known service; false when it is not
// what the label would be bought as.
func optionRate(svc service, opt optionAnswer, q rateQuery) (carriers.Rate, bool, error) {
	for _, r := range opt.Rates {
		if r.RateIndicator != "" && r.RateIndicator != svc.rateIndicator {
			return carriers.Rate{}, false, nil
		}
	}
	priceText := opt.TotalBasePrice.String()
	if priceText == "" && len(opt.Rates) == 1 {
		priceText = opt.Rates[0].Price.String()
	}
	cents, err := parseCents(priceText)
	if err != nil {
		return carriers.Rate{}, false, failed(opRate, http.StatusOK, "the %s price: %v", svc.mailClass, err)
	}
	if q.signature {
		found := false
		for _, es := range opt.ExtraServices {
			if string(es.ExtraService) != strconv.Itoa(svc.signatureCode) {
				continue
			}
			extra, err := parseCents(es.Price.String())
			if err != nil {
				return carriers.Rate{}, false, failed(opRate, http.StatusOK, "the %s signature price: %v", svc.mailClass, err)
			}
			cents += extra
			found = true
			break
		}
		if !found {
			// USPS did not price a signature for this option, so it
			// cannot be sold with one.
			return carriers.Rate{}, false, nil
		}
	}
	r := carriers.Rate{Carrier: CarrierName, Service: svc.name, ServiceCategory: svc.category,
		CarrierRateCents: cents, Currency: "USD", EstimatedDays: svc.typicalDays}
	if c := opt.Commitment; c != nil {
		expected := strings.TrimSpace(c.ExpectedDeliveryDate)
		if expected == "" {
			expected = strings.TrimSpace(c.ScheduleDeliveryDate)
		}
		if d, ok := commitmentDays(c.Name, expected, q.mailingDate); ok {
			r.EstimatedDays = d
		}
		if date, err := time.Parse(time.DateOnly, expected); err == nil && date.Year() >= 1970 {
			// A date USPS sends is its commitment; guaranteed only when it says so.
			r.EstimatedDeliveryDate, r.Guaranteed = date, c.GuaranteedDelivery
		}
	}
	return r, true, nil
}

// commitmentDays reads a delivery commitment: its name ("1 Day", "2 Days")
// or, when the name is no count ("MILITARY", "NO STD"), the days from the
// mailing date to the scheduled delivery date.
func commitmentDays(name, scheduled, mailingDate string) (int, bool) {
	if f := strings.Fields(name); len(f) == 2 && strings.HasPrefix(strings.ToUpper(f[1]), "DAY") {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 0 && n < 100 {
			return n, true
		}
	}
	from, err1 := time.Parse(time.DateOnly, mailingDate)
	to, err2 := time.Parse(time.DateOnly, strings.TrimSpace(scheduled))
	if err1 != nil || err2 != nil || !to.After(from) {
		return 0, false
	}
	days := int(to.Sub(from).Hours() / 24)
	if days > 99 {
		return 0, false
	}
	return days, true
}
