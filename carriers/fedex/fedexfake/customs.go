package fedexfake

import (
	"encoding/base64"
	"slices"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// shippingDocumentSpecification is ShippingDocumentSpecification, as far as
// the fake generates documents: the commercial invoice.
type shippingDocumentSpecification struct {
	ShippingDocumentTypes   []string `json:"shippingDocumentTypes"`
	CommercialInvoiceDetail *struct {
		DocumentFormat *struct {
			DocType   string `json:"docType"`
			StockType string `json:"stockType"`
		} `json:"documentFormat"`
	} `json:"commercialInvoiceDetail"`
}

type tin struct {
	Number  string `json:"number"`
	TinType string `json:"tinType"`
}

var (
	// documentTypes are the values of shippingDocumentTypes and of
	// etdDetail.requestedDocumentTypes.
	documentTypes = []string{"CERTIFICATE_OF_ORIGIN", "COMMERCIAL_INVOICE", "CUSTOM_PACKAGE_DOCUMENT", "CUSTOM_SHIPMENT_DOCUMENT",
		"CUSTOMER_SPECIFIED_LABELS", "EXPORT_DECLARATION", "GENERAL_AGENCY_AGREEMENT", "LABEL", "USMCA_CERTIFICATION_OF_ORIGIN", "OP_900",
		"PENDING_SHIPMENT_EMAIL_NOTIFICATION", "PRO_FORMA_INVOICE", "RETURN_INSTRUCTIONS", "USMCA_COMMERCIAL_INVOICE_CERTIFICATION_OF_ORIGIN"}
	tinTypes = []string{"PERSONAL_NATIONAL", "PERSONAL_STATE", "FEDERAL", "BUSINESS_NATIONAL", "BUSINESS_STATE", "BUSINESS_UNION"}
)

// fakeInvoice is what the fake prints on the commercial invoice it returns.
type fakeInvoice struct {
	number, terms, export string
	etd                   bool
	lines                 []string
}

// tradeDocuments checks ELECTRONIC_TRADE_DOCUMENTS (etdDetail), the
// documents asked for, tax ids, termsOfSale and the invoice's number, and
// returns the invoice to generate; nil when none was asked for.
func (p *problems) tradeDocuments(req shipRequest) *fakeInvoice {
	rs := req.RequestedShipment
	etd := false
	if ss := rs.ShipmentSpecialServices; ss != nil {
		etd = slices.Contains(ss.SpecialServiceTypes, "ELECTRONIC_TRADE_DOCUMENTS")
		switch {
		case etd && (ss.EtdDetail == nil || len(ss.EtdDetail.RequestedDocumentTypes) == 0):
			p.add("requestedShipment.shipmentSpecialServices.etdDetail.requestedDocumentTypes is required with ELECTRONIC_TRADE_DOCUMENTS")
		case !etd && ss.EtdDetail != nil:
			p.add("requestedShipment.shipmentSpecialServices.etdDetail needs ELECTRONIC_TRADE_DOCUMENTS in specialServiceTypes")
		case etd:
			for _, t := range ss.EtdDetail.RequestedDocumentTypes {
				p.enum("requestedShipment.shipmentSpecialServices.etdDetail.requestedDocumentTypes", t, documentTypes)
			}
		}
	}
	parties := append([]shipParty{}, rs.Recipients...)
	if rs.Shipper != nil {
		parties = append(parties, *rs.Shipper)
	}
	for _, party := range parties {
		for _, t := range party.Tins {
			p.enum("tins.tinType", t.TinType, tinTypes)
			if t.Number == "" || len(t.Number) > 18 {
				p.add("tins.number %q must be 1 to 18 characters", t.Number)
			}
		}
	}
	ds := rs.ShippingDocumentSpecification
	if ds == nil || !slices.Contains(ds.ShippingDocumentTypes, "COMMERCIAL_INVOICE") {
		return nil
	}
	for _, t := range ds.ShippingDocumentTypes {
		p.enum("requestedShipment.shippingDocumentSpecification.shippingDocumentTypes", t, documentTypes)
	}
	if d := ds.CommercialInvoiceDetail; d == nil || d.DocumentFormat == nil || d.DocumentFormat.DocType != "PDF" {
		p.add("requestedShipment.shippingDocumentSpecification.commercialInvoiceDetail.documentFormat.docType must be PDF")
	}
	cc := rs.CustomsClearanceDetail
	if cc == nil || cc.CommercialInvoice == nil {
		p.add("a commercial invoice needs requestedShipment.customsClearanceDetail.commercialInvoice")
		return nil
	}
	inv := &fakeInvoice{terms: cc.CommercialInvoice.TermsOfSale, etd: etd}
	if len(inv.terms) > 3 {
		p.add("requestedShipment.customsClearanceDetail.commercialInvoice.termsOfSale %q: max length is 3", inv.terms)
	}
	for _, r := range cc.CommercialInvoice.CustomerReferences {
		if r.CustomerReferenceType == "INVOICE_NUMBER" {
			inv.number = r.Value
		}
	}
	if cc.ExportDetail != nil {
		inv.export = cc.ExportDetail.ExportComplianceStatement
	}
	for _, c := range cc.Commodities {
		inv.lines = append(inv.lines, c.Description)
	}
	return inv
}

// documents is transactionShipments[].shipmentDocuments: the invoice as a
// base64 PDF (LabelResponseVO), none without one.
func (inv *fakeInvoice) documents(trackingNumber string) []any {
	if inv == nil {
		return []any{}
	}
	etd := "printed"
	if inv.etd {
		etd = "sent electronically (ETD)"
	}
	pdf, err := fakekit.TextPDF("FEDEX COMMERCIAL INVOICE (fake)", append([]string{"Invoice number: " + inv.number, "Terms of sale: " + inv.terms,
		"Export: " + inv.export, "AWB: " + trackingNumber, "Trade documents: " + etd}, inv.lines...))
	if err != nil {
		return []any{}
	}
	return []any{map[string]any{
		"contentType": "COMMERCIAL_INVOICE", "copiesToPrint": 3, "docType": "PDF", "trackingNumber": trackingNumber,
		"encodedLabel": base64.StdEncoding.EncodeToString(pdf),
	}}
}
