package fedex

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	_ "image/png" // CheckLabelImage reads a PNG label's header
	"net/http"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// shipPath is the Ship API v1 create-shipment endpoint.
const shipPath = "/ship/v1/shipments"

// maxReferenceLen is FedEx's limit for a CUSTOMER_REFERENCE value (30 for
// Ground, 40 for Express); shipd ids ("shp_" and 24 hex) fit.
const maxReferenceLen = 30

// shipRequest is the Ship API request body (Full_Schema_Ship).
type shipRequest struct {
	// LabelResponseOptions LABEL returns the label itself, base64, in
	// packageDocuments[].encodedLabel (URL_ONLY would need a second fetch).
	LabelResponseOptions string                `json:"labelResponseOptions"`
	RequestedShipment    shipRequestedShipment `json:"requestedShipment"`
	AccountNumber        accountNumber         `json:"accountNumber"`
}

type shipRequestedShipment struct {
	ShipDatestamp          string            `json:"shipDatestamp"`
	Shipper                shipParty         `json:"shipper"`
	Recipients             []shipParty       `json:"recipients"`
	PickupType             string            `json:"pickupType"`
	ServiceType            string            `json:"serviceType"`
	PackagingType          string            `json:"packagingType"`
	TotalWeight            json.Number       `json:"totalWeight"`
	ShippingChargesPayment payment           `json:"shippingChargesPayment"`
	LabelSpecification     labelSpec         `json:"labelSpecification"`
	CustomsClearanceDetail *customsClearance `json:"customsClearanceDetail,omitempty"`
	// ShipmentSpecialServices makes a return: RETURN_SHIPMENT with
	// returnShipmentDetail.returnType PRINT_RETURN_LABEL.
	ShipmentSpecialServices *shipmentSpecialServices `json:"shipmentSpecialServices,omitempty"`
	// ShippingDocumentSpecification asks for the commercial invoice
	// (customs.go).
	ShippingDocumentSpecification *shippingDocumentSpecification `json:"shippingDocumentSpecification,omitempty"`
	TotalPackageCount             int                            `json:"totalPackageCount"`
	RequestedPackageLineItems     []packageLineItem              `json:"requestedPackageLineItems"`
}

type shipmentSpecialServices struct {
	SpecialServiceTypes  []string              `json:"specialServiceTypes"`
	ReturnShipmentDetail *returnShipmentDetail `json:"returnShipmentDetail,omitempty"`
	EtdDetail            *etdDetail            `json:"etdDetail,omitempty"`
}

type returnShipmentDetail struct {
	ReturnType string `json:"returnType"`
}

type shipParty struct {
	Address shipAddress `json:"address"`
	Contact contact     `json:"contact"`
	// Tins are the party's tax ids (customs.go).
	Tins []tin `json:"tins,omitempty"`
}

type shipAddress struct {
	StreetLines         []string `json:"streetLines"`
	City                string   `json:"city"`
	StateOrProvinceCode string   `json:"stateOrProvinceCode,omitempty"`
	PostalCode          string   `json:"postalCode,omitempty"`
	CountryCode         string   `json:"countryCode"`
	Residential         bool     `json:"residential"`
}

type contact struct {
	PersonName   string `json:"personName,omitempty"`
	CompanyName  string `json:"companyName,omitempty"`
	PhoneNumber  string `json:"phoneNumber"`
	EmailAddress string `json:"emailAddress,omitempty"`
}

// labelSpec asks for the label's format and stock (labelSpecFor).
type labelSpec struct {
	ImageType      string `json:"imageType"`
	LabelStockType string `json:"labelStockType"`
}

// labelSpecFor is the label asked of FedEx for format f and size: a 4x6
// PDF is imageType PDF on PAPER_4X6, the laser-printer stock of the
// documented Label Stock Types, and a letter one PAPER_85X11_TOP_HALF_LABEL
// (the 4x6 label on the top half of a letter sheet); a PNG is PNG on
// PAPER_4X6; ZPL is ZPLII on STOCK_4X6, the 4x6 thermal stock.
func labelSpecFor(f carriers.LabelFormat, size carriers.LabelSize) labelSpec {
	switch f {
	case carriers.LabelZPL:
		return labelSpec{ImageType: imageTypeOf(f), LabelStockType: "STOCK_4X6"}
	case carriers.LabelPNG:
		return labelSpec{ImageType: imageTypeOf(f), LabelStockType: "PAPER_4X6"}
	}
	if size == carriers.LabelLetter {
		return labelSpec{ImageType: "PDF", LabelStockType: "PAPER_85X11_TOP_HALF_LABEL"}
	}
	return labelSpec{ImageType: "PDF", LabelStockType: "PAPER_4X6"}
}

// imageTypeOf is FedEx's imageType (and the answer's docType) of a format.
func imageTypeOf(f carriers.LabelFormat) string {
	switch f {
	case carriers.LabelZPL:
		return "ZPLII"
	case carriers.LabelPNG:
		return "PNG"
	}
	return "PDF"
}

// transactionID is the x-customer-transaction-id of a purchase. FedEx has
// no idempotency key; this header, echoed as customerTransactionId in the
// answer and kept in FedEx's logs, ties the label to the shipd shipment
// when a retried purchase has to be reconciled.
func transactionID(reference string) string {
	return "shipd-" + reference
}

// digits keeps the digits of a phone number: FedEx wants 10 to 15 digits,
// optionally with the leading country code 1 for US and CA.
func digits(phone string) string {
	var b strings.Builder
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func toShipParty(a carriers.Address) shipParty {
	lines := []string{}
	for _, l := range []string{a.Street1, a.Street2} {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return shipParty{
		Address: shipAddress{
			StreetLines:         lines,
			City:                strings.TrimSpace(a.City),
			StateOrProvinceCode: strings.ToUpper(strings.TrimSpace(a.State)),
			PostalCode:          strings.TrimSpace(a.Zip),
			CountryCode:         carriers.NormalizeCountry(a.Country),
			Residential:         a.Residential,
		},
		Contact: contact{
			PersonName:   strings.TrimSpace(a.Name),
			CompanyName:  strings.TrimSpace(a.Company),
			PhoneNumber:  digits(a.Phone),
			EmailAddress: strings.TrimSpace(a.Email),
		},
	}
}

// buildShipRequest turns a purchase into a Ship API request, with the
// shipd shipment id as the package's CUSTOMER_REFERENCE.
func (c *Carrier) buildShipRequest(req carriers.BuyRequest, svc service) shipRequest {
	s := req.Shipment
	item := parcelLineItem(s)
	ref := req.Reference
	if len(ref) > maxReferenceLen {
		ref = ref[:maxReferenceLen]
	}
	item.CustomerReferences = []customerReference{{CustomerReferenceType: "CUSTOMER_REFERENCE", Value: ref}}
	rs := shipRequestedShipment{
		ShipDatestamp:             c.shipDate(),
		Shipper:                   toShipParty(s.From),
		Recipients:                []shipParty{toShipParty(s.To)},
		PickupType:                pickupType,
		ServiceType:               svc.code,
		PackagingType:             packagingType,
		TotalWeight:               poundsValue(s.Parcel.WeightOz),
		ShippingChargesPayment:    payment{PaymentType: "SENDER"},
		LabelSpecification:        labelSpecFor(req.Format(), req.Size()),
		TotalPackageCount:         1,
		RequestedPackageLineItems: []packageLineItem{item},
	}
	if items := pieceItems(item, s); items != nil { // pieces.go
		rs.RequestedPackageLineItems, rs.TotalPackageCount, rs.TotalWeight = items, len(items), piecesWeight(s)
	}
	if carriers.IsInternational(s.From, s.To) {
		rs.CustomsClearanceDetail = customsFor(s)
	}
	if s.Return {
		// A printed return label: the customer (shipper) sends it back to
		// the merchant (recipient), billed to the account (SENDER, the
		// account number of the request) when FedEx receives it.
		rs.ShipmentSpecialServices = &shipmentSpecialServices{SpecialServiceTypes: []string{"RETURN_SHIPMENT"},
			ReturnShipmentDetail: &returnShipmentDetail{ReturnType: "PRINT_RETURN_LABEL"}}
	}
	if rs.CustomsClearanceDetail != nil {
		tradeDocuments(&rs, s, req.Reference) // customs.go
	}
	return shipRequest{
		LabelResponseOptions: "LABEL",
		RequestedShipment:    rs,
		AccountNumber:        accountNumber{Value: c.account},
	}
}

// checkPurchase refuses, before calling FedEx, a purchase FedEx would refuse
// for certain or that shipd cannot map.
func checkPurchase(req carriers.BuyRequest) (service, error) {
	if strings.TrimSpace(req.Reference) == "" {
		// The reference is what ties a FedEx label to its shipd shipment.
		return service{}, fmt.Errorf("fedex: purchase has no reference: %w", carriers.ErrRejected)
	}
	if !strings.EqualFold(req.Rate.Carrier, Name) {
		return service{}, fmt.Errorf("fedex: the rate is for carrier %q: %w", req.Rate.Carrier, carriers.ErrRejected)
	}
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return service{}, fmt.Errorf("fedex: no service %q (services: %s): %w",
			req.Rate.Service, strings.Join(serviceNames(), ", "), carriers.ErrRejected)
	}
	if err := checkShipment(req.Shipment); err != nil {
		return service{}, fmt.Errorf("%w: %w", err, carriers.ErrRejected)
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches FedEx anyway.
	if err := carriers.CheckRequirements(Name, requirements(), svc.name, req.Shipment); err != nil {
		return service{}, err
	}
	return svc, nil
}

// Buy creates the FedEx shipment and returns its label.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	svc, err := checkPurchase(req)
	if err != nil {
		return carriers.Label{}, err
	}
	body, err := c.do(ctx, request{
		op: opBuy, method: http.MethodPost, path: shipPath,
		body: c.buildShipRequest(req, svc), transactionID: transactionID(req.Reference),
	})
	if err != nil {
		return carriers.Label{}, c.scrub(err)
	}
	var label carriers.Label
	if n := len(req.Shipment.Pieces); n > 1 {
		label, err = parsePieces(body, req.Format(), n) // pieces.go
	} else {
		label, err = parseShipDocument(body, req.Format())
	}
	// FedEx sold the label: an answer that cannot be used says what to void.
	return label, c.scrub(carriers.Unusable(soldIn(body), err)) // sold.go
}

// shipResponse is the part of the Ship API answer (SHPCResponseVO_ShipShipment) shipd reads.
type shipResponse struct {
	Output *struct {
		TransactionShipments []struct {
			MasterTrackingNumber string            `json:"masterTrackingNumber"`
			PieceResponses       []pieceResponse   `json:"pieceResponses"`
			ShipmentDocuments    []packageDocument `json:"shipmentDocuments"`
		} `json:"transactionShipments"`
	} `json:"output"`
}

type pieceResponse struct {
	TrackingNumber       string            `json:"trackingNumber"`
	MasterTrackingNumber string            `json:"masterTrackingNumber"`
	PackageDocuments     []packageDocument `json:"packageDocuments"`
}

type packageDocument struct {
	ContentType  string `json:"contentType"`
	DocType      string `json:"docType"`
	EncodedLabel string `json:"encodedLabel"`
}

// parseShipResponse reads the tracking number and decodes the base64 label
// of the first package document, which must be a PDF.
func parseShipResponse(body []byte) (carriers.Label, error) {
	return parseShipDocument(body, carriers.LabelPDF)
}

// parseShipDocument reads a ship answer whose label was asked in format f.
func parseShipDocument(body []byte, f carriers.LabelFormat) (carriers.Label, error) {
	var r shipResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, malformed(opBuy, "the ship answer does not parse: %v", err)
	}
	if r.Output == nil || len(r.Output.TransactionShipments) == 0 {
		return carriers.Label{}, malformed(opBuy, "the ship answer has no transaction shipment")
	}
	ts := r.Output.TransactionShipments[0]
	if len(ts.PieceResponses) == 0 {
		return carriers.Label{}, malformed(opBuy, "the ship answer has no piece response")
	}
	piece := ts.PieceResponses[0]
	tn := strings.TrimSpace(piece.TrackingNumber)
	master := strings.TrimSpace(ts.MasterTrackingNumber)
	if master == "" {
		master = strings.TrimSpace(piece.MasterTrackingNumber)
	}
	if tn == "" {
		tn = master
	}
	if tn == "" {
		return carriers.Label{}, malformed(opBuy, "the ship answer has no tracking number")
	}
	i := slices.IndexFunc(piece.PackageDocuments, func(d packageDocument) bool {
		return d.ContentType == "" || d.ContentType == "LABEL"
	})
	if i < 0 || strings.TrimSpace(piece.PackageDocuments[i].EncodedLabel) == "" {
		return carriers.Label{}, malformed(opBuy, "the ship answer has no label image for %s", tn)
	}
	doc := piece.PackageDocuments[i]
	if want := imageTypeOf(f); doc.DocType != "" && doc.DocType != want {
		return carriers.Label{}, malformed(opBuy, "the label of %s is %s, not %s", tn, doc.DocType, want)
	}
	if err := carriers.CheckLabelBase64(strings.TrimSpace(doc.EncodedLabel)); err != nil {
		return carriers.Label{}, malformed(opBuy, "the label of %s: %v", tn, err)
	}
	pdf, err := base64.StdEncoding.DecodeString(strings.TrimSpace(doc.EncodedLabel))
	if err != nil {
		return carriers.Label{}, malformed(opBuy, "the label of %s is not valid base64: %v", tn, err)
	}
	label := carriers.Label{TrackingNumber: tn}
	switch f {
	case carriers.LabelZPL:
		if err := carriers.CheckZPL(pdf); err != nil {
			return carriers.Label{}, malformed(opBuy, "the label of %s: %v", tn, err)
		}
		label.Document, label.Format = pdf, f
	case carriers.LabelPNG:
		// Kept as FedEx drew it: only its header is read, to refuse an
		// image no label is.
		if _, err := carriers.CheckLabelImage(pdf, "png"); err != nil {
			return carriers.Label{}, malformed(opBuy, "the label of %s: %v", tn, err)
		}
		label.Document, label.Format = pdf, f
	default:
		if !bytes.HasPrefix(pdf, []byte("%PDF")) {
			return carriers.Label{}, malformed(opBuy, "the label of %s is not a PDF", tn)
		}
		label.Document, label.Format = pdf, carriers.LabelPDF
	}
	if master != "" && master != tn {
		// A multi-piece shipment is cancelled by its master tracking number.
		label.CarrierShipmentID = master
	}
	invoice, err := commercialInvoiceOf(ts.ShipmentDocuments, tn) // customs.go
	if err != nil {
		return carriers.Label{}, err
	}
	label.CustomsDocument = invoice
	return label, nil
}

// ReturnService: every FedEx service shipd sells can be bought as a printed
// return label (RETURN_SHIPMENT, PRINT_RETURN_LABEL).
func (c *Carrier) ReturnService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}

// soldAnswer is the part of a ship answer that names what FedEx sold: its
// tracking numbers, without the documents.
type soldAnswer struct {
	Output *struct {
		TransactionShipments []struct {
			MasterTrackingNumber string `json:"masterTrackingNumber"`
			PieceResponses       []struct {
				TrackingNumber       string `json:"trackingNumber"`
				MasterTrackingNumber string `json:"masterTrackingNumber"`
			} `json:"pieceResponses"`
		} `json:"transactionShipments"`
	} `json:"output"`
}

// soldIn reads what a ship answer sold when the label in it cannot be
// used, so that the purchase voids it (carriers.Unusable): the master
// tracking number, which cancels every package, and the pieces' numbers.
// A Label without a tracking number when the answer names none.
func soldIn(body []byte) carriers.Label {
	var a soldAnswer
	if json.Unmarshal(body, &a) != nil || a.Output == nil || len(a.Output.TransactionShipments) == 0 {
		return carriers.Label{}
	}
	ts := a.Output.TransactionShipments[0]
	var sold carriers.Label
	master := strings.TrimSpace(ts.MasterTrackingNumber)
	for _, p := range ts.PieceResponses {
		if tn := strings.TrimSpace(p.TrackingNumber); tn != "" {
			sold.Pieces = append(sold.Pieces, tn)
		}
		if master == "" {
			master = strings.TrimSpace(p.MasterTrackingNumber)
		}
	}
	sold.TrackingNumber = master
	if master == "" && len(sold.Pieces) > 0 {
		sold.TrackingNumber = sold.Pieces[0]
	}
	if len(sold.Pieces) < 2 {
		sold.Pieces = nil
	}
	return sold
}
