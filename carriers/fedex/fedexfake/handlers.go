package fedexfake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// fakeService is one service the fake quotes: a price that grows with the
// billable weight, and how its transit time is reported.
type fakeService struct {
	code, name string
	intl       bool
	base       int64 // cents
	perLb      int64 // cents per billable pound
	// transitTime goes in operationalDetail.transitTime (as FedEx does for
	// Ground), daysInTransit in commit.daysInTransit; "" for neither.
	transitTime, daysInTransit string
	// commitDays, when set, dates commit.dateDetail.dayFormat that many
	// days after the ship date, as FedEx does for Express services.
	commitDays int
}

// fakeServices are real FedEx service types (U.S. Region Service List).
// SMART_POST is quoted too, as FedEx does for accounts enabled for it.
var fakeServices = []fakeService{
	{code: "FEDEX_GROUND", name: "FedEx Ground®", base: 1089, perLb: 112, transitTime: "THREE_DAYS"},
	{code: "GROUND_HOME_DELIVERY", name: "FedEx Home Delivery®", base: 1149, perLb: 112, transitTime: "THREE_DAYS"},
	{code: "FEDEX_EXPRESS_SAVER", name: "FedEx Express Saver®", base: 2134, perLb: 287, commitDays: 3},
	{code: "FEDEX_2_DAY", name: "FedEx 2Day®", base: 2875, perLb: 341, daysInTransit: "TWO_DAYS", commitDays: 2},
	{code: "STANDARD_OVERNIGHT", name: "FedEx Standard Overnight®", base: 5210, perLb: 498, commitDays: 1},
	{code: "PRIORITY_OVERNIGHT", name: "FedEx Priority Overnight®", base: 5890, perLb: 512, commitDays: 1},
	{code: "SMART_POST", name: "FedEx Ground® Economy", base: 899, perLb: 95},
	{code: "INTERNATIONAL_ECONOMY", name: "FedEx International Economy®", intl: true, base: 6512, perLb: 874, transitTime: "FIVE_DAYS"},
	{code: "FEDEX_INTERNATIONAL_PRIORITY", name: "FedEx International Priority®", intl: true, base: 7934, perLb: 1021, commitDays: 3},
}

// Surcharges, in cents.
const (
	residentialSurcharge = 595
	signatureSurcharge   = 750
)

func serviceByCode(code string) (fakeService, bool) {
	i := slices.IndexFunc(fakeServices, func(f fakeService) bool { return f.code == code })
	if i < 0 {
		return fakeService{}, false
	}
	return fakeServices[i], true
}

// billableLB is the larger of the actual and the dimensional weight (139
// cubic inches per pound), rounded up to whole pounds as FedEx bills.
func billableLB(items []packageLineItem) int64 {
	var total float64
	for _, it := range items {
		n := 1.0
		if it.GroupPackageCount != nil && *it.GroupPackageCount > 1 {
			n = float64(*it.GroupPackageCount)
		}
		lb := *it.Weight.Value
		if *it.Weight.Units == "KG" {
			lb *= 2.20462
		}
		if d := it.Dimensions; d != nil && *d.Units == "IN" {
			lb = math.Max(lb, float64(*d.Length**d.Width**d.Height)/139)
		}
		total += n * math.Ceil(lb-1e-9)
	}
	return int64(total)
}

// priceCents prices a service: base + per pound, plus surcharges.
func priceCents(svc fakeService, lbs int64, residential, signature bool) int64 {
	c := svc.base + svc.perLb*lbs
	if residential {
		c += residentialSurcharge
	}
	if signature {
		c += signatureSurcharge
	}
	return c
}

// amount writes cents as a JSON number with two decimals, as FedEx does.
func amount(cents int64) json.Number {
	return json.Number(fmt.Sprintf("%d.%02d", cents/100, cents%100))
}

func hasSignature(items []packageLineItem) bool {
	for _, it := range items {
		if ss := it.PackageSpecialServices; ss != nil && ss.SignatureOptionType != "" &&
			ss.SignatureOptionType != "SERVICE_DEFAULT" && ss.SignatureOptionType != "NO_SIGNATURE_REQUIRED" {
			return true
		}
	}
	return false
}

func (s *Server) rate(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req rateRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the rate schema: " + err.Error()})
		return
	}
	var p problems
	p.account(req.AccountNumber)
	rs := req.RequestedShipment
	if rs == nil {
		p.add("requestedShipment is required")
		invalid(w, p)
		return
	}
	for _, party := range []struct {
		path string
		rp   *rateParty
	}{{"requestedShipment.shipper", rs.Shipper}, {"requestedShipment.recipient", rs.Recipient}} {
		if party.rp == nil || party.rp.Address == nil {
			p.add("%s.address is required", party.path)
			continue
		}
		a := party.rp.Address
		p.required(party.path+".address.postalCode", a.PostalCode)
		p.country(party.path+".address", a.CountryCode, a.StateOrProvinceCode, a.PostalCode)
	}
	p.enum("requestedShipment.pickupType", rs.PickupType, pickupTypes)
	if rs.PackagingType != "" {
		p.enum("requestedShipment.packagingType", rs.PackagingType, packagingTypes)
	}
	for i, t := range rs.RateRequestType {
		p.enum(fmt.Sprintf("requestedShipment.rateRequestType[%d]", i), t, rateRequestTypes)
	}
	if rs.ShipDateStamp != "" {
		p.date("requestedShipment.shipDateStamp", rs.ShipDateStamp)
	}
	p.lineItems("requestedShipment.requestedPackageLineItems", rs.RequestedPackageLineItems)
	intl := rs.Shipper != nil && rs.Shipper.Address != nil && rs.Recipient != nil && rs.Recipient.Address != nil &&
		rs.Shipper.Address.CountryCode != rs.Recipient.Address.CountryCode
	if intl {
		if cc := rs.CustomsClearanceDetail; cc == nil {
			p.add("requestedShipment.customsClearanceDetail is required for an international shipment")
		} else {
			p.commodities("requestedShipment.customsClearanceDetail.commodities", cc.Commodities)
			if cc.CommercialInvoice != nil && cc.CommercialInvoice.ShipmentPurpose != "" {
				p.enum("requestedShipment.customsClearanceDetail.commercialInvoice.shipmentPurpose", cc.CommercialInvoice.ShipmentPurpose, shipmentPurposes)
			}
		}
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if req.AccountNumber.Value != AccountNumber {
		writeAccountError(w)
		return
	}

	if rs.EdtRequestType != "" {
		p.enum("requestedShipment.edtRequestType", rs.EdtRequestType, []string{"ALL", "NONE"})
		if len(p) > 0 {
			invalid(w, p)
			return
		}
	}
	duties, alerts := estimatedDuties(rs.EdtRequestType, intl, rs.CustomsClearanceDetail)
	lbs := billableLB(rs.RequestedPackageLineItems)
	residential := rs.Recipient.Address.Residential != nil && *rs.Recipient.Address.Residential
	signature := hasSignature(rs.RequestedPackageLineItems)
	var details []map[string]any
	for _, svc := range fakeServices {
		if svc.intl != intl || rs.ServiceType != "" && rs.ServiceType != svc.code {
			continue
		}
		// FedEx quotes Home Delivery to homes and Ground to businesses.
		if svc.code == "FEDEX_GROUND" && residential || svc.code == "GROUND_HOME_DELIVERY" && !residential {
			continue
		}
		net := priceCents(svc, lbs, residential, signature)
		list := net + net/4
		rated := func(rateType string, cents int64) map[string]any {
			r := map[string]any{
				"rateType": rateType, "ratedWeightMethod": "ACTUAL",
				"totalBaseCharge": amount(svc.base + svc.perLb*lbs), "totalNetCharge": amount(cents),
				"totalNetFedExCharge": amount(cents), "totalNetChargeWithDutiesAndTaxes": amount(cents + max(duties, 0)),
				"shipmentRateDetail": map[string]any{
					"rateZone": "05", "currency": "USD",
					"totalBillingWeight": map[string]any{"units": "LB", "value": lbs},
				},
				"currency": "USD",
			}
			if duties >= 0 { // numbers, as the documented answers write these totals
				r["totalDutiesAndTaxes"], r["totalDutiesTaxesAndFees"] = amount(duties), amount(duties)
			}
			return r
		}
		d := map[string]any{
			"serviceType": svc.code, "serviceName": svc.name, "packagingType": "YOUR_PACKAGING",
			// LIST first: a client must pick its ACCOUNT rate, not the first one.
			"ratedShipmentDetails": []any{rated("LIST", list), rated("ACCOUNT", net)},
			"serviceDescription":   map[string]any{"serviceType": svc.code, "description": svc.name},
			"signatureOptionType":  "SERVICE_DEFAULT",
		}
		if svc.transitTime != "" {
			d["operationalDetail"] = map[string]any{"transitTime": svc.transitTime, "ineligibleForMoneyBackGuarantee": false}
		}
		commit := map[string]any{}
		if svc.daysInTransit != "" {
			commit["daysInTransit"], commit["saturdayDelivery"] = svc.daysInTransit, false
		}
		if ship, err := time.Parse(time.DateOnly, rs.ShipDateStamp); err == nil && svc.commitDays > 0 {
			at := ship.AddDate(0, 0, svc.commitDays).Add(10*time.Hour + 30*time.Minute)
			commit["dateDetail"] = map[string]any{"dayOfWeek": strings.ToUpper(at.Weekday().String()[:3]), "dayFormat": at.Format("2006-01-02T15:04:05")}
		}
		if len(commit) > 0 {
			d["commit"] = commit
		}
		details = append(details, d)
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId": newTransactionID(),
		"output": map[string]any{
			"rateReplyDetails": details,
			"quoteDate":        s.Now().UTC().Format("2006-01-02"),
			"encoded":          false,
			"alerts":           alerts,
		},
	})
}

// DutyRatePercent is the fake's estimate of duties and taxes: this share of
// the commodities' customs value, when every commodity has a harmonized code.
const DutyRatePercent = 12

// estimatedDuties is the fake's answer to edtRequestType ALL for an
// international shipment: the duties and taxes in cents, or -1 (none
// estimated) with the alert FedEx gives when a commodity has no harmonized
// code. FedEx estimates them for whoever pays; the sender's when DDP.
func estimatedDuties(edt string, intl bool, cc *rateCustoms) (int64, []any) {
	if edt != "ALL" || !intl || cc == nil {
		return -1, []any{}
	}
	var value float64
	for i, c := range cc.Commodities {
		if strings.TrimSpace(c.HarmonizedCode) == "" {
			return -1, []any{map[string]any{"code": "EDT.DETAILS.MISSING", "alertType": "NOTE",
				"message": fmt.Sprintf("The harmonized code for the commodity at array index %d is missing or invalid; estimated duties and taxes were not returned.", i)}}
		}
		if c.CustomsValue != nil && c.CustomsValue.Amount != nil {
			value += *c.CustomsValue.Amount
		}
	}
	return int64(math.Round(value*100)) * DutyRatePercent / 100, []any{}
}

func writeAccountError(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, codeAccount,
		"Please enter a valid 9-digit FedEx account number or register for a new FedEx account number.")
}

// shipment is a label the fake sold; the master's cancellation
// (DELETE_ALL_PACKAGES) cancels every piece.
type shipment struct {
	fakekit.Sale
	serviceType string
	from, to    place
	trackCalls  int
	events      []event // oldest first
	closed      bool    // covered by an end of day close
}

// Pieces are the tracking numbers of the packages of the shipment whose
// master is trackingNumber, and whether it is cancelled; nil when the fake
// sold no such shipment.
func (s *Server) Pieces(trackingNumber string) ([]string, bool) {
	return s.sales.Pieces(trackingNumber)
}

type place struct{ city, state, country string }

func (p place) json() map[string]any {
	return map[string]any{"city": p.city, "stateOrProvinceCode": p.state, "countryCode": p.country}
}

type event struct {
	at          time.Time
	code, desc  string
	where       place
	derivedCode string
}

func (s *Server) ship(w http.ResponseWriter, r *http.Request, body []byte) {
	var req shipRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the ship schema: " + err.Error()})
		return
	}
	var p problems
	txID := r.Header.Get("x-customer-transaction-id")
	if txID == "" {
		// Optional for FedEx; a client without idempotency keys must send it
		// to tie a label to its order.
		p.add("header x-customer-transaction-id is required")
	}
	p.account(req.AccountNumber)
	p.enum("labelResponseOptions", req.LabelResponseOptions, labelResponseOpts)
	rs := req.RequestedShipment
	if rs == nil {
		p.add("requestedShipment is required")
		invalid(w, p)
		return
	}
	if rs.ShipDatestamp != "" {
		p.date("requestedShipment.shipDatestamp", rs.ShipDatestamp)
	}
	p.shipParty("requestedShipment.shipper", rs.Shipper)
	if len(rs.Recipients) != 1 {
		p.add("requestedShipment.recipients must have one recipient")
	}
	for i := range rs.Recipients {
		p.shipParty(fmt.Sprintf("requestedShipment.recipients[%d]", i), &rs.Recipients[i])
	}
	p.enum("requestedShipment.pickupType", rs.PickupType, pickupTypes)
	svc, known := serviceByCode(rs.ServiceType)
	if !known {
		p.add("requestedShipment.serviceType %q is not a service the fake sells", rs.ServiceType)
	}
	p.enum("requestedShipment.packagingType", rs.PackagingType, packagingTypes)
	if rs.TotalWeight == nil || *rs.TotalWeight <= 0 {
		p.add("requestedShipment.totalWeight is required")
	}
	if rs.ShippingChargesPayment == nil {
		p.add("requestedShipment.shippingChargesPayment is required")
	} else {
		p.enum("requestedShipment.shippingChargesPayment.paymentType", rs.ShippingChargesPayment.PaymentType, paymentTypes)
	}
	if ls := rs.LabelSpecification; ls == nil {
		p.add("requestedShipment.labelSpecification is required")
	} else {
		p.enum("requestedShipment.labelSpecification.imageType", ls.ImageType, imageTypes)
		p.enum("requestedShipment.labelSpecification.labelStockType", ls.LabelStockType, labelStockTypes)
		if ls.ImageType == "PDF" && !slices.Contains(paperStocks, ls.LabelStockType) {
			p.add("requestedShipment.labelSpecification.labelStockType %s is a thermal stock; PDF takes a PAPER_ stock", ls.LabelStockType)
		}
		if ls.ImageType == "PNG" && !slices.Contains(paperStocks, ls.LabelStockType) {
			p.add("requestedShipment.labelSpecification.labelStockType %s is a thermal stock; PNG takes a PAPER_ stock", ls.LabelStockType)
		}
		if ls.ImageType == "ZPLII" && slices.Contains(paperStocks, ls.LabelStockType) {
			p.add("requestedShipment.labelSpecification.labelStockType %s is a paper stock; ZPLII takes a STOCK_ stock", ls.LabelStockType)
		}
		if ls.ImageType == "EPL2" {
			p.add("the fake renders PDF, PNG and ZPLII labels only")
		}
	}
	p.lineItems("requestedShipment.requestedPackageLineItems", rs.RequestedPackageLineItems)
	// A return: RETURN_SHIPMENT with its returnShipmentDetail; the fake
	// sells printed return labels (PRINT_RETURN_LABEL) only.
	isReturn := false
	if ss := rs.ShipmentSpecialServices; ss != nil {
		isReturn = slices.Contains(ss.SpecialServiceTypes, "RETURN_SHIPMENT")
		switch {
		case isReturn && ss.ReturnShipmentDetail == nil:
			p.add("requestedShipment.shipmentSpecialServices.returnShipmentDetail is required with RETURN_SHIPMENT")
		case isReturn && ss.ReturnShipmentDetail.ReturnType != "PRINT_RETURN_LABEL":
			p.add("requestedShipment.shipmentSpecialServices.returnShipmentDetail.returnType %q: the fake sells PRINT_RETURN_LABEL only", ss.ReturnShipmentDetail.ReturnType)
		case !isReturn && ss.ReturnShipmentDetail != nil:
			p.add("requestedShipment.shipmentSpecialServices.returnShipmentDetail needs RETURN_SHIPMENT in specialServiceTypes")
		}
	}
	if n := len(rs.RequestedPackageLineItems); n > 1 {
		// A single-shot multi-piece shipment: totalPackageCount counts the
		// packages, each numbered by its sequenceNumber.
		if rs.TotalPackageCount == nil || *rs.TotalPackageCount != n {
			p.add("requestedShipment.totalPackageCount must be the %d packages of a multi-piece shipment", n)
		}
		for i, it := range rs.RequestedPackageLineItems {
			if it.SequenceNumber == nil || *it.SequenceNumber != i+1 {
				p.add("requestedShipment.requestedPackageLineItems[%d].sequenceNumber must be %d", i, i+1)
			}
		}
	}
	intl := rs.Shipper != nil && rs.Shipper.Address != nil && len(rs.Recipients) == 1 && rs.Recipients[0].Address != nil &&
		rs.Shipper.Address.CountryCode != rs.Recipients[0].Address.CountryCode
	if known && svc.intl != intl {
		p.add("requestedShipment.serviceType %s is not offered between these countries", svc.code)
	}
	if intl {
		if cc := rs.CustomsClearanceDetail; cc == nil {
			p.add("requestedShipment.customsClearanceDetail is required for an international shipment")
		} else {
			if cc.CommercialInvoice == nil {
				p.add("requestedShipment.customsClearanceDetail.commercialInvoice is required")
			} else if cc.CommercialInvoice.ShipmentPurpose != "" {
				p.enum("requestedShipment.customsClearanceDetail.commercialInvoice.shipmentPurpose", cc.CommercialInvoice.ShipmentPurpose, shipmentPurposes)
			}
			if cc.DutiesPayment != nil {
				p.enum("requestedShipment.customsClearanceDetail.dutiesPayment.paymentType", cc.DutiesPayment.PaymentType, paymentTypes)
			}
			p.commodities("requestedShipment.customsClearanceDetail.commodities", cc.Commodities)
		}
	}
	inv := p.tradeDocuments(req) // customs.go
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if req.AccountNumber.Value != AccountNumber {
		writeAccountError(w)
		return
	}

	from, to := rs.Shipper, rs.Recipients[0]
	sh := &shipment{
		Sale:        fakekit.Sale{Account: req.AccountNumber.Value, Return: isReturn, SoldAt: s.Now()},
		serviceType: svc.code,
		from:        place{from.Address.City, from.Address.StateOrProvinceCode, from.Address.CountryCode},
		to:          place{to.Address.City, to.Address.StateOrProvinceCode, to.Address.CountryCode},
	}
	item := rs.RequestedPackageLineItems[0]
	for _, ref := range item.CustomerReferences {
		if ref.CustomerReferenceType == "CUSTOMER_REFERENCE" {
			sh.Reference = ref.Value
		}
	}
	s.mu.Lock()
	for range rs.RequestedPackageLineItems {
		sh.Pieces = append(sh.Pieces, strconv.FormatInt(s.nextTracking, 10))
		s.nextTracking++
	}
	s.mu.Unlock()
	sh.TrackingNumber = sh.Pieces[0]
	s.sales.Sell(sh)

	pieces := make([]any, len(sh.Pieces))
	residential := to.Address.Residential != nil && *to.Address.Residential
	for i, it := range rs.RequestedPackageLineItems {
		tn := sh.Pieces[i]
		doc := map[string]any{
			"contentType": "LABEL", "copiesToPrint": 1, "docType": rs.LabelSpecification.ImageType, "trackingNumber": tn,
		}
		if req.LabelResponseOptions == "LABEL" {
			in := labelInput{
				trackingNumber: tn, service: svc.name,
				from: *from.Address, fromContact: *from.Contact, to: *to.Address, toContact: *to.Contact,
				weightLB: *it.Weight.Value, reference: sh.Reference,
				letter: strings.HasPrefix(rs.LabelSpecification.LabelStockType, "PAPER_85X11"),
			}
			render := renderLabel
			switch rs.LabelSpecification.ImageType {
			case "PNG":
				render = renderPNG
			case "ZPLII":
				render = renderZPL
			}
			pdf, err := render(in)
			if err != nil {
				writeError(w, http.StatusInternalServerError, "INTERNAL.SERVER.ERROR", "the fake could not render the label: "+err.Error())
				return
			}
			if given := s.givenLabelDocument(); given != nil { // labeldoc.go
				pdf = given
			}
			doc["encodedLabel"] = base64.StdEncoding.EncodeToString(pdf)
		} else {
			doc["url"] = s.URL() + "/document/v2/document/retrieve/SH," + tn + "_SHIPPING_P"
		}
		one := []packageLineItem{it}
		piece := map[string]any{
			"masterTrackingNumber":  sh.TrackingNumber,
			"trackingNumber":        tn,
			"packageSequenceNumber": i + 1,
			"netChargeAmount":       amount(priceCents(svc, billableLB(one), residential, hasSignature(one))),
			"packageDocuments":      []any{doc},
		}
		if len(it.CustomerReferences) > 0 {
			// ship-api.json: an array, never null.
			piece["customerReferences"] = it.CustomerReferences
		}
		pieces[i] = piece
	}
	lbs := billableLB(rs.RequestedPackageLineItems)
	net := priceCents(svc, lbs, residential, hasSignature(rs.RequestedPackageLineItems))
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId":         newTransactionID(),
		"customerTransactionId": txID,
		"output": map[string]any{
			"transactionShipments": []any{map[string]any{
				"masterTrackingNumber": sh.TrackingNumber,
				"serviceType":          svc.code,
				"serviceName":          svc.name,
				"shipDatestamp":        sh.SoldAt.UTC().Format("2006-01-02"),
				"shipmentDocuments":    inv.documents(sh.TrackingNumber), // customs.go
				"pieceResponses":       pieces,
				"completedShipmentDetail": map[string]any{
					"masterTrackingId": map[string]any{"trackingIdType": "FEDEX", "formId": "0201", "trackingNumber": sh.TrackingNumber},
					"shipmentRating": map[string]any{"shipmentRateDetails": []any{map[string]any{
						"rateType": "PAYOR_ACCOUNT_SHIPMENT", "totalNetCharge": amount(net), "currency": "USD",
					}}},
				},
				"alerts": []any{},
			}},
		},
	})
}

func (s *Server) cancel(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req cancelRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the cancel schema: " + err.Error()})
		return
	}
	var p problems
	p.account(req.AccountNumber)
	p.required("trackingNumber", req.TrackingNumber)
	if req.DeletionControl != "" {
		p.enum("deletionControl", req.DeletionControl, []string{"DELETE_ALL_PACKAGES"})
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	if req.AccountNumber.Value != AccountNumber {
		writeAccountError(w)
		return
	}
	err := s.sales.Void(req.TrackingNumber, "", func(sh *shipment) error {
		if sh.trackCalls >= 2 {
			return errPickedUp // FedEx has the parcel
		}
		return nil
	})
	switch {
	case errors.Is(err, fakekit.ErrNotSold):
		// The code FedEx documents for a tracking number it cannot find.
		writeError(w, http.StatusBadRequest, "TRACKINGNUMBER.ENTERED.INVALID",
			"Error with entered Tracking Number. Please verify the entered Tracking Number.")
	case errors.Is(err, fakekit.ErrVoided):
		// FedEx's OpenAPI documents no code for these refusals; the fake's
		// is illustrative.
		writeBody(w, http.StatusOK, CancelRefusedBody(CodeCancelNotAllowed, "The shipment has already been cancelled."))
	case errors.Is(err, errPickedUp):
		writeBody(w, http.StatusOK, CancelRefusedBody(CodeCancelNotAllowed, "The shipment cannot be cancelled: FedEx already has the package."))
	default:
		fakekit.WriteJSON(w, http.StatusOK, map[string]any{
			"transactionId": newTransactionID(),
			"output": map[string]any{
				"cancelledShipment": true, "cancelledHistory": true, "message": "Shipment is successfully cancelled",
			},
		})
	}
}

// errPickedUp refuses the cancellation of a shipment FedEx has picked up.
var errPickedUp = errors.New("fedexfake: the package was picked up")

func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// CodeCancelNotAllowed is the alert code of the fake's void refusal.
const CodeCancelNotAllowed = "SHIPMENT.CANCEL.NOTALLOWED"

// CodeTrackingNotFound is FedEx's per-number error for a number it does not know.
const CodeTrackingNotFound = "TRACKING.TRACKINGNUMBER.NOTFOUND"

// hub is where the fake's parcels go through.
var hub = place{"MEMPHIS", "TN", "US"}

// advance adds the scans of the next stage: 1 label created, 2 picked up
// and in transit, 3 out for delivery, 4 delivered. Each Track call moves a
// shipment on by one stage, so a poller sees movement. Scans are stamped
// with the time of the call that reveals them, a second apart and never
// before the previous scan, to whole seconds as FedEx writes them.
func (sh *shipment) advance(now time.Time) {
	at := now.Truncate(time.Second)
	add := func(code, derived, desc string, where place) {
		if n := len(sh.events); n > 0 && !at.After(sh.events[n-1].at) {
			at = sh.events[n-1].at.Add(time.Second)
		}
		sh.events = append(sh.events, event{at: at, code: code, derivedCode: derived, desc: desc, where: where})
	}
	if sh.State == fakekit.Voided {
		if len(sh.events) == 0 || sh.events[len(sh.events)-1].code != "CA" {
			add("CA", "CA", "Shipment cancelled by sender", sh.from)
		}
		return
	}
	sh.trackCalls++
	switch sh.trackCalls {
	case 1:
		at = sh.SoldAt.Truncate(time.Second)
		add("OC", "IN", "Shipment information sent to FedEx", sh.from)
	case 2:
		add("PU", "PU", "Picked up", sh.from)
		add("AR", "IT", "Arrived at FedEx location", hub)
		add("IT", "IT", "On the way", hub)
	case 3:
		add("OD", "OD", "On FedEx vehicle for delivery", sh.to)
	case 4:
		add("DL", "DL", "Delivered", sh.to)
	}
}

// zone is the offset the fake writes scan times in (US Central, standard time).
var zone = time.FixedZone("CST", -6*3600)

func (s *Server) track(w http.ResponseWriter, _ *http.Request, body []byte) {
	var req trackRequest
	if err := decodeStrict(body, &req); err != nil {
		invalid(w, []string{"the request does not match the track schema: " + err.Error()})
		return
	}
	var p problems
	if req.IncludeDetailedScans == nil {
		p.add("includeDetailedScans is required")
	}
	if len(req.TrackingInfo) == 0 || len(req.TrackingInfo) > 30 {
		p.add("trackingInfo needs 1 to 30 entries")
	}
	for _, ti := range req.TrackingInfo {
		if ti.TrackingNumberInfo == nil || strings.TrimSpace(ti.TrackingNumberInfo.TrackingNumber) == "" {
			// The documented 400 of the Track API.
			writeError(w, http.StatusBadRequest, "TRACKING.TRACKINGNUMBER.EMPTY", "Please provide tracking number.")
			return
		}
	}
	if len(p) > 0 {
		invalid(w, p)
		return
	}
	detailed := *req.IncludeDetailedScans
	var results []any
	now := s.Now()
	for _, ti := range req.TrackingInfo {
		tn := ti.TrackingNumberInfo.TrackingNumber
		var res map[string]any
		if !s.sales.With(tn, func(sh *shipment) {
			sh.advance(now)
			res = sh.trackResult(detailed)
		}) {
			res = map[string]any{
				"trackingNumberInfo": map[string]any{"trackingNumber": tn, "trackingNumberUniqueId": "", "carrierCode": ""},
				"error": map[string]any{"code": CodeTrackingNotFound,
					"message": "Tracking number cannot be found. Please correct the tracking number and try again."},
			}
		}
		results = append(results, map[string]any{"trackingNumber": tn, "trackResults": []any{res}})
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"transactionId": newTransactionID(),
		"output":        map[string]any{"completeTrackResults": results},
	})
}

// trackResult is the documented trackResults[] entry; scans newest first,
// as FedEx lists them. Called with the sales book locked.
func (sh *shipment) trackResult(detailed bool) map[string]any {
	last := sh.events[len(sh.events)-1]
	var scans []any
	for i := len(sh.events) - 1; i >= 0; i-- {
		e := sh.events[i]
		scans = append(scans, map[string]any{
			"date": e.at.In(zone).Format(time.RFC3339), "eventType": e.code, "eventDescription": e.desc,
			"derivedStatusCode": e.derivedCode, "derivedStatus": e.desc, "scanLocation": e.where.json(),
			"exceptionCode": "", "exceptionDescription": "", "locationType": "FEDEX_FACILITY",
		})
		if !detailed {
			break
		}
	}
	dates := []any{map[string]any{"type": "ACTUAL_PICKUP", "dateTime": sh.SoldAt.In(zone).Format("2006-01-02T15:04:05-07:00")}}
	if last.code == "DL" {
		dates = append(dates, map[string]any{"type": "ACTUAL_DELIVERY", "dateTime": last.at.In(zone).Format("2006-01-02T15:04:05-07:00")})
	} else if last.code != "CA" {
		eta := time.Date(sh.SoldAt.Year(), sh.SoldAt.Month(), sh.SoldAt.Day()+3, 20, 0, 0, 0, zone)
		dates = append(dates, map[string]any{"type": "ESTIMATED_DELIVERY", "dateTime": eta.Format("2006-01-02T15:04:05-07:00")})
	}
	return map[string]any{
		"trackingNumberInfo": map[string]any{"trackingNumber": sh.TrackingNumber, "carrierCode": "FDXE",
			"trackingNumberUniqueId": "12029~" + sh.TrackingNumber + "~FDEG"},
		"latestStatusDetail": map[string]any{"code": last.code, "derivedCode": last.derivedCode,
			"statusByLocale": last.desc, "description": last.desc, "scanLocation": last.where.json()},
		"serviceDetail":   map[string]any{"type": sh.serviceType},
		"dateAndTimes":    dates,
		"scanEvents":      scans,
		"availableImages": []any{},
		"packageDetails":  map[string]any{"count": strconv.Itoa(max(len(sh.Pieces), 1))},
		// A multi-piece shipment's master says it has associated shipments:
		// its children (trackAssociated).
		"additionalTrackingInfo": map[string]any{"hasAssociatedShipments": len(sh.Pieces) > 1},
		"shipperInformation":     map[string]any{"address": sh.from.json()},
		"recipientInformation":   map[string]any{"address": sh.to.json()},
	}
}
