package dhlexpressfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// noPaperless are destinations whose customs take no paperless trade in
// the fake: a WY shipment to them is refused, unless bypassPLTError.
var noPaperless = map[string]bool{"BR": true, "IN": true}

// templates are the transport label templates the fake draws.
var templates = map[string]bool{"ECOM26_84_001": true, "ECOM26_A6_002": true, "ECOM26_84_A4_001": true, "ECOM_TC_A4": true, "ECOM26_84CI_001": true}

type party struct {
	PostalAddress struct {
		PostalCode   string `json:"postalCode"`
		CityName     string `json:"cityName"`
		CountryCode  string `json:"countryCode"`
		AddressLine1 string `json:"addressLine1"`
	} `json:"postalAddress"`
	ContactInformation struct {
		FullName    string `json:"fullName"`
		CompanyName string `json:"companyName"`
		Phone       string `json:"phone"`
	} `json:"contactInformation"`
	RegistrationNumbers []struct {
		TypeCode          string `json:"typeCode"`
		Number            string `json:"number"`
		IssuerCountryCode string `json:"issuerCountryCode"`
	} `json:"registrationNumbers"`
}

type shipmentRequest struct {
	PlannedShippingDateAndTime string         `json:"plannedShippingDateAndTime"`
	ProductCode                string         `json:"productCode"`
	Accounts                   []account      `json:"accounts"`
	ValueAddedServices         []valueAddedIn `json:"valueAddedServices"`
	CustomerReferences         []struct {
		Value    string `json:"value"`
		TypeCode string `json:"typeCode"`
	} `json:"customerReferences"`
	OutputImageProperties struct {
		EncodingFormat string `json:"encodingFormat"`
		ImageOptions   []struct {
			TypeCode     string `json:"typeCode"`
			TemplateName string `json:"templateName"`
			IsRequested  *bool  `json:"isRequested"`
			InvoiceType  string `json:"invoiceType"`
		} `json:"imageOptions"`
	} `json:"outputImageProperties"`
	CustomerDetails struct {
		ShipperDetails  party `json:"shipperDetails"`
		ReceiverDetails party `json:"receiverDetails"`
	} `json:"customerDetails"`
	Content struct {
		Packages              []packageIn  `json:"packages"`
		IsCustomsDeclarable   bool         `json:"isCustomsDeclarable"`
		DeclaredValue         *json.Number `json:"declaredValue"`
		DeclaredValueCurrency string       `json:"declaredValueCurrency"`
		Description           string       `json:"description"`
		Incoterm              string       `json:"incoterm"`
		USFilingTypeValue     string       `json:"USFilingTypeValue"`
		ExportDeclaration     *struct {
			ExportReasonType string `json:"exportReasonType"`
			Invoice          struct {
				Number string `json:"number"`
				Date   string `json:"date"`
			} `json:"invoice"`
			LineItems []struct {
				Description string      `json:"description"`
				Price       json.Number `json:"price"`
				Total       json.Number `json:"preCalculatedLineItemTotalValue"`
				Quantity    struct {
					Value int `json:"value"`
				} `json:"quantity"`
				CommodityCodes []struct {
					Value string `json:"value"`
				} `json:"commodityCodes"`
				ManufacturerCountry string `json:"manufacturerCountry"`
			} `json:"lineItems"`
		} `json:"exportDeclaration"`
	} `json:"content"`
}

func (r shipmentRequest) has(service string) bool {
	return slices.ContainsFunc(r.ValueAddedServices, func(v valueAddedIn) bool { return v.ServiceCode == service })
}

// sale is the fake's record of a shipment it created.
type sale struct {
	fakekit.Sale
	product   string
	paperless bool
	request   shipmentRequest
	calls     int // tracking answers given: the checkpoints move on with each
}

// Sold is a shipment the fake created, as tests see it.
type Sold struct {
	Waybill, Reference, Product string
	// Pieces are the packages' numbers (JD…).
	Pieces []string
	// Paperless: the invoice went to customs electronically (WY on a lane
	// that takes it).
	Paperless bool
	// Shipper and Receiver are the parties' registration numbers, as
	// "TYPE number issuer".
	Shipper, Receiver []string
}

func (s *sale) sold() Sold {
	reg := func(p party) []string {
		var out []string
		for _, r := range p.RegistrationNumbers {
			out = append(out, r.TypeCode+" "+r.Number+" "+r.IssuerCountryCode)
		}
		return out
	}
	return Sold{Waybill: s.TrackingNumber, Reference: s.Reference, Product: s.product, Pieces: slices.Clone(s.Pieces),
		Paperless: s.paperless, Shipper: reg(s.request.CustomerDetails.ShipperDetails), Receiver: reg(s.request.CustomerDetails.ReceiverDetails)}
}

// Sales are the shipments created with reference, in the order created.
func (s *Server) Sales(reference string) []Sold {
	var out []Sold
	s.sales.Each(func(rec *sale) {
		if rec.Reference == reference {
			out = append(out, rec.sold())
		}
	})
	return out
}

// Sale is the shipment of waybill, if the fake created it.
func (s *Server) Sale(waybill string) (Sold, bool) {
	var out Sold
	ok := s.sales.With(waybill, func(rec *sale) { out = rec.sold() })
	return out, ok
}

// HoldShips holds the shipments' answers until ReleaseShips: the
// shipment is created when the request arrives, its answer waits.
func (s *Server) HoldShips() { s.Hold(OpShip) }

// ReleaseShips sends the held answers.
func (s *Server) ReleaseShips() { s.Release(OpShip) }

func (s *Server) ship(w http.ResponseWriter, r *http.Request, body []byte) {
	s.mu.Lock()
	s.shipQuery = r.URL.Query()
	s.mu.Unlock()
	var req shipmentRequest
	if !decode(w, r, body, &req) || !checkAccounts(w, r, req.Accounts) {
		return
	}
	planned, ok := parsePlanned(req.PlannedShippingDateAndTime)
	if !ok {
		unprocessable(w, r, "", "plannedShippingDateAndTime is not of the form 2022-10-19T19:19:40 GMT+00:00")
		return
	}
	from, to := req.CustomerDetails.ShipperDetails.PostalAddress, req.CustomerDetails.ReceiverDetails.PostalAddress
	c := req.Content
	l := laneOf(addressLike{PostalCode: from.PostalCode, CountryCode: from.CountryCode}, addressLike{PostalCode: to.PostalCode, CountryCode: to.CountryCode}, c.IsCustomsDeclarable)
	if !l.sells(req.ProductCode) {
		unprocessable(w, r, "420505", fmt.Sprintf("The product %s is not available from %s to %s for this shipment (isCustomsDeclarable %v)",
			req.ProductCode, from.CountryCode, to.CountryCode, c.IsCustomsDeclarable))
		return
	}
	if problems := declarationProblems(req); len(problems) > 0 {
		unprocessable(w, r, "420600", "The export declaration is not valid", problems...)
		return
	}
	ddp := strings.EqualFold(c.Incoterm, "DDP")
	if ddp != req.has("DD") {
		unprocessable(w, r, "420700", "A DDP shipment (incoterm DDP) needs the DD service, and DD an incoterm DDP")
		return
	}
	paperless := req.has("WY")
	if paperless && !c.IsCustomsDeclarable {
		unprocessable(w, r, "420800", "WY (paperless trade) is for shipments declared to customs")
		return
	}
	if paperless && noPaperless[to.CountryCode] {
		if r.URL.Query().Get("bypassPLTError") != "true" {
			unprocessable(w, r, "420801", "WY (paperless trade) is not available on this lane")
			return
		}
		paperless = false
	}
	format := strings.ToLower(req.OutputImageProperties.EncodingFormat)
	if format != "pdf" && format != "zpl" {
		unprocessable(w, r, "", "encodingFormat must be pdf or zpl here")
		return
	}
	var template string
	invoice := false
	for _, o := range req.OutputImageProperties.ImageOptions {
		switch o.TypeCode {
		case "label":
			template = o.TemplateName
		case "invoice":
			invoice = o.IsRequested != nil && *o.IsRequested
		}
	}
	if template == "" {
		template = "ECOM26_84_001"
	}
	if !templates[template] {
		unprocessable(w, r, "", "Unknown label template "+template)
		return
	}
	if invoice && !c.IsCustomsDeclarable {
		unprocessable(w, r, "", "A commercial invoice is for shipments declared to customs")
		return
	}
	var ref string
	for _, cr := range req.CustomerReferences {
		if cr.TypeCode == "CU" {
			ref = cr.Value
		}
	}

	s.mu.Lock()
	waybill := fmt.Sprint(s.nextWaybill)
	s.nextWaybill++
	pieces := make([]string, len(c.Packages))
	for i := range pieces {
		pieces[i] = fmt.Sprintf("JD0146%014d", s.nextPiece)
		s.nextPiece++
	}
	perPage := s.labelPerPage
	s.mu.Unlock()
	rec := &sale{Sale: fakekit.Sale{TrackingNumber: waybill, Reference: ref, Account: callerAccount(r), Pieces: pieces, SoldAt: s.Now()},
		product: req.ProductCode, paperless: paperless, request: req}
	s.sales.Sell(rec)

	var docs []map[string]any
	labels, err := renderLabels(req, waybill, pieces, format, template, planned, perPage)
	if err != nil {
		writeProblem(w, r, http.StatusInternalServerError, "Internal Server Error", "999", err.Error())
		return
	}
	for _, l := range labels {
		docs = append(docs, map[string]any{"typeCode": "label", "imageFormat": strings.ToUpper(format), "content": base64.StdEncoding.EncodeToString(l)})
	}
	if invoice {
		pdf, err := renderInvoice(req, waybill, paperless)
		if err != nil {
			writeProblem(w, r, http.StatusInternalServerError, "Internal Server Error", "999", err.Error())
			return
		}
		docs = append(docs, map[string]any{"typeCode": "invoice", "imageFormat": "PDF", "content": base64.StdEncoding.EncodeToString(pdf)})
	}
	packages := make([]map[string]any, len(pieces))
	for i, p := range pieces {
		packages[i] = map[string]any{"referenceNumber": i + 1, "trackingNumber": p,
			"trackingUrl": "https://api-mock.dhl.com/mydhlapi/shipments/" + waybill + "/tracking?PieceID=" + p}
	}
	delivery := planned.AddDate(0, 0, products[req.ProductCode].days)
	fakekit.WriteJSON(w, http.StatusCreated, map[string]any{
		"shipmentTrackingNumber": waybill,
		"trackingUrl":            "https://api-mock.dhl.com/mydhlapi/shipments/" + waybill + "/tracking",
		"packages":               packages,
		"documents":              docs,
		"estimatedDeliveryDate":  map[string]any{"estimatedDeliveryDate": delivery.Format("2006-01-02") + "T23:59:00Z", "estimatedDeliveryType": "QDDC"},
	})
}

// declarationProblems are what DHL refuses of a shipment's customs content:
// a declarable shipment needs a declared value in a currency and an export
// declaration whose lines add up to it (each line's unit price times its
// quantity being its total, to the cent).
func declarationProblems(req shipmentRequest) []string {
	c := req.Content
	if !c.IsCustomsDeclarable {
		if c.ExportDeclaration != nil {
			return []string{"#/content/exportDeclaration: only for shipments declared to customs"}
		}
		return nil
	}
	var out []string
	if c.DeclaredValue == nil || len(c.DeclaredValueCurrency) != 3 {
		out = append(out, "#/content: declaredValue and declaredValueCurrency are required for a declarable shipment")
	}
	if c.ExportDeclaration == nil || len(c.ExportDeclaration.LineItems) == 0 {
		return append(out, "#/content/exportDeclaration: required for a declarable shipment")
	}
	sum := new(big.Rat)
	for i, li := range c.ExportDeclaration.LineItems {
		total := rat(string(li.Total))
		unit := rat(string(li.Price))
		if total == nil || unit == nil {
			out = append(out, fmt.Sprintf("#/content/exportDeclaration/lineItems/%d: price and preCalculatedLineItemTotalValue are required", i))
			continue
		}
		gap := new(big.Rat).Sub(new(big.Rat).Mul(unit, big.NewRat(int64(li.Quantity.Value), 1)), total)
		if gap.Abs(gap).Cmp(big.NewRat(int64(li.Quantity.Value), 1000)) > 0 {
			out = append(out, fmt.Sprintf("#/content/exportDeclaration/lineItems/%d: price times quantity is not the line's total", i))
		}
		sum.Add(sum, total)
	}
	if c.DeclaredValue != nil {
		if d := rat(string(*c.DeclaredValue)); d == nil || d.Cmp(sum) != 0 {
			out = append(out, "#/content/declaredValue: not the sum of the line items")
		}
	}
	return out
}

// renderLabels draws the transport labels: one document of every piece's
// label (a page each, or one ZPL label each), or one document per piece.
func renderLabels(req shipmentRequest, waybill string, pieces []string, format, template string, planned time.Time, perPiece bool) ([][]byte, error) {
	var out [][]byte
	if format == "zpl" {
		var all bytes.Buffer
		for i, p := range pieces {
			one := zplLabel(req, waybill, p, i+1, len(pieces))
			if perPiece {
				out = append(out, one)
			} else {
				all.Write(one)
			}
		}
		if !perPiece {
			out = append(out, all.Bytes())
		}
		return out, nil
	}
	if perPiece {
		for i, p := range pieces {
			pdf, err := pdfLabels(req, waybill, []string{p}, i, len(pieces), template, planned)
			if err != nil {
				return nil, err
			}
			out = append(out, pdf)
		}
		return out, nil
	}
	pdf, err := pdfLabels(req, waybill, pieces, 0, len(pieces), template, planned)
	return [][]byte{pdf}, err
}

// pdfLabels draws the labels of pieces (numbered from first+1 of total) on
// the template's page: A6 (105 x 148 mm) or A4. It is not compressed, so
// that a test finds its text.
func pdfLabels(req shipmentRequest, waybill string, pieces []string, first, total int, template string, planned time.Time) ([]byte, error) {
	size := fpdf.SizeType{Wd: 105, Ht: 148}
	if strings.Contains(template, "A4") {
		size = fpdf.SizeType{Wd: 210, Ht: 297}
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: size})
	pdf.SetCompression(false)
	pdf.SetAutoPageBreak(false, 0)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	p := products[req.ProductCode]
	from, to := req.CustomerDetails.ShipperDetails, req.CustomerDetails.ReceiverDetails
	for i, piece := range pieces {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "B", 16)
		pdf.Text(6, 12, "DHL EXPRESS")
		pdf.SetFont("Helvetica", "B", 9)
		pdf.Text(6, 19, p.name+" - product "+req.ProductCode)
		pdf.SetFont("Helvetica", "", 8)
		lines := []string{
			"From: " + from.ContactInformation.FullName + ", " + from.PostalAddress.CityName + " " + from.PostalAddress.CountryCode,
			"To: " + to.ContactInformation.FullName, to.PostalAddress.AddressLine1,
			to.PostalAddress.PostalCode + " " + to.PostalAddress.CityName + " " + to.PostalAddress.CountryCode,
			"WAYBILL " + waybill,
			fmt.Sprintf("Piece %d/%d: %s", first+i+1, total, piece),
			"Date: " + planned.Format("2006-01-02"),
			"Template: " + template,
			"DHLEXPRESSFAKE - NOT FOR SHIPPING",
		}
		if v := req.Content.USFilingTypeValue; v != "" {
			lines = append(lines, v)
		}
		for j, l := range lines {
			pdf.Text(6, float64(28+6*j), tr(l))
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zplLabel(req shipmentRequest, waybill, piece string, n, total int) []byte {
	text := strings.NewReplacer("^", " ", "~", " ")
	var b strings.Builder
	b.WriteString("^XA\n^PW812\n^LL1218\n^FO40,40^A0N,60,60^FDDHL EXPRESS^FS\n")
	fmt.Fprintf(&b, "^FO40,120^A0N,40,40^FD%s^FS\n", text.Replace(products[req.ProductCode].name))
	fmt.Fprintf(&b, "^FO60,250^A0N,40,40^FD%s^FS\n", text.Replace(req.CustomerDetails.ReceiverDetails.ContactInformation.FullName))
	fmt.Fprintf(&b, "^FO60,320^A0N,30,30^FDPiece %d/%d^FS\n", n, total)
	fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n^FO60,950^A0N,30,30^FDWAYBILL %s^FS\n^XZ\n", piece, waybill)
	return []byte(b.String())
}

// renderInvoice draws the commercial invoice DHL generates from the export
// declaration, saying whether it went to customs electronically.
func renderInvoice(req shipmentRequest, waybill string, paperless bool) ([]byte, error) {
	d := req.Content.ExportDeclaration
	lines := []string{
		"Waybill: " + waybill,
		"Invoice number: " + d.Invoice.Number + "   Date: " + d.Invoice.Date,
		"Incoterm: " + req.Content.Incoterm,
		"Export reason: " + d.ExportReasonType,
	}
	for _, p := range []struct {
		role string
		p    party
	}{{"Exporter", req.CustomerDetails.ShipperDetails}, {"Importer", req.CustomerDetails.ReceiverDetails}} {
		for _, r := range p.p.RegistrationNumbers {
			lines = append(lines, fmt.Sprintf("%s %s: %s issued by %s", p.role, r.TypeCode, r.Number, r.IssuerCountryCode))
		}
	}
	for i, li := range d.LineItems {
		hs := ""
		if len(li.CommodityCodes) > 0 {
			hs = li.CommodityCodes[0].Value
		}
		lines = append(lines, fmt.Sprintf("%d. %s x%d at %s = %s %s HS %s origin %s", i+1, li.Description, li.Quantity.Value,
			li.Price, li.Total, req.Content.DeclaredValueCurrency, hs, li.ManufacturerCountry))
	}
	if req.Content.DeclaredValue != nil {
		lines = append(lines, "Total declared value: "+string(*req.Content.DeclaredValue)+" "+req.Content.DeclaredValueCurrency)
	}
	if paperless {
		lines = append(lines, "Paperless trade WY: sent to customs electronically")
	} else {
		lines = append(lines, "Print and attach: no paperless trade on this lane")
	}
	return fakekit.TextPDF("DHL EXPRESS COMMERCIAL INVOICE", lines)
}
