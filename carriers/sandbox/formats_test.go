package sandbox_test

import (
	"bytes"
	"image"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

func formatsInput() sandbox.LabelInput {
	return sandbox.LabelInput{
		Carrier: "USPS", Service: "Priority Mail", TrackingNumber: "9400111899223100001234",
		From:     carriers.Address{Name: "Ada Shipper", Street1: "1 Main St", City: "Brooklyn", State: "NY", Zip: "11201", Country: "US"},
		To:       carriers.Address{Name: "Grace Receiver", Company: "Hopper & Co", Street1: "500 Market St", Street2: "Suite 2", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"},
		WeightOz: 34.5, Date: time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC), SignatureRequired: true,
		Reference: "shp_0123456789abcdef", TestMode: true,
	}
}

func TestRenderPNG(t *testing.T) {
	t.Parallel()
	data, err := sandbox.RenderPNG(formatsInput())
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if format != "png" || img.Bounds() != image.Rect(0, 0, 812, 1218) {
		t.Fatalf("got a %s of %v, want a png of 812x1218", format, img.Bounds())
	}
	if p := os.Getenv("SHIPD_LABEL_OUT"); p != "" {
		_ = os.WriteFile(p+".png", data, 0o644)
	}
}

func TestRenderZPL(t *testing.T) {
	t.Parallel()
	in := formatsInput()
	in.To.Name = "Caret ^ Tilde ~ Back \\ slash"
	data, err := sandbox.RenderZPL(in)
	if err != nil {
		t.Fatal(err)
	}
	zpl := string(data)
	if p := os.Getenv("SHIPD_LABEL_OUT"); p != "" {
		_ = os.WriteFile(p+".zpl", data, 0o644)
	}
	for _, want := range []string{"^PW812", "^LL1218", "^BCN,", "^FD" + in.TrackingNumber + "^FS", "^FDPRIORITY MAIL^FS",
		"^FDSAN FRANCISCO CA 94105^FS", "^FD1 MAIN ST^FS", "^A0N,"} {
		if !strings.Contains(zpl, want) {
			t.Errorf("the ZPL has no %q", want)
		}
	}
	if !strings.HasPrefix(zpl, "^XA") || !strings.HasSuffix(strings.TrimSpace(zpl), "^XZ") {
		t.Errorf("the ZPL is not one label format ^XA ... ^XZ:\n%s", zpl)
	}
	if n := strings.Count(zpl, "^XA"); n != 1 {
		t.Errorf("%d ^XA, want 1", n)
	}
	// The field data's ^ and ~ would be commands: they are hex under ^FH.
	if !strings.Contains(zpl, `^FH\^FDCARET \5E TILDE \7E BACK \5C SLASH^FS`) {
		t.Errorf("the recipient's name is not escaped:\n%s", zpl)
	}
	// The barcode's modules are whole dots and the symbol fits the label.
	if err := carriers.CheckZPL(data); err != nil {
		t.Error(err)
	}
}

func TestRenderLetterPDF(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size carriers.LabelSize
		want string
	}{
		{"", "/MediaBox [0 0 288.00 432.00]"},
		{carriers.Label4x6, "/MediaBox [0 0 288.00 432.00]"},
		{carriers.LabelLetter, "/MediaBox [0 0 612.00 792.00]"},
	} {
		in := formatsInput()
		in.Size = tc.size
		data, err := sandbox.RenderLabel(in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(tc.want)) {
			t.Errorf("size %q: the PDF has no %s", tc.size, tc.want)
		}
		if !strings.Contains(pdfText(t, data), in.TrackingNumber) {
			t.Errorf("size %q: the tracking number is not on the page", tc.size)
		}
		if p := os.Getenv("SHIPD_LABEL_OUT"); p != "" {
			_ = os.WriteFile(p+"-"+string(tc.size)+".pdf", data, 0o644)
		}
	}
}
