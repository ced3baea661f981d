package upsfake

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// addr is a checked UPS address.
type addr struct {
	lines                        []string
	city, state, postal, country string
	residential                  bool
}

// party checks a Shipper/ShipTo/ShipFrom/SoldTo container. The Shipping API
// requires Name, City and, for the US and Canada, the state; the Rating API
// only the country and the address lines.
func (c *checker) party(v any, base, path string, shipping bool) addr {
	p := c.object(v, base, path)
	if p == nil {
		return addr{}
	}
	where := join(base, path)
	if shipping {
		c.str(p, where, "Name", 35)
	} else {
		c.optStr(p, where, "Name", 35)
	}
	c.optStr(p, where, "AttentionName", 35)
	if ph := c.optObject(p, where, "Phone"); ph != nil {
		if n := c.str(ph, where+".Phone", "Number", 15); n != "" && !isDigits(n) {
			c.invalid(where+".Phone.Number", "valid values are 0-9")
		}
	}
	return c.address(p, where, "Address", shipping)
}

var (
	usPostal = regexp.MustCompile(`^\d{5}(\d{4})?$`)
	caPostal = regexp.MustCompile(`^[A-Z]\d[A-Z]\d[A-Z]\d$`)
	country2 = regexp.MustCompile(`^[A-Z]{2}$`)
)

func (c *checker) address(v any, base, path string, shipping bool) addr {
	m := c.object(v, base, path)
	if m == nil {
		return addr{}
	}
	where := join(base, path)
	a := addr{lines: c.stringArray(m, where, "AddressLine", 3, 35)}
	if shipping {
		a.city = c.str(m, where, "City", 30)
	} else {
		a.city, _ = c.optStr(m, where, "City", 30)
	}
	a.country = c.str(m, where, "CountryCode", 2)
	if a.country != "" && !country2.MatchString(a.country) {
		c.invalid(where+".CountryCode", fmt.Sprintf("%q is not a country code", a.country))
	}
	stateMax := 2
	if shipping {
		stateMax = 5
	}
	if a.country == "US" || a.country == "CA" {
		a.state = c.str(m, where, "StateProvinceCode", stateMax)
	} else {
		a.state, _ = c.optStr(m, where, "StateProvinceCode", stateMax)
	}
	switch a.country {
	case "US", "PR":
		a.postal = c.str(m, where, "PostalCode", 9)
		if a.postal != "" && !usPostal.MatchString(a.postal) {
			c.invalid(where+".PostalCode", fmt.Sprintf("%q: 5 or 9 digits are required", a.postal))
		}
	case "CA":
		a.postal = c.str(m, where, "PostalCode", 9)
		if a.postal != "" && !caPostal.MatchString(a.postal) {
			c.invalid(where+".PostalCode", fmt.Sprintf("%q is not A#A#A#", a.postal))
		}
	default:
		a.postal, _ = c.optStr(m, where, "PostalCode", 9)
	}
	_, a.residential = c.optStr(m, where, "ResidentialAddressIndicator", 0)
	return a
}

// pkg is a checked package.
type pkg struct {
	pounds    float64
	dimsIn    [3]float64
	signature bool
}

// weightAndDims checks PackageWeight and Dimensions; the Shipping API
// allows 5 characters for the weight and 3 per dimension, Rating 6 and 9.
func (c *checker) weightAndDims(p any, where string, shipping bool) pkg {
	var out pkg
	wMax, dMax := 6, 9
	if shipping {
		wMax, dMax = 5, 3
	}
	pw := c.object(p, where, "PackageWeight")
	if pw != nil {
		unit := c.oneOf(pw, where+".PackageWeight", "UnitOfMeasurement.Code", "LBS", "KGS", "OZS")
		if !shipping {
			// Rating documents UnitOfMeasurement/Description as required.
			c.str(pw, where+".PackageWeight", "UnitOfMeasurement.Description", 35)
		}
		out.pounds = toPounds(c.positive(pw, where+".PackageWeight", "Weight", wMax), unit)
	}
	if d := c.optObject(p, where, "Dimensions"); d != nil {
		unit := c.oneOf(d, where+".Dimensions", "UnitOfMeasurement.Code", "IN", "CM")
		for i, k := range []string{"Length", "Width", "Height"} {
			out.dimsIn[i] = c.positive(d, where+".Dimensions", k, dMax)
			if unit == "CM" {
				out.dimsIn[i] /= 2.54
			}
		}
	}
	return out
}

// deliveryConfirmation checks DCIS at package level (US/PR domestic only,
// DCISType 2 or 3) and shipment level (other lanes, DCISType 1 or 2).
func (c *checker) deliveryConfirmation(pkgOpts, shipOpts map[string]any, pkgWhere, shipWhere string, domestic bool) bool {
	sig := false
	if pkgOpts != nil {
		if dc := c.optObject(pkgOpts, pkgWhere, "DeliveryConfirmation"); dc != nil {
			c.oneOf(dc, pkgWhere+".DeliveryConfirmation", "DCISType", "2", "3")
			if !domestic {
				c.fail("120502", "Package level Delivery Confirmation is only valid for US/PR domestic shipments.")
			}
			sig = true
		}
	}
	if shipOpts != nil {
		if dc := c.optObject(shipOpts, shipWhere, "DeliveryConfirmation"); dc != nil {
			c.oneOf(dc, shipWhere+".DeliveryConfirmation", "DCISType", "1", "2")
			if domestic {
				c.fail("120503", "Shipment level Delivery Confirmation is not valid for US/PR domestic shipments; use package level.")
			}
			sig = true
		}
	}
	return sig
}

// payment checks ShipmentCharge: transportation billed to the account.
func (c *checker) payment(v any, where string) {
	charges := c.array(v, where, "ShipmentCharge")
	if charges == nil {
		return
	}
	transport := false
	for i, ch := range charges {
		at := fmt.Sprintf("%s.ShipmentCharge[%d]", where, i)
		if c.oneOf(ch, at, "Type", "01", "02") == "01" {
			transport = true
		}
		if acct := c.str(ch, at, "BillShipper.AccountNumber", 6); acct != "" && acct != c.account {
			c.fail("120100", "Missing or invalid shipper number")
		}
	}
	if !transport {
		c.missing(where + ".ShipmentCharge (Type 01 - Transportation)")
	}
}

func domestic(from, to addr) bool {
	return from.country == to.country && (from.country == "US" || from.country == "PR")
}

// rate is POST /api/rating/{version}/{requestoption}.
func (s *Server) rate(w http.ResponseWriter, r *http.Request, body []byte) {
	c := &checker{account: accountOf(r)}
	if v := r.PathValue("version"); v != "v2409" {
		c.invalid("version", fmt.Sprintf("%q is not v2409", v))
	}
	option := strings.ToLower(r.PathValue("requestoption"))
	switch option {
	case "rate", "shop", "ratetimeintransit", "shoptimeintransit":
	default:
		c.invalid("requestoption", fmt.Sprintf("%q is not Rate, Shop, Ratetimeintransit or Shoptimeintransit", r.PathValue("requestoption")))
	}
	m, err := decode(body)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, apiError{codeNotWellFormed, "The request is not well formed: " + err.Error()})
		return
	}
	rq := c.object(m, "", "RateRequest")
	// Required by RateRequest_Request; its values are those of the path's
	// requestoption.
	c.str(rq, "RateRequest", "Request.RequestOption", 0)
	base := "RateRequest.Shipment"
	sh := c.object(rq, "RateRequest", "Shipment")
	shipper := c.party(sh, base, "Shipper", false)
	shipperNumber, _ := c.optStr(sh, base, "Shipper.ShipperNumber", 6)
	if shipperNumber != "" && shipperNumber != c.account {
		c.fail("111057", "This measurement system is not valid for the selected country or the Shipper number is invalid.")
	}
	to := c.party(sh, base, "ShipTo", false)
	from := shipper
	if _, ok := lookup(sh, "ShipFrom"); ok {
		from = c.party(sh, base, "ShipFrom", false)
	}
	if pd := c.optObject(sh, base, "PaymentDetails"); pd != nil {
		c.payment(pd, base+".PaymentDetails")
	}
	_, negotiated := c.optStr(sh, base, "ShipmentRatingOptions.NegotiatedRatesIndicator", 0)
	if negotiated && shipperNumber != c.account {
		c.missing(base + ".Shipper.ShipperNumber (required for negotiated rates)")
	}
	dom := domestic(from, to)
	pkgs := c.array(sh, base, "Package")
	if pkgs != nil && len(pkgs) == 0 {
		c.missing(base + ".Package")
	}
	var total pkg
	for i, p := range pkgs {
		where := fmt.Sprintf("%s.Package[%d]", base, i)
		c.str(p, where, "PackagingType.Code", 2)
		pk := c.weightAndDims(p, where, false)
		total.pounds += pk.pounds
		total.dimsIn = pk.dimsIn
		if c.deliveryConfirmation(c.optObject(p, where, "PackageServiceOptions"), nil, where+".PackageServiceOptions", "", dom) {
			total.signature = true
		}
	}
	if c.deliveryConfirmation(nil, c.optObject(sh, base, "ShipmentServiceOptions"), "", base+".ShipmentServiceOptions", dom) {
		total.signature = true
	}
	withTransit := strings.HasSuffix(option, "timeintransit")
	if withTransit {
		dti := c.object(sh, base, "DeliveryTimeInformation")
		c.oneOf(dti, base+".DeliveryTimeInformation", "PackageBillType", "02", "03", "04", "07")
		if d, ok := c.optStr(dti, base+".DeliveryTimeInformation", "Pickup.Date", 8); ok && (len(d) != 8 || !isDigits(d)) {
			c.invalid(base+".DeliveryTimeInformation.Pickup.Date", "format is YYYYMMDD")
		}
		if from.country != to.country {
			stw := c.object(sh, base, "ShipmentTotalWeight")
			c.oneOf(stw, base+".ShipmentTotalWeight", "UnitOfMeasurement.Code", "LBS", "KGS")
			c.positive(stw, base+".ShipmentTotalWeight", "Weight", 0)
			ilt := c.object(sh, base, "InvoiceLineTotal")
			c.str(ilt, base+".InvoiceLineTotal", "CurrencyCode", 3)
			if v := c.str(ilt, base+".InvoiceLineTotal", "MonetaryValue", 19); v != "" {
				if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 99999999 {
					c.invalid(base+".InvoiceLineTotal.MonetaryValue", "valid values are from 1 to 99999999")
				}
			}
		}
	}
	lane := laneServices(from.country, to.country)
	if option == "rate" || option == "ratetimeintransit" {
		code := c.str(sh, base, "Service.Code", 3)
		if svc, ok := findService(lane, code); ok {
			lane = []fakeService{svc}
		} else if code != "" {
			c.fail("111210", "The requested service is unavailable between the selected locations.")
		}
	}
	if !c.ok() {
		writeErrors(w, http.StatusBadRequest, c.errs...)
		return
	}

	lbs := billablePounds(total.pounds, total.dimsIn)
	var rated []any
	for _, svc := range lane {
		transport := svc.base + svc.perLb*lbs
		var options int64
		if to.residential && dom {
			options += residentialSurcharge
		}
		if total.signature {
			options += signatureSurcharge
		}
		rs := map[string]any{
			"Service":               map[string]string{"Code": svc.code, "Description": ""},
			"RatedShipmentAlert":    []map[string]string{{"Code": "110971", "Description": "Your invoice may vary from the displayed reference rates"}},
			"BillingWeight":         map[string]any{"UnitOfMeasurement": map[string]string{"Code": "LBS", "Description": "Pounds"}, "Weight": fmt.Sprintf("%d.0", lbs)},
			"TransportationCharges": money(transport),
			"BaseServiceCharge":     money(transport),
			"ServiceOptionsCharges": money(options),
			"TotalCharges":          money(transport + options),
			"RatedPackage": []any{map[string]any{
				"TransportationCharges": money(transport),
				"ServiceOptionsCharges": money(options),
				"TotalCharges":          money(transport + options),
				"Weight":                strconv.FormatFloat(total.pounds, 'f', 1, 64),
				"BillingWeight":         map[string]any{"UnitOfMeasurement": map[string]string{"Code": "LBS", "Description": "Pounds"}, "Weight": fmt.Sprintf("%d.0", lbs)},
			}},
		}
		if negotiated {
			rs["NegotiatedRateCharges"] = map[string]any{"TotalCharge": money((transport + options) * negotiatedPercent / 100)}
		}
		days := svc.days
		if svc.code == "03" {
			days = groundDays(from.postal, to.postal)
		}
		if svc.guaranteed {
			rs["GuaranteedDelivery"] = map[string]string{"BusinessDaysInTransit": strconv.Itoa(svc.days)}
		}
		if withTransit {
			now := s.Now()
			arrival := now.AddDate(0, 0, days)
			rs["TimeInTransit"] = map[string]any{
				"PickupDate": now.Format("20060102"),
				"ServiceSummary": map[string]any{
					"Service": map[string]string{"Description": svc.description},
					"EstimatedArrival": map[string]any{
						"Arrival":               map[string]string{"Date": arrival.Format("20060102"), "Time": "230000"},
						"BusinessDaysInTransit": strconv.Itoa(days),
						"Pickup":                map[string]string{"Date": now.Format("20060102"), "Time": "160000"},
						"DayOfWeek":             strings.ToUpper(arrival.Weekday().String()[:3]),
					},
				},
			}
		}
		rated = append(rated, rs)
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"RateResponse": map[string]any{
		"Response":      success(),
		"RatedShipment": rated,
	}})
}

func money(cents int64) map[string]string {
	return map[string]string{"CurrencyCode": "USD", "MonetaryValue": amount(cents)}
}

func success() map[string]any {
	return map[string]any{"ResponseStatus": map[string]string{"Code": "1", "Description": "Success"}}
}

// ship is POST /api/shipments/{version}/ship.
func (s *Server) ship(w http.ResponseWriter, r *http.Request, body []byte) {
	c := &checker{account: accountOf(r)}
	if v := r.PathValue("version"); v != "v2409" {
		c.invalid("version", fmt.Sprintf("%q is not v2409", v))
	}
	m, err := decode(body)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, apiError{codeNotWellFormed, "The request is not well formed: " + err.Error()})
		return
	}
	sr := c.object(m, "", "ShipmentRequest")
	c.oneOf(sr, "ShipmentRequest", "Request.RequestOption", "validate", "nonvalidate")
	customerContext, _ := c.optStr(sr, "ShipmentRequest", "Request.TransactionReference.CustomerContext", 512)
	base := "ShipmentRequest.Shipment"
	sh := c.object(sr, "ShipmentRequest", "Shipment")
	shipper := c.party(sh, base, "Shipper", true)
	if n := c.str(sh, base, "Shipper.ShipperNumber", 6); n != "" && n != c.account {
		c.fail("120100", "Missing or invalid shipper number")
	}
	to := c.party(sh, base, "ShipTo", true)
	from := shipper
	if _, ok := lookup(sh, "ShipFrom"); ok {
		from = c.party(sh, base, "ShipFrom", true)
	}
	intl := from.country != to.country
	dom := domestic(from, to)
	c.payment(c.object(sh, base, "PaymentInformation"), base+".PaymentInformation")
	code := c.str(sh, base, "Service.Code", 2)
	svc, known := findService(laneServices(from.country, to.country), code)
	if code != "" && !known {
		c.fail("111210", "The requested service is unavailable between the selected locations.")
	}
	description, _ := c.optStr(sh, base, "Description", 50)
	_, documentsOnly := c.optStr(sh, base, "DocumentsOnlyIndicator", 0)
	// A return (Shipment.ReturnService): the fake sells the UPS Print
	// Return Label (9) only, and each package needs its merchandise
	// description ("Required for shipment with return service").
	_, isReturn := lookup(sh, "ReturnService")
	if isReturn {
		c.oneOf(sh, base, "ReturnService.Code", "9")
	}
	var reference string
	if refs, ok := lookup(sh, "ReferenceNumber"); ok {
		if dom {
			c.invalid(base+".ReferenceNumber", "shipment level reference numbers are not valid for US/US or PR/PR shipments")
		}
		reference = c.references(refs, base+".ReferenceNumber")
	}
	pkgs := c.array(sh, base, "Package")
	if pkgs != nil && (len(pkgs) == 0 || len(pkgs) > maxPackages) {
		c.invalid(base+".Package", fmt.Sprintf("a shipment has 1 to %d packages, got %d", maxPackages, len(pkgs)))
	}
	// Several packages are one multi-piece shipment: each is priced and
	// labelled on its own, under one ShipmentIdentificationNumber.
	var pieces []pkg
	for i, p := range pkgs {
		where := fmt.Sprintf("%s.Package[%d]", base, i)
		c.str(p, where, "Packaging.Code", 2)
		pk := c.weightAndDims(p, where, true)
		if isReturn {
			c.str(p, where, "Description", 35)
		}
		if refs, ok := lookup(p, "ReferenceNumber"); ok {
			if !dom {
				c.invalid(where+".ReferenceNumber", "package level reference numbers are only valid for US/US or PR/PR shipments")
			}
			reference = c.references(refs, where+".ReferenceNumber")
		}
		pk.signature = c.deliveryConfirmation(c.optObject(p, where, "PackageServiceOptions"), nil, where+".PackageServiceOptions", "", dom)
		pieces = append(pieces, pk)
	}
	opts := c.optObject(sh, base, "ShipmentServiceOptions")
	var inv *invoiceForm // the commercial invoice asked for (customs.go)
	if c.deliveryConfirmation(nil, opts, "", base+".ShipmentServiceOptions", dom) {
		for i := range pieces {
			pieces[i].signature = true
		}
	}
	if intl {
		// Required when the destination is international.
		if description == "" {
			c.missing(base + ".Description (Description of Goods)")
		}
		c.str(sh, base, "Shipper.AttentionName", 35)
		c.str(sh, base, "Shipper.Phone.Number", 15)
		c.str(sh, base, "ShipTo.AttentionName", 35)
		c.str(sh, base, "ShipTo.Phone.Number", 15)
		if !documentsOnly {
			inv = c.invoice(opts, base+".ShipmentServiceOptions", to)
		}
		c.optStr(sh, base, "Shipper.TaxIdentificationNumber", 15)
	}
	ls := c.object(sr, "ShipmentRequest", "LabelSpecification")
	labelFormat := c.str(ls, "ShipmentRequest.LabelSpecification", "LabelImageFormat.Code", 4)
	if labelFormat != "" && labelFormat != "GIF" && labelFormat != "ZPL" {
		c.invalid("ShipmentRequest.LabelSpecification.LabelImageFormat.Code", fmt.Sprintf("%q: the fake renders GIF and ZPL labels only", labelFormat))
	}
	c.oneOf(ls, "ShipmentRequest.LabelSpecification", "LabelStockSize.Height", "6", "8")
	c.oneOf(ls, "ShipmentRequest.LabelSpecification", "LabelStockSize.Width", "4")
	if !c.ok() {
		writeErrors(w, http.StatusBadRequest, c.errs...)
		return
	}

	var lbs, transport, options int64
	results := make([]any, len(pieces))
	numbers := make([]string, len(pieces))
	var gifLabel []byte // the first package's, kept for Label Recovery
	now := s.Now()
	s.mu.Lock()
	labelImage := s.labelImage
	for i := range pieces {
		s.seq++
		numbers[i] = trackingNumber(c.account, svc.code, s.seq)
	}
	s.mu.Unlock()
	tn := numbers[0]
	for i, pk := range pieces {
		plbs := billablePounds(pk.pounds, pk.dimsIn)
		ptransport := svc.base + svc.perLb*plbs
		var poptions int64
		if to.residential && dom {
			poptions += residentialSurcharge
		}
		if pk.signature {
			poptions += signatureSurcharge
		}
		lbs, transport, options = lbs+plbs, transport+ptransport, options+poptions
		img, err := renderLabel(labelContent{
			service: svc.description, trackingNumber: numbers[i], weight: fmt.Sprintf("%d LBS", plbs),
			from: from, to: to, toName: partyName(sh, "ShipTo"), fromName: partyName(sh, "Shipper"), reference: reference,
		})
		if err != nil {
			writeErrors(w, http.StatusInternalServerError, apiError{"20001", "General process failure: " + err.Error()})
			return
		}
		if labelImage != nil {
			img = labelImage
		}
		if i == 0 {
			gifLabel = img
		}
		html := fmt.Sprintf("<html><body><img src=\"label%s.gif\"></body></html>", numbers[i])
		shippingLabel := map[string]any{
			"ImageFormat":  map[string]string{"Code": "GIF", "Description": "GIF"},
			"GraphicImage": base64.StdEncoding.EncodeToString(img),
			"HTMLImage":    base64.StdEncoding.EncodeToString([]byte(html)),
		}
		if labelFormat == "ZPL" {
			// ZPL comes as the printer's text, base64 like an image, without HTMLImage.
			zpl := zplLabel(svc.description, numbers[i], partyName(sh, "ShipTo"), to)
			shippingLabel = map[string]any{
				"ImageFormat":  map[string]string{"Code": "ZPL", "Description": "ZPL"},
				"GraphicImage": base64.StdEncoding.EncodeToString(zpl),
			}
		}
		results[i] = map[string]any{
			"TrackingNumber":        numbers[i],
			"ServiceOptionsCharges": money(poptions),
			"ShippingLabel":         shippingLabel,
		}
	}
	// The sale and its label (kept for Label Recovery) are recorded together.
	s.sales.Sell(&shipment{
		Sale: fakekit.Sale{TrackingNumber: tn, Reference: firstNonEmpty(reference, customerContext), Account: c.account,
			Pieces: numbers, Return: isReturn, SoldAt: now},
		service: svc, from: from, to: to, label: gifLabel,
	})
	shipmentResults := map[string]any{
		"ShipmentCharges": map[string]any{
			"TransportationCharges": money(transport),
			"ServiceOptionsCharges": money(options),
			"TotalCharges":          money(transport + options),
		},
		"BillingWeight":                map[string]any{"UnitOfMeasurement": map[string]string{"Code": "LBS", "Description": "Pounds"}, "Weight": fmt.Sprintf("%d.0", lbs)},
		"ShipmentIdentificationNumber": tn,
		"PackageResults":               results,
	}
	if inv != nil {
		shipmentResults["Form"] = inv.form(tn) // customs.go
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"ShipmentResponse": map[string]any{
		"Response": map[string]any{
			"ResponseStatus":       map[string]string{"Code": "1", "Description": "Success"},
			"TransactionReference": map[string]string{"CustomerContext": customerContext},
		},
		"ShipmentResults": shipmentResults,
	}})
}

// references checks a ReferenceNumber array and returns its first value.
func (c *checker) references(v any, where string) string {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		c.invalid(where, "not a non-empty array")
		return ""
	}
	first := ""
	for i, x := range a {
		val := c.str(x, fmt.Sprintf("%s[%d]", where, i), "Value", 35)
		if first == "" {
			first = val
		}
	}
	return first
}

// invoice checks the commercial invoice of a non-document international
// shipment (InternationalForms with FormType 01) and returns what the
// fake prints on it; nil when there is none.
func (c *checker) invoice(opts map[string]any, where string, to addr) *invoiceForm {
	f := c.object(opts, where, "InternationalForms")
	if f == nil {
		return nil
	}
	where += ".InternationalForms"
	types := c.stringArray(f, where, "FormType", 6, 2)
	hasInvoice := false
	for _, t := range types {
		hasInvoice = hasInvoice || t == "01"
	}
	if !hasInvoice {
		c.missing(where + ".FormType 01 (Invoice)")
		return nil
	}
	inv := c.invoiceTerms(f, where) // customs.go
	if d := c.str(f, where, "InvoiceDate", 8); d != "" && (len(d) != 8 || !isDigits(d)) {
		c.invalid(where+".InvoiceDate", "format is yyyyMMdd")
	}
	c.str(f, where, "ReasonForExport", 20)
	c.str(f, where, "CurrencyCode", 3)
	sold := c.party(f, where, "Contacts.SoldTo", true)
	c.str(f, where, "Contacts.SoldTo.AttentionName", 35)
	if sold.country != "" && sold.country != to.country {
		c.invalid(where+".Contacts.SoldTo.Address.CountryCode", "must be the ShipTo country")
	}
	products := c.array(f, where, "Product")
	if products != nil && len(products) == 0 {
		c.missing(where + ".Product")
	}
	for i, p := range products {
		at := fmt.Sprintf("%s.Product[%d]", where, i)
		c.stringArray(p, at, "Description", 3, 35)
		if n := c.str(p, at, "Unit.Number", 7); n != "" && !isDigits(n) {
			c.invalid(at+".Unit.Number", "must be numeric")
		}
		c.str(p, at, "Unit.UnitOfMeasurement.Code", 3)
		c.positive(p, at, "Unit.Value", 19)
		c.str(p, at, "PartNumber", 35)
		if cc, ok := c.optStr(p, at, "CommodityCode", 15); ok && (len(cc) < 6 || !isDigits(cc)) {
			c.invalid(at+".CommodityCode", "6 to 15 digits")
		}
		if oc, ok := c.optStr(p, at, "OriginCountryCode", 2); ok && !country2.MatchString(oc) {
			c.invalid(at+".OriginCountryCode", "not a country code")
		}
		inv.products = append(inv.products, productDescription(p))
	}
	return inv
}

func partyName(sh any, path string) string {
	n, _ := lookup(sh, path+".Name")
	s, _ := n.(string)
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// trackingNumber builds a 1Z number: "1Z", the shipper number, the
// service code, a 7-digit package number and the UPS check digit.
func trackingNumber(account, service string, seq int) string {
	body := fmt.Sprintf("%s%s%07d", account, service, seq%10_000_000)
	sum := 0
	for i, r := range body {
		var d int
		if r >= '0' && r <= '9' {
			d = int(r - '0')
		} else {
			d = (int(r) - 63) % 10
		}
		if i%2 == 1 {
			d *= 2
		}
		sum += d
	}
	return "1Z" + body + strconv.Itoa((10-sum%10)%10)
}

var oneZ = regexp.MustCompile(`^1Z[0-9A-Z]{16}$`)

// void is DELETE /api/shipments/{version}/void/cancel/{shipmentidentificationnumber}.
func (s *Server) void(w http.ResponseWriter, r *http.Request, _ []byte) {
	if v := r.PathValue("version"); v != "v2409" {
		writeErrors(w, http.StatusBadRequest, apiError{codeInvalid, fmt.Sprintf("The field, version, contains invalid data, %q.", v)})
		return
	}
	id := r.PathValue("id")
	if !oneZ.MatchString(id) {
		writeErrors(w, http.StatusBadRequest, apiError{"190100", "Invalid ShipmentIdentificationNumber."})
		return
	}
	if tn := r.URL.Query().Get("trackingnumber"); tn != "" && tn != id {
		writeErrors(w, http.StatusBadRequest, apiError{"190109", "Invalid TrackingNumber"})
		return
	}
	if refused(w, s.sales.Void(id, accountOf(r), nil), map[error]apiError{
		fakekit.ErrNotSold: {"190102", "No shipment found within the allowed void period"},
		fakekit.ErrVoided:  {"190117", "The Shipment has already been voided"},
	}) {
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"VoidShipmentResponse": map[string]any{
		"Response":      success(),
		"SummaryResult": map[string]any{"Status": map[string]string{"Code": "1", "Description": "Voided"}},
	}})
}

// shipment is a label the fake sold. Its Sale's Account is the shipper
// number that bought it: only its client may void it; voiding the
// shipment voids every package.
type shipment struct {
	fakekit.Sale
	service    fakeService
	from, to   addr
	trackCalls int
	label      []byte // the GIF sold, for Label Recovery
}

// maxPackages is the most packages of one shipment (Shipping.yaml
// ShipmentRequest/Shipment/Package: maximum 200).
const maxPackages = 200

// Pieces are the tracking numbers of the packages of the shipment sold as
// trackingNumber, and whether it is void (voiding the shipment voids every
// package); nil when the fake sold no such shipment.
func (s *Server) Pieces(trackingNumber string) ([]string, bool) {
	return s.sales.Pieces(trackingNumber)
}
