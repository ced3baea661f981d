package fedex

import (
	"encoding/base64"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// etdDetail is ETDDetail: the documents FedEx sends electronically with an
// ELECTRONIC_TRADE_DOCUMENTS shipment.
type etdDetail struct {
	RequestedDocumentTypes []string `json:"requestedDocumentTypes"`
}

// shippingDocumentSpecification is ShippingDocumentSpecification: the
// documents FedEx generates and returns with the label.
type shippingDocumentSpecification struct {
	ShippingDocumentTypes   []string                 `json:"shippingDocumentTypes"`
	CommercialInvoiceDetail *commercialInvoiceDetail `json:"commercialInvoiceDetail,omitempty"`
}

type commercialInvoiceDetail struct {
	DocumentFormat documentFormat `json:"documentFormat"`
}

type documentFormat struct {
	DocType   string `json:"docType"`
	StockType string `json:"stockType"`
}

// exportDetail is ExportDetail: exportComplianceStatement is the ITN or the
// FTR exemption of a US export ("AES X20261127123456", "NO EEI 30.37(a)").
type exportDetail struct {
	ExportComplianceStatement string `json:"exportComplianceStatement,omitempty"`
}

// tin is TaxpayerIdentification.
type tin struct {
	Number  string `json:"number"`
	TinType string `json:"tinType"`
}

// documentCommercialInvoice is the commercial invoice's document type.
const documentCommercialInvoice = "COMMERCIAL_INVOICE"

// tradeDocuments completes an international Ship request with the
// declaration beyond its items: the incoterm (termsOfSale; DDP bills the
// duties to the sender), the invoice's number, the export filing, the
// parties' tax ids, and electronic trade documents. With ETD FedEx sends
// the commercial invoice it generates to customs electronically where the
// destination accepts it (FedEx decides per lane); shippingDocumentSpecification
// has it return the same invoice as a PDF in any case, kept as the label's
// customs document for lanes where it must be printed. Documents-only
// shipments need no invoice.
func tradeDocuments(rs *shipRequestedShipment, s carriers.Shipment, ref string) {
	cu, cc := s.Customs, rs.CustomsClearanceDetail
	cc.CommercialInvoice.TermsOfSale = cu.IncotermOrDefault()
	if cu.DDP() {
		cc.DutiesPayment = &payment{PaymentType: "SENDER"}
	}
	number := strings.TrimSpace(cu.InvoiceNumber)
	if number == "" {
		number = ref
	}
	cc.CommercialInvoice.CustomerReferences = []customerReference{{CustomerReferenceType: "INVOICE_NUMBER", Value: number}}
	if e := cu.EEL(s.From.Country); e != "" {
		cc.ExportDetail = &exportDetail{ExportComplianceStatement: exportStatement(e)}
	}
	if t := strings.TrimSpace(cu.ExporterTaxID); t != "" {
		rs.Shipper.Tins = []tin{{Number: truncate(t, 18), TinType: "BUSINESS_NATIONAL"}}
	}
	if t := strings.TrimSpace(cu.ImporterTaxID); t != "" && len(rs.Recipients) == 1 {
		rs.Recipients[0].Tins = []tin{{Number: truncate(t, 18), TinType: "BUSINESS_NATIONAL"}}
	}
	if cc.IsDocumentOnly {
		return
	}
	if rs.ShipmentSpecialServices == nil {
		rs.ShipmentSpecialServices = &shipmentSpecialServices{}
	}
	rs.ShipmentSpecialServices.SpecialServiceTypes = append(rs.ShipmentSpecialServices.SpecialServiceTypes, "ELECTRONIC_TRADE_DOCUMENTS")
	rs.ShipmentSpecialServices.EtdDetail = &etdDetail{RequestedDocumentTypes: []string{documentCommercialInvoice}}
	rs.ShippingDocumentSpecification = &shippingDocumentSpecification{
		ShippingDocumentTypes:   []string{documentCommercialInvoice},
		CommercialInvoiceDetail: &commercialInvoiceDetail{DocumentFormat: documentFormat{DocType: "PDF", StockType: "PAPER_LETTER"}},
	}
}

// exportStatement writes an export filing as FedEx's examples do: the ITN
// as "AESX..." and an exemption as "NO EEI 30.37(a)".
func exportStatement(eel string) string {
	if itn, ok := carriers.ITN(eel); ok {
		return "AES" + itn
	}
	if e := strings.TrimSpace(eel); len(e) > 6 && strings.EqualFold(e[:6], "NOEEI ") {
		return "NO EEI " + e[6:]
	}
	return strings.TrimSpace(eel)
}

// commercialInvoiceOf is the invoice PDF among a ship answer's shipment
// documents; nil when FedEx returned none.
func commercialInvoiceOf(docs []packageDocument, tn string) ([]byte, error) {
	for _, d := range docs {
		if d.ContentType != documentCommercialInvoice || strings.TrimSpace(d.EncodedLabel) == "" {
			continue
		}
		pdf, err := base64.StdEncoding.DecodeString(strings.TrimSpace(d.EncodedLabel))
		if err != nil || !strings.HasPrefix(string(pdf), "%PDF") {
			return nil, malformed(opBuy, "the commercial invoice of %s is not a base64 PDF", tn)
		}
		return pdf, nil
	}
	return nil, nil
}

// truncate cuts s to n bytes, FedEx's field limits being in characters of
// the ASCII tax ids they hold.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
