package ups

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/png"
	"time"

	"github.com/go-pdf/fpdf"
	"github.com/shipd-dev/shipd/carriers"
)

// labelZPL is LabelImageFormat ZPL: UPS writes the label in ZPL II itself,
// for 203 dpi thermal printers.
const labelZPL = "ZPL"

// labelSpecFor is the LabelSpecification of a purchase in format f: ZPL
// for a ZPL label (4x6 stock), GIF for a PDF or PNG, which shipd makes of
// the image (UPS draws no PNG or PDF label itself).
func labelSpecFor(f carriers.LabelFormat) labelSpecification {
	if f == carriers.LabelZPL {
		return labelSpecification{
			LabelImageFormat: codeDesc{Code: labelZPL, Description: labelZPL},
			LabelStockSize:   stockSize{Height: "6", Width: "4"},
		}
	}
	return labelSpecification{
		LabelImageFormat: codeDesc{Code: labelGIF, Description: labelGIF},
		// "Required if LabelImageFormat/Code = Gif"; the documented default.
		HTTPUserAgent:  "Mozilla/4.5",
		LabelStockSize: stockSize{Height: "6", Width: "4"},
	}
}

// labelDocument is the label of a ship answer in format f: the ZPL as UPS
// wrote it (bounded, starting ^XA), or the image as a PNG or a PDF (of the
// given size: UPS's GIF is a 4x6 label, placed on a letter page by shipd).
func (c *Carrier) labelDocument(ctx context.Context, status int, f carriers.LabelFormat, size carriers.LabelSize, res shipResult) (carriers.Label, error) {
	label := carriers.Label{TrackingNumber: res.trackingNumber}
	if res.shipmentID != res.trackingNumber {
		label.CarrierShipmentID = res.shipmentID
	}
	switch f {
	case carriers.LabelZPL:
		if res.imageFormat != labelZPL {
			return carriers.Label{}, malformed(opBuy, status, "the label is %q, not the ZPL asked for", res.imageFormat)
		}
		if err := carriers.CheckZPL(res.image); err != nil {
			return carriers.Label{}, malformed(opBuy, status, "%v", err)
		}
		label.Document, label.Format = res.image, carriers.LabelZPL
	case carriers.LabelPNG:
		if res.imageFormat == labelZPL {
			return carriers.Label{}, malformed(opBuy, status, "the label is ZPL, not the GIF asked for")
		}
		doc, err := c.labelPNG(ctx, status, res.image)
		if err != nil {
			return carriers.Label{}, err
		}
		label.Document, label.Format = doc, carriers.LabelPNG
	default:
		if res.imageFormat == labelZPL {
			return carriers.Label{}, malformed(opBuy, status, "the label is ZPL, not the GIF asked for")
		}
		pdf, err := c.labelPDFOn(ctx, status, res.image, res.trackingNumber, size)
		if err != nil {
			return carriers.Label{}, err
		}
		label.Document, label.Format = pdf, carriers.LabelPDF
	}
	return label, nil
}

// labelPNG turns UPS's label image (a landscape GIF) into an upright PNG,
// held to the same bounds as the PDF conversion: the header is checked
// before anything is decoded and the decoding waits for its share of the
// label memory.
func (c *Carrier) labelPNG(ctx context.Context, status int, img []byte) ([]byte, error) {
	info, err := carriers.CheckLabelImage(img, "gif", "png")
	if err != nil {
		return nil, malformed(opBuy, status, "%v", err)
	}
	release, err := c.cfg.LabelMemory.Acquire(ctx, info.Cost())
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, malformed(opBuy, status, "the carrier's label image: %v", err)
	}
	defer release()
	var src image.Image
	if info.Format == "gif" {
		src, err = gif.Decode(bytes.NewReader(img))
	} else {
		src, err = png.Decode(bytes.NewReader(img))
	}
	if err != nil {
		return nil, malformed(opBuy, status, "label image does not decode: %v", err)
	}
	if _, paletted := src.(*image.Paletted); !paletted {
		src = flattenGray(src)
	}
	if b := src.Bounds(); b.Dx() > b.Dy() {
		src = rotateClockwise(src)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, src); err != nil { // as label.go
		return nil, malformed(opBuy, status, "re-encoding the label image: %v", fmt.Errorf("png: %w", err))
	}
	return buf.Bytes(), nil
}

// Label page: a 4x6 inch portrait thermal label.
const (
	pageW = 4.0
	pageH = 6.0
)

// labelPDF turns the label image of a ship answer into the label's PDF
// (convertLabel), within the limits every label image is held to: the
// image's header is read first and an image larger than any label is
// refused before a pixel is decoded (carriers.CheckLabelImage), and the
// conversion waits for its share of the label memory all purchases share
// (carriers.LabelMemory), so that concurrent purchases cannot decode more
// than that at once. A refused image is a malformed answer (ErrFailed); a
// context that ends while waiting returns its error, for the purchase to
// run again.
func (c *Carrier) labelPDF(ctx context.Context, status int, img []byte, trackingNumber string) ([]byte, error) {
	return c.labelPDFOn(ctx, status, img, trackingNumber, carriers.Label4x6)
}

// labelPDFOn is labelPDF on a page of the given size: the 4x6 label, or
// that label at the top of a US letter page.
func (c *Carrier) labelPDFOn(ctx context.Context, status int, img []byte, trackingNumber string, size carriers.LabelSize) ([]byte, error) {
	info, err := carriers.CheckLabelImage(img, "gif", "png")
	if err != nil {
		return nil, malformed(opBuy, status, "%v", err)
	}
	release, err := c.cfg.LabelMemory.Acquire(ctx, info.Cost())
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, malformed(opBuy, status, "the carrier's label image: %v", err)
	}
	defer release()
	pdf, err := convertLabelOn(img, info, c.cfg.Now(), trackingNumber, size)
	if err != nil {
		return nil, malformed(opBuy, status, "label image: %v", err)
	}
	return pdf, nil
}

// convertLabel turns the label image UPS answered (a landscape GIF: the 4x6
// label lies on its side, its top towards the image's left edge) into a
// one-page 4x6 inch portrait PDF. The image is turned a quarter turn
// clockwise, which brings the label upright, and scaled to fill the page
// without distortion. info is what carriers.CheckLabelImage read from the
// header and allowed.
func convertLabel(img []byte, info carriers.LabelImage, date time.Time, trackingNumber string) ([]byte, error) {
	return convertLabelOn(img, info, date, trackingNumber, carriers.Label4x6)
}

// Letter page, in inches, and where the 4x6 label sits on it: centred
// across, half an inch from the top, so that a sheet cut in two carries it.
const (
	letterW   = 8.5
	letterH   = 11.0
	letterTop = 0.5
)

// convertLabelOn is convertLabel on a page of the given size.
func convertLabelOn(img []byte, info carriers.LabelImage, date time.Time, trackingNumber string, size carriers.LabelSize) ([]byte, error) {
	return convertLabelsOn([][]byte{img}, []carriers.LabelImage{info}, date, trackingNumber, size)
}

// labelPage is a label image decoded and brought upright, as the PNG a
// PDF page embeds, and its size in pixels.
func labelPage(img []byte, info carriers.LabelImage) (*bytes.Buffer, image.Rectangle, error) {
	var src image.Image
	var err error
	if info.Format == "gif" {
		src, err = gif.Decode(bytes.NewReader(img))
	} else {
		src, err = png.Decode(bytes.NewReader(img))
	}
	if err != nil {
		return nil, image.Rectangle{}, fmt.Errorf("image does not decode: %w", err)
	}
	if _, paletted := src.(*image.Paletted); !paletted {
		// A thermal label is black on white: grey keeps it, at one byte a
		// pixel whatever the source's depth, and without an alpha channel
		// (which fpdf would split out into a second image).
		src = flattenGray(src)
	}
	if b := src.Bounds(); b.Dx() > b.Dy() {
		src = rotateClockwise(src)
	}
	var pngBuf bytes.Buffer
	// Default compression, as the sandbox's labels: best costs an order of
	// magnitude more CPU for about a tenth of the bytes.
	if err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&pngBuf, src); err != nil {
		return nil, image.Rectangle{}, fmt.Errorf("re-encoding the image: %w", err)
	}
	return &pngBuf, src.Bounds(), nil
}

// convertLabelsOn is a PDF of a page per label image (a multi-piece
// shipment's labels, pieces.go), titled with the first's tracking number.
func convertLabelsOn(imgs [][]byte, infos []carriers.LabelImage, date time.Time, trackingNumber string, size carriers.LabelSize) ([]byte, error) {
	page, x0, y0 := fpdf.SizeType{Wd: pageW, Ht: pageH}, 0.0, 0.0
	if size == carriers.LabelLetter {
		page, x0, y0 = fpdf.SizeType{Wd: letterW, Ht: letterH}, (letterW-pageW)/2, letterTop
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{
		OrientationStr: "P",
		UnitStr:        "in",
		Size:           page,
	})
	// Fixed dates and catalog order: the same label converts to the same bytes.
	pdf.SetCreationDate(date.UTC())
	pdf.SetModificationDate(date.UTC())
	pdf.SetCatalogSort(true)
	pdf.SetTitle("UPS label "+trackingNumber, true)
	pdf.SetCreator("shipd", true)
	pdf.SetMargins(0, 0, 0)
	pdf.SetAutoPageBreak(false, 0)
	for i, img := range imgs {
		pngBuf, b, err := labelPage(img, infos[i])
		if err != nil {
			return nil, err
		}
		pdf.AddPage()
		opts := fpdf.ImageOptions{ImageType: "PNG"}
		name := "label"
		if i > 0 {
			name = fmt.Sprintf("label%d", i+1)
		}
		pdf.RegisterImageOptionsReader(name, opts, pngBuf)
		w, h := fit(float64(b.Dx()), float64(b.Dy()), pageW, pageH)
		pdf.ImageOptions(name, x0+(pageW-w)/2, y0+(pageH-h)/2, w, h, false, opts, 0, "")
	}
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("writing the PDF: %w", err)
	}
	return out.Bytes(), nil
}

// flattenGray draws an image onto white in grey: transparent pixels become
// paper, not black.
func flattenGray(src image.Image) *image.Gray {
	b := src.Bounds()
	dst := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for i := range dst.Pix {
		dst.Pix[i] = 0xff
	}
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Over)
	return dst
}

// fit scales a w x h image to the largest size that fits the page.
func fit(w, h, pw, ph float64) (float64, float64) {
	scale := min(pw/w, ph/h)
	return w * scale, h * scale
}

// rotateClockwise turns an image a quarter turn clockwise: the pixel at
// (x, y) goes to (H-1-y, x). A paletted GIF stays paletted, which keeps the
// PNG (and the PDF) small; anything else turns grey (flattenGray).
func rotateClockwise(src image.Image) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if p, ok := src.(*image.Paletted); ok {
		dst := image.NewPaletted(image.Rect(0, 0, h, w), p.Palette)
		for y := 0; y < h; y++ {
			off := p.PixOffset(b.Min.X, b.Min.Y+y)
			row := p.Pix[off : off+w]
			for x, idx := range row {
				dst.Pix[x*dst.Stride+(h-1-y)] = idx
			}
		}
		return dst
	}
	g, ok := src.(*image.Gray)
	if !ok {
		g = flattenGray(src)
	}
	// (x, y) of g is (b.Min.X+x, b.Min.Y+y) of src.
	dst := image.NewGray(image.Rect(0, 0, h, w))
	for y := 0; y < h; y++ {
		off := g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y+y)
		for x, v := range g.Pix[off : off+w] {
			dst.Pix[x*dst.Stride+(h-1-y)] = v
		}
	}
	return dst
}
