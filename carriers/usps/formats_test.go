package usps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	_ "image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// TestBuyLabelFormats: each format and size is asked of USPS as its
// imageType (PDF, ZPL203DPI, or TIFF that shipd converts to a PNG or a
// letter PDF), domestic and international.
func TestBuyLabelFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		service   string
		shipment  carriers.Shipment
		format    carriers.LabelFormat
		size      carriers.LabelSize
		imageType string
		check     func(t *testing.T, doc []byte, tn string)
	}{
		{"pdf", "Priority", domesticShipment(), carriers.LabelPDF, "", "PDF", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF")) {
				t.Errorf("not a PDF: %.40q", doc)
			}
		}},
		{"zpl", "Priority", domesticShipment(), carriers.LabelZPL, "", "ZPL203DPI", func(t *testing.T, doc []byte, tn string) {
			z := strings.TrimSpace(string(doc))
			if !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") || !strings.Contains(z, "^BC") || !strings.Contains(z, tn) {
				t.Errorf("not USPS's ZPL label of %s:\n%s", tn, z)
			}
		}},
		{"png", "Priority", domesticShipment(), carriers.LabelPNG, "", "TIFF", wantPNG(800, 1200)},
		{"png international", "PriorityMailInternational", internationalShipment(), carriers.LabelPNG, "", "TIFF", wantPNG(800, 1200)},
		{"letter pdf", "Priority", domesticShipment(), carriers.LabelPDF, carriers.LabelLetter, "TIFF", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF")) || !bytes.Contains(doc, []byte("/MediaBox [0 0 612.00 792.00]")) {
				t.Errorf("not a letter PDF: %.200q", doc)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := newFake(t)
			c := newCarrier(t, fake)
			req := buyRequest("shp_"+strings.ReplaceAll(tc.name, " ", "_"), tc.service, tc.shipment)
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
			op := uspsfake.OpLabel
			if tc.shipment.To.Country != "US" {
				op = uspsfake.OpInternationalLabel
			}
			var sent struct {
				ImageInfo imageInfo `json:"imageInfo"`
			}
			if err := json.Unmarshal(fake.LastRequest(op), &sent); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]string{tc.imageType, "4X6LABEL"}, [2]string{sent.ImageInfo.ImageType, sent.ImageInfo.LabelType}); diff != "" {
				t.Errorf("imageInfo (-want +got):\n%s", diff)
			}
		})
	}
}

func wantPNG(w, h int) func(t *testing.T, doc []byte, _ string) {
	return func(t *testing.T, doc []byte, _ string) {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(doc))
		if err != nil || format != "png" || cfg.Width != w || cfg.Height != h {
			t.Errorf("not a %dx%d PNG: %s %dx%d %v", w, h, format, cfg.Width, cfg.Height, err)
		}
	}
}

// TestBuyInternationalZPLRefused: USPS draws no international ZPL; the
// purchase is refused before USPS is called.
func TestBuyInternationalZPLRefused(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	req := buyRequest("shp_intl_zpl", "PriorityMailInternational", internationalShipment())
	req.LabelFormat = carriers.LabelZPL
	if _, err := c.Buy(context.Background(), req); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("got %v, want ErrRejected", err)
	}
	if n := fake.Requests(uspsfake.OpInternationalLabel); n != 0 {
		t.Errorf("%d calls to USPS, want none", n)
	}
}

// TestFinishLabelRefusesBadZPL: a ZPL answer that is no label is refused.
func TestFinishLabelRefusesBadZPL(t *testing.T) {
	t.Parallel()
	if _, err := finishLabel("9205", []byte("PGh0bWw+"), imageZPL); err == nil {
		t.Error("an HTML page as ZPL: no error")
	}
	if l, err := finishLabel("9205", []byte("XlhBXlha"), imageZPL); err != nil || l.Format != carriers.LabelZPL {
		t.Errorf("^XA^XZ: %+v %v", l, err)
	}
}
