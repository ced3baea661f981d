package ups

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// chargeDutiesAndTaxes is ShipmentCharge/Type "02 - Duties and Taxes":
// billed to the shipper's account for a DDP shipment.
const chargeDutiesAndTaxes = "02"

// customsDetail adds what the declaration says beyond its items to an
// international shipment: the invoice's number (UPS requires one on an
// invoice form; the shipd shipment id when none was declared) and terms of
// shipment (the incoterm), the parties' tax ids, duties billed to the
// shipper for DDP, and OverridePaperlessIndicator. UPS sends the invoice
// to customs electronically when the account is paperless-enabled and
// the destination accepts it (UPS decides per lane); the indicator has it
// return the invoice's image in any case, kept as the label's customs
// document, to print where the lane is not paperless.
func (c *Carrier) customsDetail(sh *shipShipment, f *internationalForms, s carriers.Shipment, ref string) {
	cu := s.Customs
	if t := strings.TrimSpace(cu.ExporterTaxID); t != "" {
		sh.Shipper.TaxIdentificationNumber = truncate(t, 15)
	}
	if cu.DDP() {
		sh.PaymentInformation.ShipmentCharge = append(sh.PaymentInformation.ShipmentCharge,
			shipmentCharge{Type: chargeDutiesAndTaxes, BillShipper: &billShipper{AccountNumber: c.cfg.AccountNumber}})
	}
	if f == nil {
		return
	}
	f.InvoiceNumber = truncate(firstNonBlank(cu.InvoiceNumber, ref), 35)
	f.TermsOfShipment = cu.IncotermOrDefault()
	f.OverridePaperlessIndicator = presence(true)
	if t := strings.TrimSpace(cu.ImporterTaxID); t != "" {
		f.Contacts.SoldTo.TaxIdentificationNumber = truncate(t, 15)
	}
}

func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// shipForm is ShipmentResults/Form: the international forms UPS made
// ("01 - All Requested International Forms"), a base64 PDF.
type shipForm struct {
	Code  string `json:"Code"`
	Image *struct {
		ImageFormat  codeDesc `json:"ImageFormat"`
		GraphicImage string   `json:"GraphicImage"`
	} `json:"Image"`
}

// pdf is the forms' PDF; nil when the answer has none.
func (f *shipForm) pdf() ([]byte, error) {
	if f == nil || f.Image == nil || strings.TrimSpace(f.Image.GraphicImage) == "" {
		return nil, nil
	}
	if code := strings.ToUpper(strings.TrimSpace(f.Image.ImageFormat.Code)); code != "" && code != "PDF" {
		return nil, fmt.Errorf("international forms image is %q, not a PDF", code)
	}
	doc, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(f.Image.GraphicImage), ""))
	if err != nil {
		return nil, fmt.Errorf("international forms image is not base64: %w", err)
	}
	if !strings.HasPrefix(string(doc), "%PDF-") {
		return nil, fmt.Errorf("international forms image is not a PDF")
	}
	return doc, nil
}
