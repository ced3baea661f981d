package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Buy creates the order of one shipment for the rate's service and
// returns its label (POST /orders): a PDF or a ZPL label of the size
// asked, as DHL draws it, and for Paket International across a customs
// border its CN23. A return label is the Returns API's (returns.go).
//
// DHL has no idempotency key, and no lookup of an order by reference (the
// package doc): the shipd shipment id goes in refNo, printed on the label
// and shown in the business customer portal, so that a duplicate can be
// found and deleted there.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	if err := ctx.Err(); err != nil {
		return carriers.Label{}, err
	}
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, rejected(opBuy, "the purchase has no reference")
	}
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return carriers.Label{}, rejected(opBuy, "DHL Paket has no service %q", carriers.Excerpt(req.Rate.Service))
	}
	s := req.Shipment
	if err := checkShipment(s); err != nil {
		return carriers.Label{}, err
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches DHL anyway.
	if err := carriers.CheckRequirements(carrierName, requirements(), svc.name, s); err != nil {
		return carriers.Label{}, err
	}
	if s.Return || svc.name == returnService.name {
		return c.buyReturn(ctx, req, svc, ref) // returns.go
	}
	if carriers.NormalizeCountry(s.From.Country) != "DE" {
		return carriers.Label{}, rejected(opBuy, "DHL Paket ships from Germany only, not from %s", carriers.Excerpt(carriers.NormalizeCountry(s.From.Country)))
	}
	if !svc.serves(s) {
		return carriers.Label{}, rejected(opBuy, "DHL's %s does not take this parcel to %s (its route, weight or size)", svc.name,
			carriers.Excerpt(carriers.NormalizeCountry(s.To.Country)))
	}
	if s.Options.SignatureConfirmation && svc.code != codePaket {
		return carriers.Label{}, rejected(opBuy, "DHL's signature service (signedForByRecipient) is Paket's only, not %s's", svc.name)
	}
	query, err := labelQuery(req.Format(), req.Size())
	if err != nil {
		return carriers.Label{}, err
	}
	body, err := c.order(s, svc, ref)
	if err != nil {
		return carriers.Label{}, err
	}
	a, err := c.do(ctx, apiRequest{op: opBuy, method: http.MethodPost, path: shippingPath + "/orders", query: query, body: body})
	if err != nil {
		return carriers.Label{}, c.scrub(err)
	}
	if !a.ok() {
		return carriers.Label{}, c.scrub(c.failure(opBuy, a))
	}
	label, err := parseOrderAnswer(a.status, a.body, req.Format())
	return label, c.scrub(err)
}

// Print formats (printFormat) of the label sizes shipd offers, as the
// Shipping API describes them: 910-300-400, the thermal label of 103 x 150
// mm, is the 4x6 inch label (PDF or ZPL); 910-300-300, 105 x 148 mm, is
// A6; A4 the office page. A US letter page DHL does not print.
var printFormats = map[carriers.LabelSize]string{
	carriers.Label4x6: "910-300-400",
	carriers.LabelA6:  "910-300-300",
	carriers.LabelA4:  "A4",
}

// labelQuery are the query parameters of an order's label: its format
// (docFormat PDF or ZPL2) and its print format, included in the answer
// (includeDocs), and only for an address DHL can encode (mustEncode: a
// German consignee DHL cannot read is refused, not printed with a
// warning).
func labelQuery(f carriers.LabelFormat, size carriers.LabelSize) (url.Values, error) {
	pf, ok := printFormats[size]
	if !ok {
		return nil, rejected(opBuy, "DHL prints no %s label: 4x6, a6 or a4", carriers.Excerpt(string(size)))
	}
	q := url.Values{"includeDocs": {"include"}, "mustEncode": {"true"}, "printFormat": {pf}}
	switch f {
	case carriers.LabelPDF:
		q.Set("docFormat", "PDF")
	case carriers.LabelZPL:
		if size != carriers.Label4x6 {
			return nil, rejected(opBuy, "a ZPL label is a 4x6 label, not %s", carriers.Excerpt(string(size)))
		}
		q.Set("docFormat", "ZPL2")
	default:
		return nil, rejected(opBuy, "DHL draws no %s label: PDF or ZPL", carriers.Excerpt(string(f)))
	}
	return q, nil
}

// ShipmentOrderRequest (parcel-de-shipping-v2_2.yaml), one shipment.
type orderRequest struct {
	Profile   string          `json:"profile"`
	Shipments []orderShipment `json:"shipments"`
}

type orderShipment struct {
	Product       string          `json:"product"`
	BillingNumber string          `json:"billingNumber"`
	RefNo         string          `json:"refNo,omitempty"`
	ShipDate      string          `json:"shipDate"`
	Shipper       contactAddress  `json:"shipper"`
	Consignee     contactAddress  `json:"consignee"`
	Details       shipmentDetails `json:"details"`
	Services      *vas            `json:"services,omitempty"`
	Customs       *customsDetails `json:"customs,omitempty"` // customs.go
}

// contactAddress is the Shipping API's Shipper and ContactAddress (a
// consignee at the door): the shipper's has no phone, nor additional
// address lines, nor state.
type contactAddress struct {
	Name1                         string `json:"name1"`
	Name2                         string `json:"name2,omitempty"`
	AddressStreet                 string `json:"addressStreet"`
	AddressHouse                  string `json:"addressHouse,omitempty"`
	AdditionalAddressInformation1 string `json:"additionalAddressInformation1,omitempty"`
	PostalCode                    string `json:"postalCode,omitempty"`
	City                          string `json:"city"`
	State                         string `json:"state,omitempty"`
	Country                       string `json:"country"`
	Phone                         string `json:"phone,omitempty"`
	Email                         string `json:"email,omitempty"`
}

type shipmentDetails struct {
	Dim    *dimensions `json:"dim,omitempty"`
	Weight weight      `json:"weight"`
}

type dimensions struct {
	UOM    string `json:"uom"`
	Height int    `json:"height"`
	Length int    `json:"length"`
	Width  int    `json:"width"`
}

type weight struct {
	UOM   string `json:"uom"`
	Value int    `json:"value"`
}

// vas are the value added services shipd orders.
type vas struct {
	SignedForByRecipient   bool   `json:"signedForByRecipient,omitempty"`
	Endorsement            string `json:"endorsement,omitempty"`
	PostalDeliveryDutyPaid bool   `json:"postalDeliveryDutyPaid,omitempty"`
}

// order is the order of one shipment of svc, booked on the product's
// billing number, with the shipd shipment id as refNo.
func (c *Carrier) order(s carriers.Shipment, svc service, ref string) (orderRequest, error) {
	to := carriers.NormalizeCountry(s.To.Country)
	consignee, err := address(opBuy, "toAddress", s.To)
	if err != nil {
		return orderRequest{}, err
	}
	shipper, err := address(opBuy, "fromAddress", s.From)
	if err != nil {
		return orderRequest{}, err
	}
	// The shipper has no phone, no second street line and no state in the
	// document; a consignee's phone is not transmitted within Germany
	// ("For shipments within Germany, the phone number cannot be
	// transmitted").
	shipper.Phone, shipper.AdditionalAddressInformation1, shipper.State = "", "", ""
	if to == "DE" {
		consignee.Phone = ""
	}
	sh := orderShipment{
		Product: svc.code, BillingNumber: c.billingNumber(svc), RefNo: refNo(ref), ShipDate: c.shipDate(s),
		Shipper: shipper, Consignee: consignee,
		Details: shipmentDetails{Weight: weight{UOM: "g", Value: grams(s.Parcel)}},
	}
	if m := carriers.MetricOf(s.Parcel); m.LengthCm > 0 && m.WidthCm > 0 && m.HeightCm > 0 {
		sh.Details.Dim = &dimensions{UOM: "cm", Length: cm(m.LengthCm), Width: cm(m.WidthCm), Height: cm(m.HeightCm)}
	}
	var services vas
	if s.Options.SignatureConfirmation {
		services.SignedForByRecipient = true
	}
	if carriers.CustomsRequired(s.From, s.To) {
		sh.Customs = customsOf(s.Customs, ref) // customs.go
		services.Endorsement = endorsement(s.Customs)
		services.PostalDeliveryDutyPaid = s.Customs.DDP()
	}
	if services != (vas{}) {
		sh.Services = &services
	}
	return orderRequest{Profile: profile, Shipments: []orderShipment{sh}}, nil
}

// refNo is the order's reference: the shipd shipment id ("at least 8
// characters long and unique" to be searchable; at most 35).
func refNo(ref string) string {
	ref = cut(ref, 35)
	if len(ref) < 8 {
		return ""
	}
	return ref
}

// address is a shipd address as the Shipping API's ContactAddress: the
// name lines, the street parted from its house number, the country's
// three letters. field names it in a refusal.
func address(op, field string, a carriers.Address) (contactAddress, error) {
	country := iso3(a.Country)
	if country == "" {
		return contactAddress{}, rejected(op, "%s.country %q is no country DHL knows", field, carriers.Excerpt(a.Country))
	}
	name1, name2 := names(a)
	street, house := splitStreet(a.Street1)
	out := contactAddress{
		Name1: cut(name1, 50), Name2: cut(name2, 50),
		AddressStreet: cut(street, 50), AddressHouse: house,
		AdditionalAddressInformation1: cut(a.Street2, 60),
		PostalCode:                    strings.ToUpper(strings.TrimSpace(a.Zip)),
		City:                          cut(a.City, 40), Country: country,
	}
	if st := strings.ToUpper(strings.TrimSpace(a.State)); st != "" {
		// "For the USA please use the official regional ISO-Codes, e.g.
		// US-AL"; elsewhere the state as given.
		if carriers.NormalizeCountry(a.Country) == "US" && !strings.Contains(st, "-") {
			st = "US-" + st
		}
		out.State = cut(st, 20)
	}
	if p := strings.TrimSpace(a.Phone); p != "" && len([]rune(p)) <= 20 {
		out.Phone = p
	}
	if e := strings.TrimSpace(a.Email); len(e) >= 3 && len([]rune(e)) <= 80 {
		out.Email = e
	}
	return out, nil
}

// LabelDataResponse (parcel-de-shipping-v2_2.yaml), as far as shipd reads it.
type labelDataResponse struct {
	Status *status     `json:"status"`
	Items  []orderItem `json:"items"`
}

// orderItem is a ResponseItem: its fields spelt out rather than an item
// embedded, so that a decoding error names the answer's fields alone.
type orderItem struct {
	ShipmentNo         string              `json:"shipmentNo"`
	Sstatus            status              `json:"sstatus"`
	ValidationMessages []validationMessage `json:"validationMessages"`
	Label              *document           `json:"label"`
	CustomsDoc         *document           `json:"customsDoc"`
}

func (o orderItem) item() item {
	return item{ShipmentNo: o.ShipmentNo, Sstatus: o.Sstatus, ValidationMessages: o.ValidationMessages}
}

// document is the Document of a label or a form: base64 (b64, a PDF) or
// ZPL text (zpl2), or a URL shipd never asks for.
type document struct {
	B64        string `json:"b64"`
	ZPL2       string `json:"zpl2"`
	URL        string `json:"url"`
	FileFormat string `json:"fileFormat"`
}

// parseOrderAnswer reads an order's 2xx answer: its one item's shipment
// number and label in format f, and its customs document when it has one.
// An item DHL refused is a refusal; a shipment sold whose label cannot be
// used is carriers.Unusable, so that it is deleted.
func parseOrderAnswer(httpStatus int, body []byte, f carriers.LabelFormat) (carriers.Label, error) {
	var r labelDataResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, malformed(opBuy, httpStatus, "the order answer is not the documented JSON: %v", err)
	}
	if len(r.Items) == 0 {
		return carriers.Label{}, malformed(opBuy, httpStatus, "the order answer has no item")
	}
	it := r.Items[0]
	if code := it.Sstatus.code(); code >= 300 {
		return carriers.Label{}, &carriers.Error{Carrier: carrierName, Operation: opBuy, HTTPStatus: code, Kind: carriers.ErrRejected,
			Message: carriers.Excerpt(it.item().message())}
	}
	tn := carriers.NormalizeTrackingNumber(it.ShipmentNo)
	if tn == "" {
		return carriers.Label{}, malformed(opBuy, httpStatus, "the order answer has no shipmentNo")
	}
	sold := carriers.Label{TrackingNumber: tn}
	doc, err := labelDocument(httpStatus, it.Label, f, tn)
	if err != nil {
		return carriers.Label{}, carriers.Unusable(sold, err)
	}
	label := carriers.Label{TrackingNumber: tn, Document: doc, Format: f}
	if it.CustomsDoc != nil && strings.TrimSpace(it.CustomsDoc.B64) != "" {
		cn23, err := pdfOf(httpStatus, it.CustomsDoc.B64, "the customs document of "+tn)
		if err != nil {
			return carriers.Label{}, carriers.Unusable(sold, err)
		}
		label.CustomsDocument = cn23
	}
	return label, nil
}

// labelDocument is a label of format f: a base64 PDF, or ZPL as text
// (DHL sends ZPL in zpl2, "text for ZPL"; b64 is read too).
func labelDocument(httpStatus int, d *document, f carriers.LabelFormat, tn string) ([]byte, error) {
	if d == nil || strings.TrimSpace(d.B64) == "" && strings.TrimSpace(d.ZPL2) == "" {
		return nil, malformed(opBuy, httpStatus, "the label of %s is missing (no b64 or zpl2)", tn)
	}
	want := map[carriers.LabelFormat]string{carriers.LabelPDF: "PDF", carriers.LabelZPL: "ZPL2"}[f]
	if ff := strings.ToUpper(strings.TrimSpace(d.FileFormat)); ff != "" && ff != want {
		return nil, malformed(opBuy, httpStatus, "the label of %s is %s, not the %s asked for", tn, carriers.Excerpt(ff), f)
	}
	if f == carriers.LabelZPL {
		zpl := []byte(d.ZPL2)
		if strings.TrimSpace(d.ZPL2) == "" {
			var err error
			if zpl, err = decodeBase64(httpStatus, d.B64, "the label of "+tn); err != nil {
				return nil, err
			}
		}
		if err := carriers.CheckZPL(zpl); err != nil {
			return nil, malformed(opBuy, httpStatus, "the label of %s: %v", tn, err)
		}
		return zpl, nil
	}
	if strings.TrimSpace(d.B64) == "" {
		return nil, malformed(opBuy, httpStatus, "the label of %s is ZPL, not the PDF asked for", tn)
	}
	return pdfOf(httpStatus, d.B64, "the label of "+tn)
}

// pdfOf decodes a base64 PDF, bounded before it is decoded.
func pdfOf(httpStatus int, b64, what string) ([]byte, error) {
	pdf, err := decodeBase64(httpStatus, b64, what)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, malformed(opBuy, httpStatus, "%s is not a PDF", what)
	}
	return pdf, nil
}

// decodeBase64 decodes a document's base64, refusing one larger than any
// label before decoding it; white space (line breaks) is dropped first.
func decodeBase64(httpStatus int, b64, what string) ([]byte, error) {
	b64 = strings.Join(strings.Fields(b64), "")
	if err := carriers.CheckLabelBase64(b64); err != nil {
		return nil, malformed(opBuy, httpStatus, "%s: %v", what, err)
	}
	out, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, malformed(opBuy, httpStatus, "%s is not base64", what)
	}
	return out, nil
}
