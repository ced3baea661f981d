package ups

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Buy creates the UPS shipment for the rate's service and returns its
// label as a 4x6 inch PDF.
//
// UPS has no idempotency key: posting the same shipment twice buys two
// labels. The purchase flow calls Buy at most once per attempt and decides
// itself whether to retry, so Buy only makes the purchase traceable: the
// shipd shipment id goes in the shipment Description and as a reference
// number (printed on the label, searchable at UPS), in CustomerContext
// (echoed back), and the transId header is derived from it, so every
// attempt for one shipment carries the same transaction id in UPS's logs.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	if err := ctx.Err(); err != nil {
		return carriers.Label{}, err
	}
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, &carriers.Error{Carrier: carrierName, Operation: opBuy,
			Message: "the purchase has no reference", Kind: carriers.ErrRejected}
	}
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return carriers.Label{}, &carriers.Error{Carrier: carrierName, Operation: opBuy,
			Message: fmt.Sprintf("UPS has no service %q", req.Rate.Service), Kind: carriers.ErrRejected}
	}
	if err := checkShipment(req.Shipment); err != nil {
		return carriers.Label{}, err
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches UPS anyway.
	if err := carriers.CheckRequirements(carrierName, requirements(), svc.name, req.Shipment); err != nil {
		return carriers.Label{}, err
	}
	body := c.shipRequest(req.Shipment, svc, ref)
	body.ShipmentRequest.LabelSpecification = labelSpecFor(req.Format())
	a, err := c.do(ctx, apiRequest{
		op:      opBuy,
		method:  http.MethodPost,
		path:    "/api/shipments/" + shippingVersion + "/ship",
		body:    body,
		transID: buyTransID(ref),
	})
	if err != nil {
		return carriers.Label{}, err
	}
	if !a.ok() {
		return carriers.Label{}, c.failure(opBuy, a)
	}
	res, perr := parseShipResponse(a.body)
	if perr != nil {
		return carriers.Label{}, malformed(opBuy, a.status, "%v", perr)
	}
	var label carriers.Label
	if n := len(req.Shipment.Pieces); n > 1 {
		label, err = c.piecesLabel(ctx, a.status, req.Format(), req.Size(), res, n) // pieces.go
	} else {
		label, err = c.labelDocument(ctx, a.status, req.Format(), req.Size(), res)
	}
	if err != nil {
		// UPS sold the label: an image that cannot be used says what to void.
		return carriers.Label{}, carriers.Unusable(res.sold(), err)
	}
	if res.shipmentID != res.trackingNumber {
		label.CarrierShipmentID = res.shipmentID
	}
	label.CustomsDocument = res.forms
	return label, nil
}

// sold is what a ship answer sold, without its images: the numbers a void
// needs, as a label bought from it would carry them.
func (r shipResult) sold() carriers.Label {
	sold := carriers.Label{TrackingNumber: r.trackingNumber}
	if r.shipmentID != r.trackingNumber {
		sold.CarrierShipmentID = r.shipmentID
	}
	for _, p := range r.pieces {
		sold.Pieces = append(sold.Pieces, p.trackingNumber)
	}
	return sold
}

// buyTransID is the transId of a purchase: the first 32 hex digits of the
// SHA-256 of the shipd shipment id. UPS allows 32 characters; hashing keeps
// any reference within that and the same for every attempt.
func buyTransID(reference string) string {
	sum := sha256.Sum256([]byte("shipd/ups/buy/" + reference))
	return hex.EncodeToString(sum[:])[:32]
}

// Shipping API request (Shipping.yaml SHIPRequestWrapper).
type shipEnvelope struct {
	ShipmentRequest shipRequest `json:"ShipmentRequest"`
}

type shipRequest struct {
	Request            shipRequestHeader  `json:"Request"`
	Shipment           shipShipment       `json:"Shipment"`
	LabelSpecification labelSpecification `json:"LabelSpecification"`
}

type shipRequestHeader struct {
	RequestOption        string                `json:"RequestOption"`
	TransactionReference *transactionReference `json:"TransactionReference,omitempty"`
}

type shipShipment struct {
	// ReturnService makes the shipment a return (Shipping.yaml
	// Shipment_ReturnService): code 9, UPS Print Return Label.
	ReturnService          *codeDesc               `json:"ReturnService,omitempty"`
	Description            string                  `json:"Description"`
	DocumentsOnlyIndicator *indicator              `json:"DocumentsOnlyIndicator,omitempty"`
	Shipper                party                   `json:"Shipper"`
	ShipTo                 party                   `json:"ShipTo"`
	ShipFrom               party                   `json:"ShipFrom"`
	PaymentInformation     paymentDetails          `json:"PaymentInformation"`
	ReferenceNumber        []referenceNumber       `json:"ReferenceNumber,omitempty"`
	Service                codeDesc                `json:"Service"`
	ShipmentServiceOptions *shipmentServiceOptions `json:"ShipmentServiceOptions,omitempty"`
	Package                []shipPackage           `json:"Package"`
}

type shipPackage struct {
	Description           string                 `json:"Description,omitempty"`
	Packaging             codeDesc               `json:"Packaging"`
	Dimensions            *dimensions            `json:"Dimensions,omitempty"`
	PackageWeight         weight                 `json:"PackageWeight"`
	ReferenceNumber       []referenceNumber      `json:"ReferenceNumber,omitempty"`
	PackageServiceOptions *packageServiceOptions `json:"PackageServiceOptions,omitempty"`
}

type labelSpecification struct {
	LabelImageFormat codeDesc  `json:"LabelImageFormat"`
	HTTPUserAgent    string    `json:"HTTPUserAgent,omitempty"`
	LabelStockSize   stockSize `json:"LabelStockSize"`
}

type stockSize struct {
	Height string `json:"Height"`
	Width  string `json:"Width"`
}

// internationalForms asks UPS for the commercial invoice (FormType 01).
type internationalForms struct {
	FormType        []string       `json:"FormType"`
	InvoiceDate     string         `json:"InvoiceDate"`
	ReasonForExport string         `json:"ReasonForExport"`
	CurrencyCode    string         `json:"CurrencyCode"`
	Contacts        formContacts   `json:"Contacts"`
	Product         []invoiceEntry `json:"Product"`
	// InvoiceNumber is "Required for Invoice forms"; TermsOfShipment the
	// incoterm; OverridePaperlessIndicator has UPS return the invoice's
	// image even when the account sends it paperless (customs.go).
	InvoiceNumber              string     `json:"InvoiceNumber,omitempty"`
	TermsOfShipment            string     `json:"TermsOfShipment,omitempty"`
	OverridePaperlessIndicator *indicator `json:"OverridePaperlessIndicator,omitempty"`
}

type formContacts struct {
	SoldTo party `json:"SoldTo"`
}

type invoiceEntry struct {
	Description       []string    `json:"Description"`
	Unit              invoiceUnit `json:"Unit"`
	CommodityCode     string      `json:"CommodityCode,omitempty"`
	PartNumber        string      `json:"PartNumber"`
	OriginCountryCode string      `json:"OriginCountryCode,omitempty"`
}

type invoiceUnit struct {
	Number            string   `json:"Number"`
	UnitOfMeasurement codeDesc `json:"UnitOfMeasurement"`
	Value             string   `json:"Value"`
}

// Codes of the Shipping API.
const (
	// RequestOption "validate": city, state and postal code are checked
	// together, so a bad address is refused now rather than corrected
	// (for a fee) later.
	shipValidate = "validate"
	// LabelImageFormat GIF: an image shipd can turn into a PDF or a PNG
	// itself; ZPL labels are asked as ZPL (formats.go), EPL/SPL never.
	labelGIF = "GIF"
	// formInvoice is InternationalForms/FormType "01 - Invoice".
	formInvoice = "01"
	// unitPieces is the Product/Unit/UnitOfMeasurement code for pieces.
	unitPieces = "PCS"
	// returnPrintLabel is ReturnService code 9, "UPS Print Return Label":
	// the label is printed by the customer, and UPS bills the shipper's
	// account only when the package enters the UPS network.
	returnPrintLabel = "9"
)

// shipRequest builds the Shipping API request for one package.
func (c *Carrier) shipRequest(s carriers.Shipment, svc service, ref string) shipEnvelope {
	fromCountry, toCountry := carriers.NormalizeCountry(s.From.Country), carriers.NormalizeCountry(s.To.Country)
	domestic := domesticUS(fromCountry, toCountry)
	documents := s.Customs != nil && s.Customs.ContentsType == carriers.ContentsDocuments
	refs := []referenceNumber{{Value: truncate(ref, 35)}}

	pkg := shipPackage{
		Packaging:     codeDesc{Code: packagingCustomer, Description: "Customer Supplied Package"},
		Dimensions:    packageDimensions(s.Parcel),
		PackageWeight: packageWeight(s.Parcel),
	}
	// The shipper is the account that pays: the merchant, who sends an
	// outbound label and receives a return.
	payer := s.From
	if s.Return {
		payer = s.To
		// "Merchandise description of package. Required for shipment with
		// return service" (1 to 35 characters).
		pkg.Description = truncate(returnDescription(s), 35)
	}
	sh := shipShipment{
		Description:            truncate("shipd "+ref, 50),
		DocumentsOnlyIndicator: presence(documents),
		Shipper:                c.shipper(payer),
		ShipTo:                 recipient(s.To),
		ShipFrom:               sender(s.From),
		PaymentInformation: paymentDetails{ShipmentCharge: []shipmentCharge{{
			Type: chargeTransportation, BillShipper: &billShipper{AccountNumber: c.cfg.AccountNumber},
		}}},
		Service: codeDesc{Code: svc.code, Description: svc.display},
	}
	// Reference numbers are package level on US/PR domestic lanes and
	// shipment level on all others ("Valid if the origin/destination pair
	// is (not) US/US or PR/PR").
	if domestic {
		pkg.ReferenceNumber = refs
	} else {
		sh.ReferenceNumber = refs
	}
	var opts shipmentServiceOptions
	if s.Options.SignatureConfirmation {
		if domestic {
			pkg.PackageServiceOptions = &packageServiceOptions{
				DeliveryConfirmation: &deliveryConfirmation{DCISType: dcisPackageSignature},
			}
		} else {
			opts.DeliveryConfirmation = &deliveryConfirmation{DCISType: dcisShipmentSignature}
		}
	}
	if fromCountry != toCountry && s.Customs != nil {
		// Description is the "Description of Goods" customs reads on an
		// international shipment; the reference stays in ReferenceNumber.
		sh.Description = truncate(goodsDescription(s.Customs), 50)
		if !documents {
			opts.InternationalForms = c.invoice(s)
		}
		c.customsDetail(&sh, opts.InternationalForms, s, ref) // customs.go
	}
	if opts != (shipmentServiceOptions{}) {
		sh.ShipmentServiceOptions = &opts
	}
	if s.Return {
		sh.ReturnService = &codeDesc{Code: returnPrintLabel, Description: "UPS Print Return Label"}
	}
	sh.Package = shipPackages(pkg, s) // pieces.go
	return shipEnvelope{ShipmentRequest: shipRequest{
		Request: shipRequestHeader{
			RequestOption:        shipValidate,
			TransactionReference: &transactionReference{CustomerContext: ref},
		},
		Shipment: sh,
		// A PDF's; Buy sets the format asked for.
		LabelSpecification: labelSpecFor(carriers.LabelPDF),
	}}
}

func goodsDescription(cu *carriers.Customs) string {
	var parts []string
	for _, it := range cu.Items {
		if d := strings.TrimSpace(it.Description); d != "" {
			parts = append(parts, d)
		}
	}
	if len(parts) == 0 {
		return cu.ContentsType
	}
	return strings.Join(parts, ", ")
}

// invoice is the commercial invoice UPS prints for non-document
// international shipments. Each customs item's ValueCents is taken as the
// value of the whole line (all its units); UPS wants the unit value.
func (c *Carrier) invoice(s carriers.Shipment) *internationalForms {
	f := &internationalForms{
		FormType:        []string{formInvoice},
		InvoiceDate:     c.cfg.Now().Format("20060102"),
		ReasonForExport: reasonForExport(s.Customs),
		CurrencyCode:    "USD",
		Contacts:        formContacts{SoldTo: partyOf(s.To)},
	}
	for i, it := range s.Customs.Items {
		qty := max(it.Quantity, 1)
		e := invoiceEntry{
			Description: chunks(it.Description, 35, 3),
			Unit: invoiceUnit{
				Number:            fmt.Sprint(qty),
				UnitOfMeasurement: codeDesc{Code: unitPieces, Description: unitPieces},
				Value:             unitValue(it.ValueCents, qty),
			},
			CommodityCode:     strings.NewReplacer(".", "", " ", "").Replace(strings.TrimSpace(it.HSTariffNumber)),
			PartNumber:        fmt.Sprintf("ITEM%d", i+1),
			OriginCountryCode: strings.ToUpper(strings.TrimSpace(it.OriginCountry)),
		}
		f.Product = append(f.Product, e)
	}
	return f
}

// reasonForExport maps the customs contents type to the invoice's
// ReasonForExport (SALE, GIFT, SAMPLE, RETURN, REPAIR, INTERCOMPANYDATA or
// any other reason as text).
func reasonForExport(cu *carriers.Customs) string {
	switch cu.ContentsType {
	case carriers.ContentsMerchandise:
		return "SALE"
	case carriers.ContentsGift:
		return "GIFT"
	case carriers.ContentsSample:
		return "SAMPLE"
	case carriers.ContentsReturnedGoods:
		return "RETURN"
	}
	if e := truncate(cu.ContentsExplanation, 20); e != "" {
		return strings.ToUpper(e)
	}
	return "OTHER"
}

// Shipping API response (Shipping.yaml SHIPResponseWrapper).
type shipAnswer struct {
	ShipmentResponse *struct {
		Response        responseStatus `json:"Response"`
		ShipmentResults *struct {
			ShipmentIdentificationNumber string                   `json:"ShipmentIdentificationNumber"`
			PackageResults               oneOrMany[packageResult] `json:"PackageResults"`
			Form                         *shipForm                `json:"Form"`
		} `json:"ShipmentResults"`
	} `json:"ShipmentResponse"`
}

type packageResult struct {
	TrackingNumber string `json:"TrackingNumber"`
	ShippingLabel  *struct {
		ImageFormat  codeDesc `json:"ImageFormat"`
		GraphicImage string   `json:"GraphicImage"`
	} `json:"ShippingLabel"`
}

// shipResult is what Buy needs from a Shipping answer.
type shipResult struct {
	trackingNumber string
	shipmentID     string
	// image is the decoded label image (GIF, or PNG if UPS sent that), or
	// the ZPL asked for.
	image []byte
	// imageFormat is ImageFormat/Code as answered, upper case ("" when none).
	imageFormat string
	// forms is the international forms' PDF (the commercial invoice), nil
	// when UPS returned none.
	forms []byte
	// pieces are every package's number and label when there are several
	// (multi-piece), the first's above too; nil for one package.
	pieces []pieceResult
}

// parseShipResponse reads a Shipping answer: one package, its tracking
// number and its label image.
func parseShipResponse(body []byte) (shipResult, error) {
	var a shipAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return shipResult{}, fmt.Errorf("ship answer is not the documented JSON: %w", err)
	}
	if a.ShipmentResponse == nil || a.ShipmentResponse.ShipmentResults == nil {
		return shipResult{}, fmt.Errorf("ship answer has no ShipmentResults")
	}
	if code := a.ShipmentResponse.Response.ResponseStatus.Code; code != "" && code != "1" {
		return shipResult{}, fmt.Errorf("ship answer has ResponseStatus %q, not 1 (success)", code)
	}
	r := a.ShipmentResponse.ShipmentResults
	if len(r.PackageResults) == 0 {
		return shipResult{}, fmt.Errorf("ship answer has no PackageResults")
	}
	var pieces []pieceResult
	for _, p := range r.PackageResults {
		pr, err := parsePackageResult(p)
		if err != nil {
			return shipResult{}, err
		}
		pieces = append(pieces, pr)
	}
	tn, img, f := pieces[0].trackingNumber, pieces[0].image, pieces[0].imageFormat
	id := strings.ToUpper(strings.TrimSpace(r.ShipmentIdentificationNumber))
	if id == "" {
		// The shipment id is the first package's 1Z number; a single
		// package shipment is voided by its tracking number.
		id = tn
	}
	forms, err := r.Form.pdf()
	if err != nil {
		return shipResult{}, err
	}
	res := shipResult{trackingNumber: tn, shipmentID: id, image: img, imageFormat: f, forms: forms}
	if len(pieces) > 1 {
		res.pieces = pieces
	}
	return res, nil
}

// parsePackageResult reads one package of a Shipping answer: its tracking
// number and its label image.
func parsePackageResult(p packageResult) (pieceResult, error) {
	tn := strings.ToUpper(strings.TrimSpace(p.TrackingNumber))
	if tn == "" {
		return pieceResult{}, fmt.Errorf("ship answer has no TrackingNumber")
	}
	if p.ShippingLabel == nil || strings.TrimSpace(p.ShippingLabel.GraphicImage) == "" {
		return pieceResult{}, fmt.Errorf("ship answer has no label image (ShippingLabel/GraphicImage)")
	}
	f := strings.ToUpper(strings.TrimSpace(p.ShippingLabel.ImageFormat.Code))
	switch f {
	case "", "GIF", "PNG", labelZPL:
	default:
		return pieceResult{}, fmt.Errorf("label image format is %q, not GIF or ZPL", f)
	}
	img, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(p.ShippingLabel.GraphicImage), ""))
	if err != nil {
		return pieceResult{}, fmt.Errorf("label image is not base64: %w", err)
	}
	return pieceResult{trackingNumber: tn, image: img, imageFormat: f}, nil
}

// returnDescription is a return package's merchandise description: the
// goods declared, or a plain "Returned merchandise".
func returnDescription(s carriers.Shipment) string {
	if s.Customs != nil && len(s.Customs.Items) > 0 {
		return goodsDescription(s.Customs)
	}
	return "Returned merchandise"
}

// ReturnService: every UPS service shipd sells can be bought as a UPS Print
// Return Label (code 9); UPS restricts other return services (5, 10) on
// freight services, which shipd does not sell.
func (c *Carrier) ReturnService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}
