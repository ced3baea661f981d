package ups

import (
	"bytes"
	"context"
	"image"
	_ "image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// TestBuyLabelFormats: a ZPL label is asked of UPS as ZPL on 4x6 stock and
// returned as UPS wrote it; a PNG is asked as GIF and returned upright.
func TestBuyLabelFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format        carriers.LabelFormat
		wantAsked     string
		wantUserAgent any
		check         func(t *testing.T, doc []byte, tn string)
	}{
		{carriers.LabelZPL, "ZPL", nil, func(t *testing.T, doc []byte, tn string) {
			z := strings.TrimSpace(string(doc))
			if !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") || !strings.Contains(z, "^BC") || !strings.Contains(z, tn) {
				t.Errorf("not UPS's ZPL label of %s:\n%s", tn, z)
			}
		}},
		{carriers.LabelPNG, "GIF", "Mozilla/4.5", func(t *testing.T, doc []byte, _ string) {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			// The fake's 1200x800 landscape GIF, a quarter turn upright.
			if format != "png" || cfg.Width != 800 || cfg.Height != 1200 {
				t.Errorf("a %s of %dx%d, want an upright png of 800x1200", format, cfg.Width, cfg.Height)
			}
		}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			t.Parallel()
			c, fake, _ := testCarrier(t)
			req := buyRequest(domesticShipment(), "2ndDayAir")
			req.LabelFormat = tc.format
			label, err := c.Buy(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			doc, format := label.Doc()
			if format != tc.format {
				t.Fatalf("format %s, want %s", format, tc.format)
			}
			tc.check(t, doc, label.TrackingNumber)
			body := fake.LastRequest(upsfake.OpShip)
			got := []any{
				field(t, body, "ShipmentRequest", "LabelSpecification", "LabelImageFormat", "Code"),
				field(t, body, "ShipmentRequest", "LabelSpecification", "LabelStockSize", "Height"),
				field(t, body, "ShipmentRequest", "LabelSpecification", "LabelStockSize", "Width"),
				field(t, body, "ShipmentRequest", "LabelSpecification", "HTTPUserAgent"),
			}
			if diff := cmp.Diff([]any{tc.wantAsked, "6", "4", tc.wantUserAgent}, got); diff != "" {
				t.Errorf("LabelSpecification (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuyLetterPDF: UPS draws no letter label; its 4x6 GIF is placed on a
// letter page (612x792 pt).
func TestBuyLetterPDF(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	req := buyRequest(domesticShipment(), "2ndDayAir")
	req.LabelSize = carriers.LabelLetter
	label, err := c.Buy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	doc, format := label.Doc()
	if format != carriers.LabelPDF || !bytes.Contains(doc, []byte("/MediaBox [0 0 612.00 792.00]")) {
		t.Errorf("a %s, not a letter PDF: %.200q", format, doc)
	}
}

// TestLabelDocumentRefusesWrongFormats: UPS answering another format than
// asked, or ZPL that is no label, is a malformed answer, never stored.
func TestLabelDocumentRefusesWrongFormats(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	gif := tinyGIF(t, 12, 8)
	for name, tc := range map[string]struct {
		f   carriers.LabelFormat
		res shipResult
	}{
		"GIF for ZPL":     {carriers.LabelZPL, shipResult{trackingNumber: "1Z1", image: gif, imageFormat: "GIF"}},
		"ZPL for PNG":     {carriers.LabelPNG, shipResult{trackingNumber: "1Z1", image: []byte("^XA^XZ"), imageFormat: "ZPL"}},
		"ZPL for PDF":     {carriers.LabelPDF, shipResult{trackingNumber: "1Z1", image: []byte("^XA^XZ"), imageFormat: "ZPL"}},
		"ZPL without ^XA": {carriers.LabelZPL, shipResult{trackingNumber: "1Z1", image: []byte("<html>"), imageFormat: "ZPL"}},
		"ZPL of 2 MiB":    {carriers.LabelZPL, shipResult{trackingNumber: "1Z1", image: append([]byte("^XA"), make([]byte, 2<<20)...), imageFormat: "ZPL"}},
	} {
		if _, err := c.labelDocument(context.Background(), 200, tc.f, "", tc.res); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestFindPurchaseInFormat: a recovered label comes back in the format it
// was bought in (a PNG of the GIF); a ZPL label, never converted from the
// GIF, comes back without a document, for the purchase to void and buy anew.
func TestFindPurchaseInFormat(t *testing.T) {
	t.Parallel()
	for _, f := range []carriers.LabelFormat{carriers.LabelPNG, carriers.LabelZPL} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			c, _, _ := testCarrier(t)
			ctx := context.Background()
			req := buyRequest(domesticShipment(), "Ground")
			req.LabelFormat = f
			sold, err := c.Buy(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			l, found, err := c.FindPurchase(ctx, req)
			if err != nil || !found || l.TrackingNumber != sold.TrackingNumber {
				t.Fatalf("%+v %v %v, want %s", l, found, err, sold.TrackingNumber)
			}
			doc, format := l.Doc()
			switch f {
			case carriers.LabelPNG:
				if _, kind, err := image.DecodeConfig(bytes.NewReader(doc)); err != nil || kind != "png" || format != f {
					t.Errorf("recovered a %s (%s, %v), want a png", format, kind, err)
				}
			case carriers.LabelZPL:
				if doc != nil {
					t.Errorf("recovered a %d-byte %s, want no document", len(doc), format)
				}
			}
		})
	}
}
