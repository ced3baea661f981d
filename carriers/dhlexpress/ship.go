package dhlexpress

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// shipmentsPath is POST /shipments (exp-api-shipments): a waybill, its
// labels and, for goods declared to customs, the commercial invoice.
const shipmentsPath = "/shipments"

// maxReferenceLen is the most a customerReferences value holds; shipd ids
// ("shp_" and 24 hex) fit.
const maxReferenceLen = 35

// Label templates of the document's transport labels (outputImageProperties
// imageOptions templateName): DHL's A6 label (105 x 148 mm) is the one of
// 4x6 stock and of an A6 page; on A4 the 8x4 label is printed on the
// page. DHL's default, ECOM26_84_001, is 4 x 8 inches: no size shipd
// offers.
const (
	templateA6 = "ECOM26_A6_002"
	templateA4 = "ECOM26_84_A4_001"
	// Commercial invoices: DHL's default, and its template for returned
	// goods (the shipper is the customer sending them back).
	templateInvoice       = "COMMERCIAL_INVOICE_P_10"
	templateReturnInvoice = "RET_COM_INVOICE_A4_01"
)

// shipmentRequest is supermodelIoLogisticsExpressCreateShipmentRequest.
type shipmentRequest struct {
	PlannedShippingDateAndTime string `json:"plannedShippingDateAndTime"`
	// Pickup isRequested false: a pickup is booked on its own (pickups.go).
	Pickup struct {
		IsRequested bool `json:"isRequested"`
	} `json:"pickup"`
	ProductCode           string                `json:"productCode"`
	Accounts              []account             `json:"accounts"`
	ValueAddedServices    []valueAdded          `json:"valueAddedServices,omitempty"`
	OutputImageProperties outputImageProperties `json:"outputImageProperties"`
	CustomerReferences    []customerReference   `json:"customerReferences"`
	CustomerDetails       struct {
		ShipperDetails  party `json:"shipperDetails"`
		ReceiverDetails party `json:"receiverDetails"`
	} `json:"customerDetails"`
	Content               content     `json:"content"`
	EstimatedDeliveryDate *eddRequest `json:"estimatedDeliveryDate,omitempty"`
}

type customerReference struct {
	Value    string `json:"value"`
	TypeCode string `json:"typeCode"`
}

// referenceType is the type of the shipd shipment id among the
// customerReferences: CU, the customer's reference, which /tracking finds
// a shipment by (recover.go).
const referenceType = "CU"

type content struct {
	Packages              []ratesPackage     `json:"packages"`
	IsCustomsDeclarable   bool               `json:"isCustomsDeclarable"`
	DeclaredValue         *json.Number       `json:"declaredValue,omitempty"`
	DeclaredValueCurrency string             `json:"declaredValueCurrency,omitempty"`
	ExportDeclaration     *exportDeclaration `json:"exportDeclaration,omitempty"`
	Description           string             `json:"description"`
	USFilingTypeValue     string             `json:"USFilingTypeValue,omitempty"`
	Incoterm              string             `json:"incoterm"`
	UnitOfMeasurement     string             `json:"unitOfMeasurement"`
}

type outputImageProperties struct {
	PrinterDPI                        int           `json:"printerDPI,omitempty"`
	EncodingFormat                    string        `json:"encodingFormat"`
	ImageOptions                      []imageOption `json:"imageOptions"`
	SplitTransportAndWaybillDocLabels bool          `json:"splitTransportAndWaybillDocLabels"`
	AllDocumentsInOneImage            bool          `json:"allDocumentsInOneImage"`
	SplitDocumentsByPages             bool          `json:"splitDocumentsByPages"`
	SplitInvoiceAndReceipt            bool          `json:"splitInvoiceAndReceipt"`
}

type imageOption struct {
	TypeCode     string `json:"typeCode"`
	TemplateName string `json:"templateName,omitempty"`
	IsRequested  *bool  `json:"isRequested,omitempty"`
	InvoiceType  string `json:"invoiceType,omitempty"`
}

// labelOutput is the output asked for a label in format f and size: the
// transport label's template and encoding, no waybill document (DHL
// Express prints what the courier needs on the label), and, for goods
// declared to customs, DHL's commercial invoice (always a PDF).
func labelOutput(f carriers.LabelFormat, size carriers.LabelSize, invoiceOf carriers.Shipment, withInvoice bool) outputImageProperties {
	yes, no := true, false
	template := templateA6
	if size == carriers.LabelA4 {
		template = templateA4
	}
	o := outputImageProperties{
		EncodingFormat:                    "pdf",
		SplitTransportAndWaybillDocLabels: true,
		SplitInvoiceAndReceipt:            true,
		ImageOptions: []imageOption{
			{TypeCode: "label", TemplateName: template},
			{TypeCode: "waybillDoc", IsRequested: &no},
		},
	}
	if f == carriers.LabelZPL {
		// 203 dpi thermal printers: the document's 200.
		o.EncodingFormat, o.PrinterDPI = "zpl", 200
	}
	if withInvoice {
		inv := imageOption{TypeCode: "invoice", IsRequested: &yes, InvoiceType: "commercial", TemplateName: templateInvoice}
		if invoiceOf.Return {
			inv.InvoiceType, inv.TemplateName = "returns", templateReturnInvoice
		}
		o.ImageOptions = append(o.ImageOptions, inv)
	}
	return o
}

// contentsDescription is content.description (70 characters, starting
// with no space): the declaration's explanation, else its first item, else
// what the shipment holds.
func contentsDescription(s carriers.Shipment) string {
	if cu := s.Customs; cu != nil {
		for _, d := range []string{cu.ContentsExplanation, firstItem(cu)} {
			if d = truncate(d, 70); d != "" {
				return d
			}
		}
		if cu.ContentsType == carriers.ContentsDocuments {
			return "Documents"
		}
	}
	return "Goods"
}

func firstItem(cu *carriers.Customs) string {
	if len(cu.Items) == 0 {
		return ""
	}
	return cu.Items[0].Description
}

// purchase is a checked purchase: its service, product code and whether
// its goods are declared to customs.
type purchase struct {
	svc        service
	code       string
	declarable bool
	currency   string
}

// checkPurchase refuses, before calling DHL, a purchase DHL would refuse
// for certain or that shipd cannot map.
func checkPurchase(req carriers.BuyRequest) (purchase, error) {
	s := req.Shipment
	if strings.TrimSpace(req.Reference) == "" {
		// The reference is what ties a waybill to its shipd shipment.
		return purchase{}, fmt.Errorf("dhlexpress: purchase has no reference: %w", carriers.ErrRejected)
	}
	if !strings.EqualFold(req.Rate.Carrier, Name) {
		return purchase{}, fmt.Errorf("dhlexpress: the rate is for carrier %q: %w", req.Rate.Carrier, carriers.ErrRejected)
	}
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return purchase{}, fmt.Errorf("dhlexpress: no service %q (services: %s): %w",
			req.Rate.Service, strings.Join(serviceNames(), ", "), carriers.ErrRejected)
	}
	if err := checkShipment(s); err != nil {
		return purchase{}, fmt.Errorf("%w: %w", err, carriers.ErrRejected)
	}
	p := purchase{svc: svc, declarable: declarable(s)}
	// The code DHL quoted, when the rate kept it; else the service's for
	// the shipment, the code /rates answers for it.
	if other, ok := serviceByCode(req.Rate.ProductCode); ok && other.name == svc.name {
		p.code = req.Rate.ProductCode
	} else {
		p.code = svc.code(p.declarable)
	}
	if p.code == "" {
		return purchase{}, fmt.Errorf("dhlexpress: %s is sold between EU member states only, without a customs declaration: %w", svc.label, carriers.ErrRejected)
	}
	switch f, size := req.Format(), req.Size(); {
	case f != carriers.LabelPDF && f != carriers.LabelZPL:
		return purchase{}, fmt.Errorf("dhlexpress: DHL Express labels are PDF or ZPL, not %s: %w", f, carriers.ErrRejected)
	case f == carriers.LabelZPL && size != carriers.Label4x6:
		return purchase{}, fmt.Errorf("dhlexpress: a ZPL label is 4x6, not %s: %w", size, carriers.ErrRejected)
	case size != carriers.Label4x6 && size != carriers.LabelA6 && size != carriers.LabelA4:
		return purchase{}, fmt.Errorf("dhlexpress: DHL Express labels are 4x6, A6 or A4, not %s: %w", size, carriers.ErrRejected)
	}
	if p.declarable {
		// The declared values are in the currency of the rate bought.
		p.currency = strings.ToUpper(strings.TrimSpace(req.Rate.Currency))
		if !exchangerates.IsCode(p.currency) {
			return purchase{}, fmt.Errorf("dhlexpress: the rate has no currency to declare the goods' values in: %w", carriers.ErrRejected)
		}
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches DHL anyway.
	if err := carriers.CheckRequirements(Name, requirements(), svc.name, s); err != nil {
		return purchase{}, err
	}
	return p, nil
}

// buildShipment turns a purchase into a /shipments request, with the
// shipd shipment id as the customer reference (CU).
func (c *Carrier) buildShipment(req carriers.BuyRequest, p purchase) shipmentRequest {
	s := req.Shipment
	ref := req.Reference
	if len(ref) > maxReferenceLen {
		ref = ref[:maxReferenceLen]
	}
	planned := c.shippingTime(s)
	r := shipmentRequest{
		PlannedShippingDateAndTime: planned,
		ProductCode:                p.code,
		Accounts:                   c.shipperAccount(),
		ValueAddedServices:         valueAddedServices(s),
		OutputImageProperties:      labelOutput(req.Format(), req.Size(), s, p.declarable),
		CustomerReferences:         []customerReference{{Value: ref, TypeCode: referenceType}},
		Content: content{
			Packages:            packagesOf(s),
			IsCustomsDeclarable: p.declarable,
			Description:         contentsDescription(s),
			Incoterm:            s.Customs.IncotermOrDefault(),
			UnitOfMeasurement:   unitOfMeasurement,
		},
		EstimatedDeliveryDate: &eddRequest{IsRequested: true, TypeCode: "QDDC"},
	}
	r.CustomerDetails.ShipperDetails = toParty(s.From)
	r.CustomerDetails.ReceiverDetails = toParty(s.To)
	if s.Customs != nil && carriers.CustomsRequired(s.From, s.To) {
		registrations(&r.CustomerDetails.ShipperDetails, &r.CustomerDetails.ReceiverDetails, s) // customs.go
	}
	if p.declarable {
		d := declaration(s, p.currency, req.Reference, planned[:len("2006-01-02")]) // customs.go
		r.Content.ExportDeclaration = &d
		total := money(s.Customs.TotalValueCents(), p.currency)
		r.Content.DeclaredValue, r.Content.DeclaredValueCurrency = &total, p.currency
		r.Content.USFilingTypeValue = usFiling(s)
		// Paperless trade: DHL sends the invoice it draws from the
		// declaration to customs electronically (see Buy).
		r.ValueAddedServices = append(r.ValueAddedServices, valueAdded{ServiceCode: servicePaperless})
	}
	return r
}

// Buy creates the DHL Express shipment and returns its label.
//
// A shipment of goods declared to customs asks for paperless trade (WY):
// DHL draws the commercial invoice from the export declaration and sends it
// to customs, so that the merchant prints the label only. On a lane DHL
// has no paperless trade on, bypassPLTError has DHL create the shipment all
// the same, without it; the invoice DHL returns in any case is the label's
// customs document (GET /labels/{id}/customs.pdf), which must then travel
// printed with the parcel.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	p, err := checkPurchase(req)
	if err != nil {
		return carriers.Label{}, c.scrub(err)
	}
	var query url.Values
	if p.declarable {
		query = url.Values{"bypassPLTError": {"true"}}
	}
	body, err := c.do(ctx, request{op: opBuy, method: http.MethodPost, path: shipmentsPath, query: query,
		body: c.buildShipment(req, p), reference: req.Reference})
	if err != nil {
		return carriers.Label{}, c.scrub(err)
	}
	label, err := parseShipment(body, req.Format(), req.Shipment.PieceCount())
	// DHL sold the waybill: an answer that cannot be used says what was sold.
	return label, c.scrub(carriers.Unusable(soldIn(body), err))
}

// shipmentResponse is the part of supermodelIoLogisticsExpressCreateShipmentResponse
// shipd reads.
type shipmentResponse struct {
	ShipmentTrackingNumber string             `json:"shipmentTrackingNumber"`
	Packages               []shippedPackage   `json:"packages"`
	Documents              []shipmentDocument `json:"documents"`
}

type shippedPackage struct {
	ReferenceNumber int    `json:"referenceNumber"`
	TrackingNumber  string `json:"trackingNumber"`
}

type shipmentDocument struct {
	ImageFormat string `json:"imageFormat"`
	Content     string `json:"content"`
	TypeCode    string `json:"typeCode"`
}

// parseShipment reads a /shipments answer whose labels were asked in
// format f for pieces packages: the waybill, each package's number (JD…),
// the labels (one document of every piece's label, or one per piece) and
// the commercial invoice.
func parseShipment(body []byte, f carriers.LabelFormat, pieces int) (carriers.Label, error) {
	var r shipmentResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, malformed(opBuy, "the shipment answer does not parse: %v", err)
	}
	tn := strings.TrimSpace(r.ShipmentTrackingNumber)
	if tn == "" {
		return carriers.Label{}, malformed(opBuy, "the shipment answer has no waybill number")
	}
	label := carriers.Label{TrackingNumber: tn, Format: f}
	if pieces > 1 {
		numbers, err := pieceNumbers(r.Packages, pieces, tn)
		if err != nil {
			return carriers.Label{}, err
		}
		label.Pieces = numbers
	}
	var docs [][]byte
	for _, d := range r.Documents {
		switch strings.ToLower(strings.TrimSpace(d.TypeCode)) {
		case "label":
			doc, err := decodeLabel(d, f, tn)
			if err != nil {
				return carriers.Label{}, err
			}
			docs = append(docs, doc)
		case "invoice":
			if label.CustomsDocument != nil {
				continue
			}
			pdf, err := decodePDF(d.Content)
			if err != nil {
				return carriers.Label{}, malformed(opBuy, "the commercial invoice of %s: %v", tn, err)
			}
			label.CustomsDocument = pdf
		}
	}
	switch {
	case len(docs) == 0:
		return carriers.Label{}, malformed(opBuy, "the shipment answer has no label for %s", tn)
	case len(docs) == 1:
		label.Document = docs[0]
	case len(docs) == pieces:
		// A label per piece: the purchase joins them (shipping/pieces.go).
		label.PieceDocuments = docs
	default:
		return carriers.Label{}, malformed(opBuy, "the shipment answer has %d labels for %d pieces of %s", len(docs), pieces, tn)
	}
	return label, nil
}

// pieceNumbers are the packages' numbers in the order of the shipment's
// pieces (referenceNumber 1, 2, …).
func pieceNumbers(ps []shippedPackage, pieces int, tn string) ([]string, error) {
	if len(ps) != pieces {
		return nil, malformed(opBuy, "the shipment answer has %d packages for %d pieces of %s", len(ps), pieces, tn)
	}
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b shippedPackage) int { return a.ReferenceNumber - b.ReferenceNumber })
	out := make([]string, pieces)
	for i, p := range sorted {
		n := strings.TrimSpace(p.TrackingNumber)
		if n == "" || (p.ReferenceNumber != 0 && p.ReferenceNumber != i+1) {
			return nil, malformed(opBuy, "package %d of %s has no number of its own", i+1, tn)
		}
		out[i] = n
	}
	return out, nil
}

// decodeLabel decodes one label document, which must be in the format
// asked: a PDF, or ZPL.
func decodeLabel(d shipmentDocument, f carriers.LabelFormat, tn string) ([]byte, error) {
	want := "PDF"
	if f == carriers.LabelZPL {
		want = "ZPL"
	}
	if got := strings.ToUpper(strings.TrimSpace(d.ImageFormat)); got != want {
		return nil, malformed(opBuy, "the label of %s is %q, not %s", tn, carriers.Excerpt(got), want)
	}
	content := strings.TrimSpace(d.Content)
	if err := carriers.CheckLabelBase64(content); err != nil {
		return nil, malformed(opBuy, "the label of %s: %v", tn, err)
	}
	doc, err := base64.StdEncoding.DecodeString(content)
	if err != nil {
		return nil, malformed(opBuy, "the label of %s is not valid base64: %v", tn, err)
	}
	if f == carriers.LabelZPL {
		if err := carriers.CheckZPL(doc); err != nil {
			return nil, malformed(opBuy, "the label of %s: %v", tn, err)
		}
		return doc, nil
	}
	if !bytes.HasPrefix(doc, []byte("%PDF")) {
		return nil, malformed(opBuy, "the label of %s is not a PDF", tn)
	}
	return doc, nil
}

// decodePDF decodes a base64 PDF document (the invoice).
func decodePDF(content string) ([]byte, error) {
	content = strings.TrimSpace(content)
	if err := carriers.CheckLabelBase64(content); err != nil {
		return nil, err
	}
	pdf, err := base64.StdEncoding.DecodeString(content)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		return nil, fmt.Errorf("it is not a base64 PDF")
	}
	return pdf, nil
}

// soldIn reads what a shipment answer sold when the label in it cannot be
// used (carriers.Unusable): the waybill and its packages' numbers; a Label
// without a tracking number when the answer names none.
func soldIn(body []byte) carriers.Label {
	var a struct {
		ShipmentTrackingNumber string           `json:"shipmentTrackingNumber"`
		Packages               []shippedPackage `json:"packages"`
	}
	if json.Unmarshal(body, &a) != nil {
		return carriers.Label{}
	}
	sold := carriers.Label{TrackingNumber: strings.TrimSpace(a.ShipmentTrackingNumber)}
	if len(a.Packages) > 1 {
		for _, p := range a.Packages {
			if n := strings.TrimSpace(p.TrackingNumber); n != "" {
				sold.Pieces = append(sold.Pieces, n)
			}
		}
	}
	return sold
}
