package dpd

import (
	"math"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// international is the META-API's International: the customs data of a
// shipment between two customs territories (a closed object in
// openapi_metaapi_shipping.yaml).
type international struct {
	ParcelType        string        `json:"parcelType"`
	CustomsAmount     amount        `json:"customsAmount"`
	CustomsTerms      string        `json:"customsTerms"`
	CustomsPaper      string        `json:"customsPaper"`
	CustomsInvoice    string        `json:"customsInvoice,omitempty"`
	NumberOfArticles  string        `json:"numberOfArticles"`
	ExportReason      string        `json:"exportReason"`
	InterInvoiceLines []invoiceLine `json:"interInvoiceLines"`
}

type amount struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// invoiceLine is an InterInvoiceLine (closed in
// openapi_metaapi_shipping.yaml).
type invoiceLine struct {
	InvoicePosition     string  `json:"invoicePosition"`
	QuantityOfItems     string  `json:"quantityOfItems"`
	Content             string  `json:"content"`
	AmountOfPosition    float64 `json:"amountOfPosition"`
	ManufacturedCountry string  `json:"manufacturedCountry,omitempty"`
	GrossWeight         string  `json:"grossWeight"`
	ExportTarifCode     string  `json:"exportTarifCode,omitempty"`
}

// customsCurrency is the currency of shipd's declared values (the
// commercial invoice shipd renders says USD).
const customsCurrency = "USD"

// internationalOf is the customs block of s: nil unless its two addresses
// are in different customs territories and it is declared. The terms:
// s06 DAP, or s03 DDP (duties and taxes paid by the sender); the paper A
// (the commercial invoice shipd renders travels with the parcel); the
// reason s01 sale, s02 a return, s03 a gift.
func internationalOf(s carriers.Shipment, ref string) *international {
	c := s.Customs
	if c == nil || !carriers.CustomsRequired(s.From, s.To) {
		return nil
	}
	in := &international{
		ParcelType: "P", CustomsAmount: amount{Amount: money(c.TotalValueCents()), Currency: customsCurrency},
		CustomsTerms: "s06", CustomsPaper: "A", NumberOfArticles: strconv.Itoa(len(c.Items)), ExportReason: "s01",
		CustomsInvoice: strings.TrimSpace(c.InvoiceNumber),
	}
	if in.CustomsInvoice == "" {
		in.CustomsInvoice = ref
	}
	if c.DDP() {
		in.CustomsTerms = "s03"
	}
	switch c.ContentsType {
	case carriers.ContentsDocuments:
		in.ParcelType = "D"
	case carriers.ContentsGift:
		in.ExportReason = "s03"
	case carriers.ContentsReturnedGoods:
		in.ExportReason = "s02"
	}
	for i, it := range c.Items {
		line := invoiceLine{InvoicePosition: strconv.Itoa(i + 1), QuantityOfItems: strconv.Itoa(it.Quantity),
			Content: carriers.Excerpt(strings.TrimSpace(it.Description)), AmountOfPosition: money(it.ValueCents),
			ManufacturedCountry: strings.ToUpper(strings.TrimSpace(it.OriginCountry)),
			GrossWeight:         strconv.Itoa(max(int(math.Ceil(it.WeightOz*carriers.GramsPerOunce-1e-9)), 1))}
		if hs, ok := carriers.HSDigits(it.HSTariffNumber); ok && len(hs) <= 11 {
			line.ExportTarifCode = hs
		}
		in.InterInvoiceLines = append(in.InterInvoiceLines, line)
	}
	return in
}

// money is cents as the META-API's amount, a decimal number.
func money(cents int64) float64 { return float64(cents) / 100 }
