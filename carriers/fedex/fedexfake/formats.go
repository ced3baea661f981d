package fedexfake

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
)

// renderPNG is FedEx's PNG label on PAPER_4X6 stock: an 812x1218 image
// (4x6 inches at 203 dpi) with a border and a stand-in for the barcode,
// whose bars spell the tracking number's digits.
func renderPNG(in labelInput) ([]byte, error) {
	img := image.NewGray(image.Rect(0, 0, 812, 1218))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	black := color.Gray{}
	for x := 20; x < 792; x++ {
		img.SetGray(x, 20, black)
		img.SetGray(x, 1197, black)
	}
	for y := 20; y < 1198; y++ {
		img.SetGray(20, y, black)
		img.SetGray(791, y, black)
	}
	x := 100
	for _, r := range in.trackingNumber {
		w := 2 + int(r-'0')%4
		for dx := range w {
			for y := 700; y < 900; y++ {
				img.SetGray(x+dx, y, black)
			}
		}
		x += w + 6
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderZPL is FedEx's ZPLII label on STOCK_4X6: 203 dpi, the tracking
// number as a Code 128 barcode.
func renderZPL(in labelInput) ([]byte, error) {
	text := strings.NewReplacer("^", " ", "~", " ")
	var b strings.Builder
	b.WriteString("^XA\n^PW812\n^LL1218\n^FO40,40^A0N,60,60^FDFedEx^FS\n")
	fmt.Fprintf(&b, "^FO40,120^A0N,40,40^FD%s^FS\n", text.Replace(in.service))
	fmt.Fprintf(&b, "^FO60,250^A0N,40,40^FD%s^FS\n", text.Replace(in.toContact.PersonName))
	fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n^XZ\n", in.trackingNumber)
	return []byte(b.String()), nil
}
