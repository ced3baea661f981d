package dpd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// shipment is the META-API's Shipment (both documents): numberOfParcels,
// sender, receiver and parcel required.
type shipment struct {
	CustomerReferenceNumbers []string       `json:"customerReferenceNumbers,omitempty"`
	ShipmentInfos            shipmentInfos  `json:"shipmentInfos"`
	NumberOfParcels          string         `json:"numberOfParcels"`
	Sender                   party          `json:"sender"`
	Receiver                 party          `json:"receiver"`
	International            *international `json:"international,omitempty"`
	Parcel                   []parcel       `json:"parcel"`
	ShippingDate             string         `json:"shippingDate,omitempty"`
}

type shipmentInfos struct {
	ProductCode string `json:"productCode"`
}

// party is a Sender or Receiver (both closed objects in
// openapi_metaapi_shipping.yaml).
type party struct {
	CustomerInfos *customerInfos `json:"customerInfos,omitempty"`
	Address       address        `json:"address"`
	Contact       *contact       `json:"contact,omitempty"`
}

type customerInfos struct {
	CustomerID string `json:"customerID"`
}

// address is the META-API's Address: street, country, zipCode and city
// required.
type address struct {
	CompanyName  string `json:"companyName,omitempty"`
	Name1        string `json:"name1,omitempty"`
	Street       string `json:"street"`
	AddressLine2 string `json:"addressLine2,omitempty"`
	Country      string `json:"country"`
	State        string `json:"state,omitempty"`
	ZipCode      string `json:"zipCode"`
	City         string `json:"city"`
}

type contact struct {
	ContactPerson string `json:"contactPerson,omitempty"`
	Phone1        string `json:"phone1,omitempty"`
	Email         string `json:"email,omitempty"`
}

// parcel is the META-API's Parcel.
type parcel struct {
	ParcelInfos      parcelInfos `json:"parcelInfos"`
	ParcelRank       string      `json:"parcelRank,omitempty"`
	SenderParcelRefs []string    `json:"senderParcelRefs,omitempty"`
}

type parcelInfos struct {
	Dimensions *dimensions `json:"dimensions,omitempty"`
	// Weight is grams, "without decimal delimiter (e.g. 3000 equals 3kg)".
	Weight string `json:"weight"`
}

type dimensions struct {
	Length int `json:"length"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// shipmentAnswer is the META-API's ShipmentResponse.
type shipmentAnswer struct {
	ShipmentID string   `json:"shipmentId"`
	ParcelIDs  []string `json:"parcelIds"`
	Label      *struct {
		Base64Data string `json:"base64Data"`
	} `json:"label"`
}

// Buy creates the DPD shipment of the rate's product with its parcels
// (POST /shipping/v1/shipment) and returns the label DPD prints for them,
// one document: a PDF on A6 (4x6 stock takes it) or A4, or ZPL.
//
// The META-API has no idempotency key and no lookup by reference: the
// shipd shipment id goes as the customer reference (printed on the label
// where the BU prints one) and each piece's as its sender parcel
// reference, for DPD's and the shipper's records.
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
		return carriers.Label{}, rejected(opBuy, "DPD has no service %q", req.Rate.Service)
	}
	query, err := c.checkPurchase(req, svc)
	if err != nil {
		return carriers.Label{}, err
	}
	a, err := c.do(ctx, request{op: opBuy, path: shipmentPath, query: query, body: []shipment{c.shipmentOf(req.Shipment, svc, ref)}})
	if err != nil {
		return carriers.Label{}, err
	}
	sold, doc, err := parseShipment(a.body, req.Shipment.PieceCount())
	if err != nil {
		return carriers.Label{}, carriers.Unusable(sold, malformed(opBuy, a.status, "%v", err))
	}
	if err := checkDocument(doc, req.Format()); err != nil {
		return carriers.Label{}, carriers.Unusable(sold, malformed(opBuy, a.status, "the label: %v", err))
	}
	sold.Document, sold.Format = doc, req.Format()
	return sold, nil
}

// checkPurchase refuses, before DPD is called, what DPD would refuse or
// shipd cannot take from it, and returns the label's query.
func (c *Carrier) checkPurchase(req carriers.BuyRequest, svc service) (url.Values, error) {
	s := req.Shipment
	if s.Return {
		return nil, rejected(opBuy, "DPD return labels are not offered through shipd")
	}
	if !c.shipsFrom(s.From) {
		return nil, rejected(opBuy, "DPD business unit %s ships from %s, not %s", c.buCode, buCountries[c.buCode], carriers.NormalizeCountry(s.From.Country))
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches DPD anyway.
	if err := carriers.CheckRequirements(carrierName, requirements(), svc.name, s); err != nil {
		return nil, err
	}
	t, sold := termsOf(svc, carriers.IsInternational(s.From, s.To))
	if !sold {
		return nil, rejected(opBuy, "DPD %s is not sold on this route", svc.name)
	}
	if !t.fits(s) {
		return nil, rejected(opBuy, "DPD %s takes parcels of at most %.1f kg and %.0f cm along the longest side", svc.name,
			t.maxWeightOz*carriers.GramsPerOunce/1000, t.maxLengthCm)
	}
	for _, a := range []carriers.Address{s.From, s.To} {
		if z := strings.TrimSpace(a.Zip); len(z) > 9 {
			return nil, rejected(opBuy, "DPD takes postal codes of at most 9 characters")
		}
	}
	if n := s.PieceCount(); n > 99 {
		return nil, rejected(opBuy, "a DPD shipment has at most 99 parcels")
	}
	q := url.Values{}
	switch req.Format() {
	case carriers.LabelPDF:
		q.Set("LabelPrintFormat", "PDF")
		switch req.Size() {
		case carriers.Label4x6, carriers.LabelA6:
			q.Set("LabelPaperFormat", "A6")
		case carriers.LabelA4:
			q.Set("LabelPaperFormat", "A4")
			q.Set("LabelPrinterStartPosition", "UPPER_LEFT")
		default:
			return nil, rejected(opBuy, "DPD prints its labels on A6 (4x6 stock) or A4 paper, not %s", req.Size())
		}
	case carriers.LabelZPL:
		if req.Size() != carriers.Label4x6 {
			return nil, rejected(opBuy, "a ZPL label is 4x6")
		}
		q.Set("LabelPrintFormat", "ZPL")
	default:
		return nil, rejected(opBuy, "DPD's META-API prints PDF or ZPL labels (PNG in few business units): ask pdf or zpl")
	}
	return q, nil
}

// shipmentOf is the META-API Shipment of s.
func (c *Carrier) shipmentOf(s carriers.Shipment, svc service, ref string) shipment {
	sh := shipment{
		CustomerReferenceNumbers: []string{ref},
		ShipmentInfos:            shipmentInfos{ProductCode: svc.code},
		NumberOfParcels:          strconv.Itoa(s.PieceCount()),
		Sender:                   party{CustomerInfos: &customerInfos{CustomerID: c.customerID}, Address: addressOf(s.From), Contact: contactOf(s.From)},
		Receiver:                 party{Address: addressOf(s.To), Contact: contactOf(s.To)},
		International:            internationalOf(s, ref),
	}
	if !s.ShipDate.IsZero() {
		sh.ShippingDate = s.ShipDate.Format("2006-01-02")
	}
	pieces := s.AllPieces()
	for i, p := range pieces {
		pc := parcel{ParcelInfos: parcelInfos{Weight: strconv.Itoa(grams(p)), Dimensions: dimensionsOf(p)},
			SenderParcelRefs: []string{ref + "-" + strconv.Itoa(i+1)}}
		if len(pieces) > 1 {
			// "Set to one for the masterpiece of the shipment."
			pc.ParcelRank = strconv.Itoa(i + 1)
		}
		sh.Parcel = append(sh.Parcel, pc)
	}
	return sh
}

// addressOf is a shipd address as the META-API takes it: the person as
// name1 (the company when there is none), the company as companyName, the
// house number within street ("could be included into in the address
// field"), a state only as its 2-letter code.
func addressOf(a carriers.Address) address {
	name, company := strings.TrimSpace(a.Name), strings.TrimSpace(a.Company)
	out := address{CompanyName: company, Name1: name, Street: strings.TrimSpace(a.Street1), AddressLine2: strings.TrimSpace(a.Street2),
		Country: carriers.NormalizeCountry(a.Country), ZipCode: strings.TrimSpace(a.Zip), City: strings.TrimSpace(a.City)}
	if name == "" {
		out.Name1 = company
	}
	if st := strings.TrimSpace(a.State); len(st) <= 2 {
		out.State = st
	}
	return out
}

// contactOf is the party's ContactDetails, nil when it has none.
func contactOf(a carriers.Address) *contact {
	c := contact{ContactPerson: strings.TrimSpace(a.Name), Phone1: phone(a.Phone), Email: strings.TrimSpace(a.Email)}
	if len([]rune(c.ContactPerson)) > maxLine {
		c.ContactPerson = ""
	}
	if len(c.Email) > 100 {
		c.Email = ""
	}
	if c == (contact{}) {
		return nil
	}
	return &c
}

// phone is a number as the META-API encodes one ("XXXXXXXX",
// "+intcodeXXXXXXXX" or "00intcodeXXXXXXXX", at most 30): its digits, the
// plus kept; "" when it has none.
func phone(p string) string {
	d := carriers.PhoneDigits(p)
	if d == "" {
		return ""
	}
	if strings.HasPrefix(strings.TrimSpace(p), "+") {
		d = "+" + d
	}
	if len(d) > 30 {
		return ""
	}
	return d
}

// grams is a parcel's weight in whole grams, rounded up (a label never
// declares less than the parcel weighs), at least 1.
func grams(p carriers.Parcel) int {
	return max(int(math.Ceil(carriers.MetricOf(p).WeightG-1e-9)), 1)
}

// dimensionsOf is a parcel's size in whole centimetres, rounded up; nil
// when a side is not given or over the META-API's 999.
func dimensionsOf(p carriers.Parcel) *dimensions {
	m := carriers.MetricOf(p)
	d := dimensions{Length: int(math.Ceil(m.LengthCm - 1e-9)), Width: int(math.Ceil(m.WidthCm - 1e-9)), Height: int(math.Ceil(m.HeightCm - 1e-9))}
	if d.Length <= 0 || d.Width <= 0 || d.Height <= 0 || max(d.Length, d.Width, d.Height) > 999 {
		return nil
	}
	return &d
}

// parseShipment reads a ShipmentResponse: the label sold (its first parcel
// id the tracking number, every parcel's in Pieces of a multi-parcel
// shipment, the shipment id when it differs) and its document. It returns
// what it read of the sale even with an error, so that a void knows it.
func parseShipment(body []byte, pieces int) (carriers.Label, []byte, error) {
	var a shipmentAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return carriers.Label{}, nil, fmt.Errorf("the shipment answer is not the documented JSON: %w", err)
	}
	var ids []string
	for _, id := range a.ParcelIDs {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	shipmentID := strings.TrimSpace(a.ShipmentID)
	if len(ids) == 0 && shipmentID != "" && pieces == 1 {
		// openapi_metaapi_shipping.yaml's answer has the shipment id
		// alone, which is the parcel's ("could be the ID of the first
		// parcel of the list").
		ids = []string{shipmentID}
	}
	if len(ids) == 0 {
		return carriers.Label{}, nil, fmt.Errorf("the shipment answer has no parcelIds")
	}
	sold := carriers.Label{TrackingNumber: ids[0]}
	if shipmentID != "" && shipmentID != ids[0] {
		sold.CarrierShipmentID = shipmentID
	}
	if len(ids) > 1 {
		sold.Pieces = ids
	}
	if len(ids) != pieces {
		return sold, nil, fmt.Errorf("the answer has %d parcels for %d pieces", len(ids), pieces)
	}
	if a.Label == nil || strings.TrimSpace(a.Label.Base64Data) == "" {
		return sold, nil, fmt.Errorf("the shipment answer has no label")
	}
	data := strings.Join(strings.Fields(a.Label.Base64Data), "")
	if err := carriers.CheckLabelBase64(data); err != nil {
		return sold, nil, err
	}
	doc, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return sold, nil, fmt.Errorf("the label is not base64")
	}
	return sold, doc, nil
}

// checkDocument holds a label document to what a label of format f is
// (DPD's media-type says application/octet-stream whatever it sends).
func checkDocument(doc []byte, f carriers.LabelFormat) error {
	if f == carriers.LabelZPL {
		return carriers.CheckZPL(doc)
	}
	if !bytes.HasPrefix(doc, []byte("%PDF-")) {
		return fmt.Errorf("it is not a PDF")
	}
	return nil
}
