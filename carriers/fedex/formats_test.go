package fedex

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// TestBuyLabelFormats: each format and size is asked of FedEx as its
// imageType and labelStockType, and the document is kept as FedEx drew it.
func TestBuyLabelFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format           carriers.LabelFormat
		size             carriers.LabelSize
		imageType, stock string
		check            func(t *testing.T, doc []byte, tn string)
	}{
		{carriers.LabelPDF, "", "PDF", "PAPER_4X6", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF")) || !bytes.Contains(doc, []byte("/MediaBox [0 0 288.00 432.00]")) {
				t.Errorf("not a 4x6 PDF: %.100q", doc)
			}
		}},
		{carriers.LabelPDF, carriers.LabelLetter, "PDF", "PAPER_85X11_TOP_HALF_LABEL", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF")) || !bytes.Contains(doc, []byte("/MediaBox [0 0 612.00 792.00]")) {
				t.Errorf("not a letter PDF: %.100q", doc)
			}
		}},
		{carriers.LabelPNG, "", "PNG", "PAPER_4X6", func(t *testing.T, doc []byte, _ string) {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(doc))
			if err != nil || format != "png" || cfg.Width != 812 || cfg.Height != 1218 {
				t.Errorf("not an 812x1218 PNG: %s %dx%d %v", format, cfg.Width, cfg.Height, err)
			}
		}},
		{carriers.LabelZPL, "", "ZPLII", "STOCK_4X6", func(t *testing.T, doc []byte, tn string) {
			z := strings.TrimSpace(string(doc))
			if !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") || !strings.Contains(z, "^BC") || !strings.Contains(z, tn) {
				t.Errorf("not FedEx's ZPL label of %s:\n%s", tn, z)
			}
		}},
	} {
		t.Run(string(tc.format)+"-"+string(tc.size), func(t *testing.T) {
			t.Parallel()
			c, fake := newTestCarrier(t)
			req := buyRequest("shp_0123456789abcdef01234567", domestic(), "Ground")
			req.LabelFormat, req.LabelSize = tc.format, tc.size
			label, err := c.Buy(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			doc, format := label.Doc()
			if format != tc.format {
				t.Errorf("format %s, want %s", format, tc.format)
			}
			tc.check(t, doc, label.TrackingNumber)
			var sent struct {
				RequestedShipment struct {
					LabelSpecification labelSpec `json:"labelSpecification"`
				} `json:"requestedShipment"`
			}
			if err := json.Unmarshal(fake.LastRequestBody(fedexfake.OpShip), &sent); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(labelSpec{ImageType: tc.imageType, LabelStockType: tc.stock}, sent.RequestedShipment.LabelSpecification); diff != "" {
				t.Errorf("labelSpecification (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseShipDocumentRefusesWrongFormats: a docType other than asked, a
// ZPL document that is no label, a PNG that is no image: malformed.
func TestParseShipDocumentRefusesWrongFormats(t *testing.T) {
	t.Parallel()
	answer := func(docType string, doc []byte) []byte {
		b, _ := json.Marshal(map[string]any{"output": map[string]any{"transactionShipments": []any{map[string]any{
			"pieceResponses": []any{map[string]any{"trackingNumber": "794600000001", "packageDocuments": []any{
				map[string]any{"contentType": "LABEL", "docType": docType, "encodedLabel": doc}}}}}}}})
		return b
	}
	for name, tc := range map[string]struct {
		f    carriers.LabelFormat
		body []byte
	}{
		"PDF for ZPL":      {carriers.LabelZPL, answer("PDF", []byte("%PDF-1.4"))},
		"ZPL without ^XA":  {carriers.LabelZPL, answer("ZPLII", []byte("<html>"))},
		"PNG not an image": {carriers.LabelPNG, answer("PNG", []byte("%PDF-1.4"))},
		"ZPL for PDF":      {carriers.LabelPDF, answer("ZPLII", []byte("^XA^XZ"))},
	} {
		if _, err := parseShipDocument(tc.body, tc.f); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if l, err := parseShipDocument(answer("ZPLII", []byte("^XA^FDx^FS^XZ")), carriers.LabelZPL); err != nil || l.Format != carriers.LabelZPL {
		t.Errorf("a ZPL label: %+v, %v", l, err)
	}
}
