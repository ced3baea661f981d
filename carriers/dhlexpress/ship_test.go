package dhlexpress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

// A domestic label is a PDF on DHL's A6 template for 4x6, with the waybill
// as its tracking number and no invoice.
func TestBuyDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234520", domestic(), "DomesticExpress", "EUR"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(l.Document, []byte("%PDF")) || l.Format != carriers.LabelPDF || len(l.TrackingNumber) != 10 ||
		l.CustomsDocument != nil || l.Pieces != nil {
		t.Fatalf("label %s (%s), %d bytes, invoice %d bytes, pieces %v", l.TrackingNumber, l.Format, len(l.Document), len(l.CustomsDocument), l.Pieces)
	}
	if !bytes.Contains(l.Document, []byte("ECOM26_A6_002")) || !bytes.Contains(l.Document, []byte("DOMESTIC EXPRESS - product N")) {
		t.Errorf("the label is not DHL's A6 DOMESTIC EXPRESS")
	}
	sold, ok := fake.Sale(l.TrackingNumber)
	if !ok || sold.Reference != "shp_0123456789abcdef01234520" || sold.Product != "N" {
		t.Errorf("DHL sold %+v", sold)
	}
	if ref := fake.LastHeader(dhlexpressfake.OpShip).Get("Message-Reference"); ref != "shipd-shp_0123456789abcdef01234520" {
		t.Errorf("Message-Reference %q", ref)
	}
}

// Goods from the US to France DDP: product P with DD and paperless trade
// (WY), DHL's commercial invoice kept as the customs document, and every
// registration number of the declaration sent as its kind: the EORI (EOR,
// issued by Germany, its prefix), the US exporter's EIN, the IOSS (SDT,
// issued by France: 250) and the importer's VAT.
func TestBuyDDPPaperlessWithRegistrations(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234521", usToEUDDP(), "ExpressWorldwide", "USD"))
	if err != nil {
		t.Fatal(err)
	}
	sold, _ := fake.Sale(l.TrackingNumber)
	want := dhlexpressfake.Sold{Waybill: l.TrackingNumber, Reference: "shp_0123456789abcdef01234521", Product: "P", Pieces: sold.Pieces, Paperless: true,
		Shipper:  []string{"EOR DE123456789012345 DE", "EIN 12-3456789 US", "SDT IM2500000042 FR"},
		Receiver: []string{"VAT FR12345678901 FR"}}
	if d := cmp.Diff(want, sold); d != "" {
		t.Errorf("DHL's shipment (-want +got):\n%s", d)
	}
	text := string(l.CustomsDocument)
	for _, s := range []string{"DHL EXPRESS COMMERCIAL INVOICE", "Invoice number: INV-42", "Incoterm: DDP", "Paperless trade WY: sent to customs electronically",
		"Wrist watch x2 at 125 = 250.00 USD HS 910211 origin CH", "Total declared value: 260.00 USD", "Importer VAT: FR12345678901 issued by FR"} {
		if !strings.Contains(text, s) {
			t.Errorf("the invoice does not say %q", s)
		}
	}
	if q := fake.LastShipQuery(); q.Get("bypassPLTError") != "true" {
		t.Errorf("bypassPLTError not asked: %v", q)
	}
}

// On a lane without paperless trade the shipment is created all the same
// (bypassPLTError), and DHL's invoice is to be printed.
func TestBuyWithoutPaperlessTradeOnTheLane(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	s := usToEUDDP()
	s.To = addr("João Silva", "Av. Paulista 1000", "São Paulo", "01310-100", "BR", "+55 11 99999 0000")
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234522", s, "ExpressWorldwide", "USD"))
	if err != nil {
		t.Fatal(err)
	}
	sold, _ := fake.Sale(l.TrackingNumber)
	if sold.Paperless || !strings.Contains(string(l.CustomsDocument), "Print and attach") {
		t.Errorf("paperless %v; the invoice: %q", sold.Paperless, l.CustomsDocument)
	}
}

// A multi-piece shipment: the waybill and each piece's JD number in the
// order of the pieces, the labels in one document or, when DHL answers one
// per piece, as the pieces' documents.
func TestBuyMultiPiece(t *testing.T) {
	t.Parallel()
	for _, perPiece := range []bool{false, true} {
		c, fake, _ := newTestCarrier(t)
		fake.SetLabelPerPiece(perPiece)
		l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234523", threePieces(), "ExpressWorldwideEU", "EUR"))
		if err != nil {
			t.Fatal(err)
		}
		sold, _ := fake.Sale(l.TrackingNumber)
		if d := cmp.Diff(sold.Pieces, l.Pieces); d != "" || len(l.Pieces) != 3 || !strings.HasPrefix(l.Pieces[0], "JD") {
			t.Errorf("pieces %v (-DHL +label):\n%s", l.Pieces, d)
		}
		if perPiece && (len(l.PieceDocuments) != 3 || l.Document != nil) || !perPiece && (l.PieceDocuments != nil || l.Document == nil) {
			t.Errorf("label per piece %v: document %d bytes, %d piece documents", perPiece, len(l.Document), len(l.PieceDocuments))
		}
	}
}

// Label formats and sizes: ZPL at 200 dpi, A6 and A4 templates; what DHL
// does not draw (PNG, ZPL on an A6 page, letter) is refused before calling.
func TestBuyLabelFormats(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	for _, tc := range []struct {
		format           carriers.LabelFormat
		size             carriers.LabelSize
		template, encode string
	}{
		{carriers.LabelZPL, carriers.Label4x6, "ECOM26_A6_002", "zpl"},
		{carriers.LabelPDF, carriers.LabelA6, "ECOM26_A6_002", "pdf"},
		{carriers.LabelPDF, carriers.LabelA4, "ECOM26_84_A4_001", "pdf"},
	} {
		req := buyRequest("shp_0123456789abcdef01234524", domestic(), "DomesticExpress", "EUR")
		req.LabelFormat, req.LabelSize = tc.format, tc.size
		l, err := c.Buy(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.format, tc.size, err)
		}
		var sent struct {
			OutputImageProperties struct {
				EncodingFormat string
				PrinterDPI     int
				ImageOptions   []struct{ TypeCode, TemplateName string }
			}
		}
		_ = json.Unmarshal(fake.LastRequest(dhlexpressfake.OpShip), &sent)
		o := sent.OutputImageProperties
		if o.EncodingFormat != tc.encode || o.ImageOptions[0].TemplateName != tc.template || l.Format != tc.format {
			t.Errorf("%s %s: sent %+v, label %s", tc.format, tc.size, o, l.Format)
		}
		if tc.format == carriers.LabelZPL && (o.PrinterDPI != 200 || !bytes.HasPrefix(l.Document, []byte("^XA"))) {
			t.Errorf("ZPL: %d dpi, %.10q", o.PrinterDPI, l.Document)
		}
	}
	calls := fake.Requests(dhlexpressfake.OpShip)
	for _, tc := range []struct {
		format carriers.LabelFormat
		size   carriers.LabelSize
	}{{carriers.LabelPNG, ""}, {carriers.LabelZPL, carriers.LabelA6}, {carriers.LabelPDF, carriers.LabelLetter}} {
		req := buyRequest("shp_0123456789abcdef01234525", domestic(), "DomesticExpress", "EUR")
		req.LabelFormat, req.LabelSize = tc.format, tc.size
		if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s %s: %v, want ErrRejected", tc.format, tc.size, err)
		}
	}
	if n := fake.Requests(dhlexpressfake.OpShip); n != calls {
		t.Errorf("refused labels reached DHL: %d calls, want %d", n, calls)
	}
}

// A return label: the customer ships, the merchant's account pays; goods
// crossing a border go back as returns (exportReasonType return, DHL's
// returns invoice).
func TestBuyReturn(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	s := carriers.Shipment{From: paris, To: newYork, Parcel: parcel, Return: true, Customs: goods("")}
	s.Customs.ContentsType = carriers.ContentsReturnedGoods
	if _, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234526", s, "ExpressWorldwide", "EUR")); err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Accounts []struct{ TypeCode, Number string }
		Content  struct {
			ExportDeclaration struct{ ExportReasonType string }
		}
		OutputImageProperties struct {
			ImageOptions []struct{ TypeCode, TemplateName, InvoiceType string }
		}
	}
	_ = json.Unmarshal(fake.LastRequest(dhlexpressfake.OpShip), &sent)
	inv := sent.OutputImageProperties.ImageOptions[2]
	if sent.Accounts[0].Number != dhlexpressfake.AccountNumber || sent.Content.ExportDeclaration.ExportReasonType != "return" ||
		inv.InvoiceType != "returns" || inv.TemplateName != "RET_COM_INVOICE_A4_01" {
		t.Errorf("return sent %+v", sent)
	}
	if !c.ReturnService("ExpressWorldwide") || c.ReturnService("Ground") {
		t.Error("ReturnService")
	}
}

// What DHL would refuse, or shipd cannot map, is refused before calling:
// no reference, another carrier's rate, an unknown service, a product not
// sold for the shipment, a street longer than DHL's 45 characters, no
// currency to declare the goods in.
func TestBuyRefusedBeforeCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	long := domestic()
	long.To.Street1 = strings.Repeat("Lange Straße ", 4)
	noCurrency := buyRequest("shp_x", usToEUDDP(), "ExpressWorldwide", "")
	other := buyRequest("shp_x", domestic(), "DomesticExpress", "EUR")
	other.Rate.Carrier = "UPS"
	for name, req := range map[string]carriers.BuyRequest{
		"no reference":      buyRequest("", domestic(), "DomesticExpress", "EUR"),
		"another carrier":   other,
		"unknown service":   buyRequest("shp_x", domestic(), "Ground", "EUR"),
		"EU product abroad": buyRequest("shp_x", usToEUDDP(), "ExpressWorldwideEU", "USD"),
		"long street":       buyRequest("shp_x", long, "DomesticExpress", "EUR"),
		"no currency":       noCurrency,
		"no customs abroad": buyRequest("shp_x", carriers.Shipment{From: newYork, To: paris, Parcel: parcel}, "ExpressWorldwide", "USD"),
	} {
		if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("%s: %v, want ErrRejected", name, err)
		}
	}
	if n := fake.Requests(dhlexpressfake.OpShip); n != 0 {
		t.Errorf("%d shipment calls, want none", n)
	}
}

// DHL's refusal of a shipment (422) is ErrRejected with its code and
// message; a label DHL sold whose answer cannot be used says what was
// sold, so that the purchase fails and the waybill is reported.
func TestBuyRefusedAndUnusable(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	_, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234527", withinEU(), "DomesticExpress", "EUR"))
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrRejected) || ce.Code != "420505" || !strings.Contains(ce.Message, "not available from DE to FR") {
		t.Errorf("DHL's refusal: %+v", ce)
	}
	sold := `{"shipmentTrackingNumber":"1234567890","packages":[{"referenceNumber":1,"trackingNumber":"JD014600000000000001"}],` +
		`"documents":[{"typeCode":"label","imageFormat":"PDF","content":"bm90IGEgUERG"}]}`
	fake.Fail(dhlexpressfake.OpShip, dhlexpressfake.Failure{Status: http.StatusCreated, Body: sold})
	_, err = c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234528", domestic(), "DomesticExpress", "EUR"))
	got, ok := carriers.SoldUnusable(err)
	if !ok || got.TrackingNumber != "1234567890" || !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("an unusable label: %v (sold %+v, %v)", err, got, ok)
	}
}

// parseShipment refuses answers that are not labels: ErrFailed, never a
// panic.
func TestParseShipmentMalformed(t *testing.T) {
	t.Parallel()
	pdf := "JVBERi0xLjQK" // %PDF-1.4
	for name, body := range map[string]string{
		"not JSON":          `{"shipmentTrackingNumber": nope}`,
		"no waybill":        `{"documents":[{"typeCode":"label","imageFormat":"PDF","content":"` + pdf + `"}]}`,
		"no label":          `{"shipmentTrackingNumber":"1234567890","documents":[]}`,
		"ZPL asked, PDF":    `{"shipmentTrackingNumber":"1234567890","documents":[{"typeCode":"label","imageFormat":"PDF","content":"` + pdf + `"}]}`,
		"not base64":        `{"shipmentTrackingNumber":"1234567890","documents":[{"typeCode":"label","imageFormat":"ZPL","content":"!!!"}]}`,
		"invoice not a PDF": `{"shipmentTrackingNumber":"1234567890","documents":[{"typeCode":"label","imageFormat":"ZPL","content":"XlhBXlha"},{"typeCode":"invoice","imageFormat":"PDF","content":"bm9wZQ=="}]}`,
	} {
		if _, err := parseShipment([]byte(body), carriers.LabelZPL, 1); !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%s: %v, want ErrFailed", name, err)
		}
	}
	two := `{"shipmentTrackingNumber":"1234567890","packages":[{"referenceNumber":1,"trackingNumber":"JD1"}],` +
		`"documents":[{"typeCode":"label","imageFormat":"PDF","content":"` + pdf + `"}]}`
	if _, err := parseShipment([]byte(two), carriers.LabelPDF, 2); !errors.Is(err, carriers.ErrFailed) {
		t.Errorf("one package for two pieces: %v, want ErrFailed", err)
	}
}
