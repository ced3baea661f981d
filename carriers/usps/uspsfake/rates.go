package uspsfake

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

var (
	domesticMailClasses = []string{"PARCEL_SELECT", "PARCEL_SELECT_LIGHTWEIGHT", "USPS_CONNECT_LOCAL", "USPS_CONNECT_REGIONAL",
		"USPS_CONNECT_MAIL", "USPS_GROUND_ADVANTAGE", "USPS_GROUND_ADVANTAGE_RETURN_SERVICE", "PRIORITY_MAIL_EXPRESS",
		"PRIORITY_MAIL_EXPRESS_RETURN_SERVICE", "PRIORITY_MAIL", "PRIORITY_MAIL_RETURN_SERVICE", "FIRST-CLASS_PACKAGE_SERVICE",
		"LIBRARY_MAIL", "MEDIA_MAIL", "BOUND_PRINTED_MATTER", "ALL", "ALL_OUTBOUND", "ALL_RETURNS"}
	internationalMailClasses = []string{"FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE", "PRIORITY_MAIL_INTERNATIONAL",
		"PRIORITY_MAIL_EXPRESS_INTERNATIONAL", "GLOBAL_EXPRESS_GUARANTEED", "ALL"}
	domesticExtraServices = []int{365, 415, 480, 481, 482, 483, 484, 485, 486, 487, 488, 489, 498, 500, 501, 502,
		810, 811, 812, 813, 814, 815, 816, 817, 818, 819, 820, 821, 822, 823, 824, 825, 826, 827, 828, 829, 830, 831, 832,
		853, 856, 857, 858, 910, 911, 912, 913, 915, 917, 920, 921, 922, 923, 924, 925, 930, 931, 934, 940, 941, 955, 957,
		972, 981, 984, 986, 991}
	internationalExtraServices = []int{370, 813, 820, 826, 857, 930, 931, 955}
)

// tariff is how the fake prices a mail class: base plus a price per started
// pound, so prices depend on the weight.
type tariff struct {
	mailClass, description, rateIndicator, sku string
	baseCents, perLbCents                      int64
	days                                       int // 0: no commitment
	maxLb                                      float64
}

var domesticTariffs = []tariff{
	{"USPS_GROUND_ADVANTAGE", "USPS Ground Advantage Machinable Single-piece", "SP", "DUXP0XXXXC01010", 500, 95, 3, 70},
	{"PRIORITY_MAIL", "Priority Mail Machinable Single-piece", "SP", "DPXX0XXXXC01010", 900, 130, 2, 70},
	{"PRIORITY_MAIL", "Priority Mail Small Flat Rate Box", "FS", "DPFS0XXXXC00000", 1040, 0, 2, 70},
	{"PRIORITY_MAIL_EXPRESS", "Priority Mail Express Single-piece", "PA", "DEXX0XXXXC01010", 2950, 275, 1, 70},
	{"MEDIA_MAIL", "Media Mail Machinable Single-piece", "SP", "DMXX0XXXXC01010", 413, 80, 6, 70},
}

var internationalTariffs = []tariff{
	{"FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE", "First-Class Package International Service Machinable ISC Single-piece", "SP", "IFXX0XXXXC01010", 1650, 310, 0, 4},
	{"PRIORITY_MAIL_INTERNATIONAL", "Priority Mail International ISC Single-piece", "SP", "IPXX0XXXXC01010", 4500, 425, 0, 70},
	{"PRIORITY_MAIL_EXPRESS_INTERNATIONAL", "Priority Mail Express International ISC Single-piece", "PA", "IEXX0XXXXB01020", 6000, 500, 0, 70},
	{"GLOBAL_EXPRESS_GUARANTEED", "Global Express Guaranteed Non-Document Rectangular", "SP", "IGXX0XXXXC01010", 9000, 900, 0, 70},
}

// extra service prices the fake charges.
var extraServicePrices = map[int]struct {
	name  string
	cents int64
	// express: applies to Priority Mail Express only; otherwise to every
	// domestic class but Priority Mail Express.
	express bool
}{
	921: {"Signature Confirmation", 365, false},
	981: {"Signature Requested", 0, true},
}

// returnTariffs are the domestic tariffs of the classes that have a return
// service, under the return class's current name.
func returnTariffs() []tariff {
	current := map[string]string{
		"USPS_GROUND_ADVANTAGE": "USPS_GROUND_ADVANTAGE_RETURN_SERVICE",
		"PRIORITY_MAIL":         "PRIORITY_MAIL_RETURN_SERVICE",
		"PRIORITY_MAIL_EXPRESS": "PRIORITY_MAIL_EXPRESS_RETURN_SERVICE",
	}
	var out []tariff
	for _, t := range domesticTariffs {
		if ret, ok := current[t.mailClass]; ok {
			t.mailClass, t.description = ret, t.description+" Return"
			out = append(out, t)
		}
	}
	return out
}

func (t tariff) cents(lb float64) int64 {
	return t.baseCents + t.perLbCents*int64(math.Max(1, math.Ceil(lb)))
}

func priceFor(mailClass string, lb float64) int64 {
	for _, t := range append(append([]tariff(nil), domesticTariffs...), internationalTariffs...) {
		if t.mailClass == mailClass && t.rateIndicator != "FS" {
			return t.cents(lb)
		}
	}
	return 0
}

type optionsPackage struct {
	Weight        *float64 `json:"weight"`
	Length        *float64 `json:"length"`
	Width         *float64 `json:"width"`
	Height        *float64 `json:"height"`
	MailClass     string   `json:"mailClass"`
	ExtraServices []int    `json:"extraServices"`
	MailingDate   string   `json:"mailingDate"`
}

type optionsRequest struct {
	PricingOptions []struct {
		PriceType      string `json:"priceType"`
		PaymentAccount *struct {
			AccountType   string `json:"accountType"`
			AccountNumber string `json:"accountNumber"`
		} `json:"paymentAccount"`
	} `json:"pricingOptions"`
	OriginZIPCode                string          `json:"originZIPCode"`
	DestinationZIPCode           string          `json:"destinationZIPCode"`
	DestinationEntryFacilityType string          `json:"destinationEntryFacilityType"`
	ForeignPostalCode            string          `json:"foreignPostalCode"`
	DestinationCountryCode       string          `json:"destinationCountryCode"`
	PackageDescription           *optionsPackage `json:"packageDescription"`
}

// options is POST /shipments/v3/options/search (Shipping Options 3.0).
func (s *Server) options(w http.ResponseWriter, r *http.Request, body []byte) {
	const api = "/shipments/v3"
	var p problems
	if !isJSON(r) {
		p.add("Content-Type", "Content-Type must be application/json")
		p.write(w, api)
		return
	}
	var req optionsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		p.add("body", "the request body is not a valid OptionsRequest: %v", err)
		p.write(w, api)
		return
	}
	international := req.DestinationCountryCode != ""
	var top map[string]json.RawMessage
	_ = json.Unmarshal(body, &top)
	if international {
		checkKeys(&p, body, "request", "pricingOptions", "originZIPCode", "foreignPostalCode", "destinationCountryCode", "packageDescription", "shippingFilter")
	} else {
		checkKeys(&p, body, "request", "pricingOptions", "originZIPCode", "destinationZIPCode", "destinationEntryFacilityType", "packageDescription", "shippingFilter")
	}
	var rawOptions []json.RawMessage
	_ = json.Unmarshal(top["pricingOptions"], &rawOptions)
	for _, raw := range rawOptions {
		checkKeys(&p, raw, "pricingOptions", "shippingOptions", "priceType", "paymentAccount")
	}
	if len(req.PricingOptions) == 0 {
		p.add("pricingOptions", "pricingOptions needs at least one item")
	}
	for _, po := range req.PricingOptions {
		oneOf(&p, "pricingOptions.priceType", po.PriceType, false, "RETAIL", "COMMERCIAL", "CONTRACT")
		if po.PriceType == "CONTRACT" {
			switch {
			case po.PaymentAccount == nil:
				p.add("pricingOptions.paymentAccount", "paymentAccount is required for CONTRACT prices")
			default:
				oneOf(&p, "pricingOptions.paymentAccount.accountType", po.PaymentAccount.AccountType, true, "EPS", "PERMIT", "METER", "MID")
				if po.PaymentAccount.AccountNumber == "" {
					p.add("pricingOptions.paymentAccount.accountNumber", "accountNumber is required")
				}
			}
		}
	}
	if !originZIPPattern.MatchString(req.OriginZIPCode) {
		p.add("originZIPCode", "originZIPCode %q is not a ZIP Code", req.OriginZIPCode)
	}
	if international {
		if !countryPattern.MatchString(req.DestinationCountryCode) {
			p.add("destinationCountryCode", "destinationCountryCode %q is not a country code", req.DestinationCountryCode)
		}
	} else {
		if !originZIPPattern.MatchString(req.DestinationZIPCode) {
			p.add("destinationZIPCode", "destinationZIPCode %q is not a ZIP Code", req.DestinationZIPCode)
		}
		oneOf(&p, "destinationEntryFacilityType", req.DestinationEntryFacilityType, false, "NONE",
			"DESTINATION_NETWORK_DISTRIBUTION_CENTER", "DESTINATION_SECTIONAL_CENTER_FACILITY", "DESTINATION_DELIVERY_UNIT", "DESTINATION_SERVICE_HUB")
	}
	pkg := req.PackageDescription
	if pkg == nil {
		p.add("packageDescription", "packageDescription is required")
		p.write(w, api)
		return
	}
	// Weight in pounds: items must weigh 70 pounds or less.
	positive(&p, "packageDescription.weight", pkg.Weight, 70)
	positive(&p, "packageDescription.length", pkg.Length, 0)
	positive(&p, "packageDescription.width", pkg.Width, 0)
	positive(&p, "packageDescription.height", pkg.Height, 0)
	extras := domesticExtraServices
	if international {
		oneOf(&p, "packageDescription.mailClass", pkg.MailClass, true, internationalMailClasses...)
		extras = internationalExtraServices
	} else {
		oneOf(&p, "packageDescription.mailClass", pkg.MailClass, true, domesticMailClasses...)
	}
	if len(pkg.ExtraServices) > 5 {
		p.add("packageDescription.extraServices", "at most 5 extra services")
	}
	for _, es := range pkg.ExtraServices {
		if !containsInt(extras, es) {
			p.add("packageDescription.extraServices", "%d is not an extra service code", es)
		}
	}
	if pkg.MailingDate != "" {
		checkMailingDate(&p, "packageDescription.mailingDate", pkg.MailingDate, s.Now(), 30)
	}
	if p.write(w, api) {
		return
	}

	mailingDate := pkg.MailingDate
	if mailingDate == "" {
		mailingDate = s.Now().UTC().Format(time.DateOnly)
	}
	tariffs := domesticTariffs
	if international {
		tariffs = internationalTariffs
	}
	all := pkg.MailClass == "ALL" || pkg.MailClass == "ALL_OUTBOUND"
	if !international && (pkg.MailClass == "ALL_RETURNS" || returnMailClasses[pkg.MailClass] != "") {
		// The return services, priced as the outbound class each returns.
		all, tariffs = pkg.MailClass == "ALL_RETURNS", returnTariffs()
	}
	var shippingOptions []any
	byClass := map[string][]any{}
	var order []string
	for _, t := range tariffs {
		if (!all && t.mailClass != pkg.MailClass) || *pkg.Weight > t.maxLb {
			continue
		}
		if _, seen := byClass[t.mailClass]; !seen {
			order = append(order, t.mailClass)
		}
		byClass[t.mailClass] = append(byClass[t.mailClass], s.rateOption(t, *pkg.Weight, pkg.ExtraServices, mailingDate, international))
	}
	for _, mc := range order {
		shippingOptions = append(shippingOptions, map[string]any{"mailClass": mc, "rateOptions": byClass[mc]})
	}
	out := map[string]any{
		"originZIPCode":  req.OriginZIPCode,
		"pricingOptions": []any{map[string]any{"shippingOptions": shippingOptions, "priceType": req.PricingOptions[0].PriceType}},
	}
	if international {
		out["destinationCountryCode"] = req.DestinationCountryCode
		out["foreignPostalCode"] = req.ForeignPostalCode
	} else {
		out["destinationZIPCode"] = req.DestinationZIPCode
	}
	fakekit.WriteJSON(w, http.StatusOK, out)
}

func (s *Server) rateOption(t tariff, lb float64, extras []int, mailingDate string, international bool) map[string]any {
	base := t.cents(lb)
	processing := "MACHINABLE"
	if international {
		processing = "FLATS"
	}
	opt := map[string]any{
		"totalBasePrice": money(base),
		"rates": []any{map[string]any{
			"description": t.description, "startDate": "2026-01-18", "endDate": "", "SKU": t.sku,
			"price": money(base), "zone": "05", "weight": lb, "dimWeight": 0, "fees": []any{},
			"priceType": "CONTRACT", "mailClass": t.mailClass, "productName": "", "productDefinition": "",
			"processingCategory": processing, "rateIndicator": t.rateIndicator, "destinationEntryFacilityType": "NONE",
		}},
	}
	if t.days > 0 {
		d, _ := time.Parse(time.DateOnly, mailingDate)
		name := strconv.Itoa(t.days) + " Days"
		if t.days == 1 {
			name = "1 Day"
		}
		// expectedDeliveryDate only: the published document deprecates
		// scheduleDeliveryDate and will remove it.
		opt["commitment"] = map[string]any{"name": name, "expectedDeliveryDate": d.AddDate(0, 0, t.days).Format(time.DateOnly),
			"guaranteedDelivery": t.mailClass == "PRIORITY_MAIL_EXPRESS", "isPriorityMailNextDay": false}
	}
	priced := []any{}
	total := base
	for _, code := range extras {
		es, ok := extraServicePrices[code]
		if !ok || international || es.express != (t.mailClass == "PRIORITY_MAIL_EXPRESS") {
			continue
		}
		total += es.cents
		priced = append(priced, map[string]any{"name": es.name, "price": money(es.cents), "extraService": strconv.Itoa(code),
			"priceType": "CONTRACT", "SKU": "DX" + strconv.Itoa(code) + "XXXXC00000", "warnings": []any{}})
	}
	if len(extras) > 0 {
		opt["totalPrice"] = money(total)
		opt["extraServices"] = priced
	}
	return opt
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
