package ups

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func buyRequest(s carriers.Shipment, service string) carriers.BuyRequest {
	return carriers.BuyRequest{
		Reference: "shp_0123456789abcdef01234567",
		Shipment:  s,
		Rate:      carriers.Rate{Carrier: "UPS", Service: service},
	}
}

func TestBuyDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	req := buyRequest(domesticShipment(), "2ndDayAir")
	label, err := c.Buy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// 1Z + shipper number + service code 02 + package number + check digit.
	if !regexp.MustCompile(`^1Z` + upsfake.AccountNumber + `02\d{8}$`).MatchString(label.TrackingNumber) {
		t.Errorf("tracking number %q is not a 1Z number of the account and service 02", label.TrackingNumber)
	}
	if !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("label does not start with %%PDF: %q", label.Document[:min(len(label.Document), 16)])
	}
	// A one-package shipment's id is its tracking number: nothing to keep.
	if label.CarrierShipmentID != "" {
		t.Errorf("CarrierShipmentID = %q, want empty (same as the tracking number)", label.CarrierShipmentID)
	}
	body := fake.LastRequest(upsfake.OpShip)
	got := []any{
		field(t, body, "ShipmentRequest", "Shipment", "Service", "Code"),
		field(t, body, "ShipmentRequest", "Shipment", "Package", 0, "ReferenceNumber", 0, "Value"),
		field(t, body, "ShipmentRequest", "Request", "TransactionReference", "CustomerContext"),
		field(t, body, "ShipmentRequest", "LabelSpecification", "LabelImageFormat", "Code"),
		fake.LastHeader(upsfake.OpShip).Get("transId"),
	}
	want := []any{"02", req.Reference, req.Reference, "GIF", buyTransID(req.Reference)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if n := len(buyTransID(req.Reference)); n != 32 {
		t.Errorf("transId has %d characters, UPS allows 32", n)
	}
	if os.Getenv("UPS_WRITE_LABEL") != "" {
		// For looking at the label: UPS_WRITE_LABEL=/tmp/label.pdf go test -run TestBuyDomestic
		if err := os.WriteFile(os.Getenv("UPS_WRITE_LABEL"), label.Document, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuyInternational(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	label, err := c.Buy(context.Background(), buyRequest(internationalShipment(), "WorldwideSaver"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Error("label is not a PDF")
	}
	body := fake.LastRequest(upsfake.OpShip)
	// Shipment level reference and delivery confirmation off US/US lanes;
	// the unit value of a 3-piece 75-dollar line is 25.
	got := []any{
		field(t, body, "ShipmentRequest", "Shipment", "ReferenceNumber", 0, "Value"),
		field(t, body, "ShipmentRequest", "Shipment", "ShipmentServiceOptions", "DeliveryConfirmation", "DCISType"),
		field(t, body, "ShipmentRequest", "Shipment", "ShipmentServiceOptions", "InternationalForms", "Product", 0, "Unit", "Value"),
		field(t, body, "ShipmentRequest", "Shipment", "ShipmentServiceOptions", "InternationalForms", "Product", 0, "CommodityCode"),
	}
	want := []any{"shp_0123456789abcdef01234567", "1", "25", "610910"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestBuyRefusesWithoutCalling(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	// What carriers/requirements.go asks of UPS: the shipping flow leaves
	// such rates out, and Buy refuses them too.
	noRecipient := domesticShipment()
	noRecipient.To.Name, noRecipient.To.Company = "", ""
	noPhone := internationalShipment()
	noPhone.From.Phone = ""
	for name, req := range map[string]carriers.BuyRequest{
		"no reference":                    {Shipment: domesticShipment(), Rate: carriers.Rate{Service: "Ground"}},
		"unknown service":                 buyRequest(domesticShipment(), "Teleport"),
		"no recipient name":               buyRequest(noRecipient, "Ground"),
		"international without the phone": buyRequest(noPhone, "WorldwideSaver"),
	} {
		_, err := c.Buy(context.Background(), req)
		if ce := carrierError(t, err); !errors.Is(ce, carriers.ErrRejected) {
			t.Errorf("%s: %v, want ErrRejected", name, err)
		}
	}
	if n := fake.Requests(upsfake.OpShip); n != 0 {
		t.Errorf("%d ship requests reached UPS, want 0", n)
	}
}

func TestBuyRefusedByUPS(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.FailNext(upsfake.OpShip, 400, upsfake.BodyInvalidPostalCode)
	_, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Ground"))
	ce := carrierError(t, err)
	want := carriers.Error{Carrier: "UPS", Operation: "buy", HTTPStatus: 400, Code: "111285",
		Message: "The postal code 99999 is invalid for AK United States.", Kind: carriers.ErrRejected}
	if diff := cmp.Diff(want, *ce, sameError()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBuyServiceNotOnTheLane(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	// The fake, like UPS, refuses a domestic service abroad.
	_, err := c.Buy(context.Background(), buyRequest(internationalShipment(), "Ground"))
	if ce := carrierError(t, err); !errors.Is(ce, carriers.ErrRejected) || ce.Code != "111210" {
		t.Errorf("got %v, want ErrRejected with code 111210", err)
	}
}

func TestParseShipResponse(t *testing.T) {
	t.Parallel()
	img := tinyGIF(t, 12, 8)
	// A multi-package shipment's id differs from the package's number and
	// is what the void needs; PackageResults as a single object (versions
	// before v2403).
	body := `{"ShipmentResponse":{"Response":{"ResponseStatus":{"Code":"1","Description":"Success"}},
	  "ShipmentResults":{"ShipmentIdentificationNumber":"1ZA1B2C30299999990",
	    "PackageResults":{"TrackingNumber":"1za1b2c30299999981",
	      "ShippingLabel":{"ImageFormat":{"Code":"GIF"},"GraphicImage":"` + base64.StdEncoding.EncodeToString(img) + `"}}}}}`
	got, err := parseShipResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shipResult{trackingNumber: "1ZA1B2C30299999981", shipmentID: "1ZA1B2C30299999990", image: img, imageFormat: "GIF"}, got,
		cmp.AllowUnexported(shipResult{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	for name, bad := range map[string]string{
		"no tracking number": `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"ShippingLabel":{"GraphicImage":"R0lG"}}]}}}`,
		"no label":           `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":"1Z1"}]}}}`,
		"not base64":         `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":"1Z1","ShippingLabel":{"GraphicImage":"***"}}]}}}`,
		"EPL":                `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":"1Z1","ShippingLabel":{"ImageFormat":{"Code":"EPL"},"GraphicImage":"XlhB"}}]}}}`,
		"no packages":        `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[]}}}`,
		"failure status":     `{"ShipmentResponse":{"Response":{"ResponseStatus":{"Code":"0"}},"ShipmentResults":{}}}`,
		"wrong type":         `{"ShipmentResponse":{"ShipmentResults":{"PackageResults":[{"TrackingNumber":18}]}}}`,
	} {
		if _, err := parseShipResponse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}

func TestLabelPDFRotatesLandscapeImages(t *testing.T) {
	t.Parallel()
	// A 12x8 landscape image with one black pixel at the left end of its
	// top row: turned clockwise, it lands at the right end of the top row.
	src := image.NewPaletted(image.Rect(0, 0, 12, 8), color.Palette{color.White, color.Black})
	src.SetColorIndex(0, 0, 1)
	rot := rotateClockwise(src)
	if b := rot.Bounds(); b.Dx() != 8 || b.Dy() != 12 {
		t.Fatalf("rotated bounds %v, want 8x12", b)
	}
	if r, _, _, _ := rot.At(7, 0).RGBA(); r != 0 {
		t.Errorf("the top-left pixel did not move to the top-right corner")
	}
	pdf, err := testLabelPDF(tinyGIF(t, 12, 8), testNow(), "1Z")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Error("not a PDF")
	}
	// 4x6 inches is a 288x432 point page.
	if !bytes.Contains(pdf, []byte("/MediaBox [0 0 288.00 432.00]")) {
		t.Errorf("the page is not 4x6 inches portrait")
	}
	for name, img := range map[string][]byte{
		"not an image": []byte("GIF89a broken"),
		"jpeg header":  {0xff, 0xd8, 0xff, 0xe0},
		"empty":        nil,
	} {
		if _, err := testLabelPDF(img, testNow(), "1Z"); err == nil {
			t.Errorf("%s: converted without error", name)
		}
	}
}

func tinyGIF(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black})
	img.SetColorIndex(0, 0, 1)
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
