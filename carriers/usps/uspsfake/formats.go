package uspsfake

import (
	"bytes"
	"fmt"
	"image"
	"strings"

	"golang.org/x/image/tiff"
)

// labelImage is the label in the image type asked for: the PDF, a TIFF
// (a 4x6 label at 200 dpi, 800x1200, as the Labels API's TIFF), or ZPL
// for 203 dpi printers.
func labelImage(l *label) ([]byte, error) {
	switch l.imageType {
	case "TIFF":
		img := image.NewGray(image.Rect(0, 0, 800, 1200))
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		// A border and bars standing in for the IMpb barcode, one per digit.
		for x := 20; x < 780; x++ {
			img.Pix[20*800+x], img.Pix[1179*800+x] = 0, 0
		}
		x := 80
		for _, r := range l.TrackingNumber {
			w := 2 + int(r-'0')%4
			for y := 700; y < 900; y++ {
				for dx := range w {
					img.Pix[y*800+x+dx] = 0
				}
			}
			x += w + 4
		}
		var buf bytes.Buffer
		if err := tiff.Encode(&buf, img, &tiff.Options{Compression: tiff.Deflate}); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case "ZPL203DPI":
		text := strings.NewReplacer("^", " ", "~", " ")
		var b strings.Builder
		b.WriteString("^XA\n^PW812\n^LL1218\n^FO40,40^A0N,60,60^FDUSPS^FS\n")
		fmt.Fprintf(&b, "^FO40,120^A0N,40,40^FD%s^FS\n", text.Replace(l.mailClass))
		fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n^XZ\n", l.TrackingNumber)
		return []byte(b.String()), nil
	}
	return labelPDF(l)
}
