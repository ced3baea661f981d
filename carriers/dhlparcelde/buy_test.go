package dhlparcelde

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// A label in each format and size DHL prints: the PDF as DHL drew it on
// the print format of the size, the ZPL as DHL wrote it; the shipment
// number of an SSCC's form, the refNo the shipd shipment id.
func TestBuyLabelFormatsAndSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format      carriers.LabelFormat
		size        carriers.LabelSize
		printFormat string
	}{
		{carriers.LabelPDF, "", "910-300-400"},
		{carriers.LabelPDF, carriers.Label4x6, "910-300-400"},
		{carriers.LabelPDF, carriers.LabelA6, "910-300-300"},
		{carriers.LabelPDF, carriers.LabelA4, "A4"},
		{carriers.LabelZPL, carriers.Label4x6, "910-300-400"},
	} {
		c, fake := testCarrier(t)
		req := buyRequest(domesticShipment(), "Paket")
		req.LabelFormat, req.LabelSize = tc.format, tc.size
		l, err := c.Buy(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.format, tc.size, err)
		}
		if !Descriptor().TrackingNumbers[0].MatchString(l.TrackingNumber) {
			t.Errorf("tracking number %q is not of DHL Paket's form", l.TrackingNumber)
		}
		doc, f := l.Doc()
		switch tc.format {
		case carriers.LabelZPL:
			if f != carriers.LabelZPL || !bytes.HasPrefix(doc, []byte("^XA")) || !bytes.Contains(doc, []byte(l.TrackingNumber)) {
				t.Errorf("ZPL label %q", doc)
			}
		default:
			if f != carriers.LabelPDF || !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.Contains(doc, []byte("Print format "+tc.printFormat)) {
				t.Errorf("%s label: a PDF on %s expected, got %.40q", tc.size, tc.printFormat, doc)
			}
		}
		q := fake.LastHeader(dhlparceldefake.OpOrder)
		if q.Get("dhl-api-key") != dhlparceldefake.APIKey {
			t.Errorf("dhl-api-key %q", q.Get("dhl-api-key"))
		}
		if sales := fake.ByReference(testReference); len(sales) != 1 || sales[0].TrackingNumber != l.TrackingNumber {
			t.Errorf("the fake's sales under the reference: %+v", sales)
		}
		if l.CustomsDocument != nil || l.CarrierShipmentID != "" {
			t.Errorf("a domestic label: %+v", l)
		}
	}
}

// Paket International across a customs border comes with DHL's CN23;
// Warenpost International's CN22 is on the label itself.
func TestBuyCustomsDocument(t *testing.T) {
	t.Parallel()
	c, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(swissShipment(), "PaketInternational"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(l.CustomsDocument, []byte("%PDF-")) || !bytes.Contains(l.CustomsDocument, []byte("CN 23")) {
		t.Errorf("customs document %.40q", l.CustomsDocument)
	}
	l, err = c.Buy(context.Background(), buyRequest(swissShipment(), "WarenpostInternational"))
	if err != nil || l.CustomsDocument != nil {
		t.Errorf("Warenpost International: %v, customs document %d bytes", err, len(l.CustomsDocument))
	}
}

// A DHL Retoure label: the Returns API's, a PDF, marked so that its void
// and the closeout know it.
func TestBuyReturnLabel(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	if !c.ReturnService("Retoure") || c.ReturnService("Paket") {
		t.Fatal("ReturnService: Retoure is the return service, and only it")
	}
	l, err := c.Buy(context.Background(), buyRequest(returnShipment(), "Retoure"))
	if err != nil {
		t.Fatal(err)
	}
	if !fake.IsReturn(l.TrackingNumber) || l.CarrierShipmentID != retoureMarker || !bytes.HasPrefix(l.Document, []byte("%PDF-")) {
		t.Fatalf("return label %+v", l)
	}
	if n := fake.Requests(dhlparceldefake.OpOrder); n != 0 {
		t.Errorf("%d orders of the Shipping API for a return", n)
	}
}

// What DHL would refuse is refused before any call: the requirements of
// the descriptor's table, a service that does not take the route, a size
// or format DHL does not print.
func TestBuyRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	noHouse := domesticShipment()
	noHouse.To.Street1 = "Heidestraße"
	noName := domesticShipment()
	noName.From.Name, noName.From.Company = "", ""
	europaketToPerson := euShipment()
	europaketToPerson.To.Company = ""
	returnNoHouse := returnShipment()
	returnNoHouse.From.Street1 = "Mariahilfer Straße"
	fromVienna := domesticShipment()
	fromVienna.From = vienna()
	signedAbroad := euShipment()
	signedAbroad.Options.SignatureConfirmation = true
	letter := buyRequest(domesticShipment(), "Paket")
	letter.LabelSize = carriers.LabelLetter
	png := buyRequest(domesticShipment(), "Paket")
	png.LabelFormat = carriers.LabelPNG
	zplA4 := buyRequest(domesticShipment(), "Paket")
	zplA4.LabelFormat, zplA4.LabelSize = carriers.LabelZPL, carriers.LabelA4
	zplReturn := buyRequest(returnShipment(), "Retoure")
	zplReturn.LabelFormat = carriers.LabelZPL
	for _, tc := range []struct {
		name string
		req  carriers.BuyRequest
		want string
	}{
		{"a German consignee without a house number", buyRequest(noHouse, "Paket"), "toAddress.street1"},
		{"a shipper without a name", buyRequest(noName, "Paket"), "fromAddress.name"},
		{"Europaket to a person", buyRequest(europaketToPerson, "Europaket"), "toAddress.company"},
		{"a return without the customer's house number", buyRequest(returnNoHouse, "Retoure"), "fromAddress.street1"},
		{"Paket abroad", buyRequest(euShipment(), "Paket"), "does not take this parcel to FR"},
		{"Kleinpaket over a kilogram", buyRequest(domesticShipment(), "Kleinpaket"), "does not take this parcel"},
		{"from Austria", buyRequest(fromVienna, "Paket"), "ships from Germany only"},
		{"a signature abroad", buyRequest(signedAbroad, "PaketInternational"), "signature service"},
		{"a service DHL has not", buyRequest(domesticShipment(), "Express"), `no service "Express"`},
		{"a letter page", letter, "no letter label"},
		{"a PNG", png, "no png label"},
		{"ZPL on A4", zplA4, "ZPL label is a 4x6 label"},
		{"a ZPL return label", zplReturn, "PDF labels only"},
		{"Retoure outbound", buyRequest(domesticShipment(), "Retoure"), "must be a return"},
		{"no reference", carriers.BuyRequest{Shipment: domesticShipment(), Rate: carriers.Rate{Service: "Paket"}}, "no reference"},
	} {
		c, fake := testCarrier(t)
		_, err := c.Buy(context.Background(), tc.req)
		ce := carrierError(t, err)
		if !errors.Is(err, carriers.ErrRejected) || !strings.Contains(ce.Message, tc.want) {
			t.Errorf("%s: %v, want a refusal naming %q", tc.name, err, tc.want)
		}
		if n := fake.Requests(dhlparceldefake.OpOrder) + fake.Requests(dhlparceldefake.OpReturn); n != 0 {
			t.Errorf("%s: %d calls to DHL", tc.name, n)
		}
	}
}

// DHL's refusal of an order (mustEncode: an address it cannot encode) is
// ErrRejected with its validation message, the property named.
func TestBuyRefusedByDHL(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	s := domesticShipment()
	fake.FailNext(dhlparceldefake.OpOrder, http.StatusBadRequest, `{"status":{"title":"Bad Request","statusCode":400,"status":400,"detail":"Validation failed."},`+
		`"items":[{"sstatus":{"title":"Bad Request","statusCode":400,"status":400},"validationMessages":[`+
		`{"property":"consignee.postalCode","validationMessage":"The postal code does not match the city.","validationState":"Error"},`+
		`{"property":"consignee","validationMessage":"The address is not encodable.","validationState":"Error"}]}]}`)
	_, err := c.Buy(context.Background(), buyRequest(s, "Paket"))
	ce := carrierError(t, err)
	want := "consignee.postalCode: The postal code does not match the city.; consignee: The address is not encodable."
	if !errors.Is(err, carriers.ErrRejected) || ce.Message != want || ce.HTTPStatus != http.StatusBadRequest {
		t.Fatalf("refused order: %v (%+v), want ErrRejected %q", err, ce, want)
	}
	if _, ok := carriers.SoldUnusable(err); ok {
		t.Error("a refusal counts as sold")
	}
}

// A label DHL sold whose document cannot be used is carriers.Unusable with
// the shipment number, so that the purchase deletes it; an order answer
// that does not parse at all is sold, number unknown.
func TestBuyUnusableLabel(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	fake.SetLabelDocument([]byte("<html>not a label</html>"))
	_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Paket"))
	sold, ok := carriers.SoldUnusable(err)
	if !ok || sold.TrackingNumber == "" || !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "not a PDF") {
		t.Fatalf("a label that is no PDF: %v (sold %+v, %v)", err, sold, ok)
	}
	if fake.Voided(sold.TrackingNumber) {
		t.Error("the adapter deleted the order itself: the purchase flow does")
	}
	fake.SetLabelDocument(nil)

	fake.Fail(dhlparceldefake.OpOrder, dhlparceldefake.Failure{Status: http.StatusOK, Body: `{"items":[{"shipmentNo":`})
	_, err = c.Buy(context.Background(), buyRequest(domesticShipment(), "Paket"))
	if sold, ok := carriers.SoldUnusable(err); !ok || sold.TrackingNumber != "" || !strings.Contains(err.Error(), "malformed answer") {
		t.Fatalf("a cut-off JSON answer: %v (sold %+v %v)", err, sold, ok)
	}
}

// A base64 label larger than any label is refused before it is decoded.
func TestBuyLabelBounded(t *testing.T) {
	t.Parallel()
	_, err := parseOrderAnswer(200, []byte(`{"items":[{"shipmentNo":"00340434161094000001","sstatus":{"title":"OK","status":200},`+
		`"label":{"b64":"`+strings.Repeat("QUFB", (carriers.MaxLabelBytes/3)+10)+`"}}]}`), carriers.LabelPDF)
	if sold, ok := carriers.SoldUnusable(err); !ok || sold.TrackingNumber != "00340434161094000001" || !strings.Contains(err.Error(), "larger than any label") {
		t.Fatalf("an oversized label: %v", err)
	}
}
