package ups

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/png"
	"time"

	"github.com/go-pdf/fpdf"
)

// Label page: a 4x6 inch portrait thermal label.
const (
	pageW = 4.0
	pageH = 6.0
	// maxLabelPixels bounds the decoded image. A UPS GIF label is about
	// 1200x800 dots (6x4 in at 203 dpi); the bound leaves room for larger
	// renderings but refuses a header that claims gigapixels.
	maxLabelPixels = 4000 * 4000
)

// labelPDF turns the label image UPS answered (a landscape GIF: the 4x6
// label lies on its side, its top towards the image's left edge) into a
// one-page 4x6 inch portrait PDF. The image is turned a quarter turn
// clockwise, which brings the label upright, and scaled to fill the page
// without distortion.
func labelPDF(img []byte, date time.Time, trackingNumber string) ([]byte, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return nil, fmt.Errorf("not a readable image: %w", err)
	}
	if format != "gif" && format != "png" {
		return nil, fmt.Errorf("image is %s, not GIF", format)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxLabelPixels {
		return nil, fmt.Errorf("image is %dx%d pixels, not a label", cfg.Width, cfg.Height)
	}
	var src image.Image
	if format == "gif" {
		src, err = gif.Decode(bytes.NewReader(img))
	} else {
		src, err = png.Decode(bytes.NewReader(img))
	}
	if err != nil {
		return nil, fmt.Errorf("image does not decode: %w", err)
	}
	if b := src.Bounds(); b.Dx() > b.Dy() {
		src = rotateClockwise(src)
	}
	var pngBuf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&pngBuf, src); err != nil {
		return nil, fmt.Errorf("re-encoding the image: %w", err)
	}

	pdf := fpdf.NewCustom(&fpdf.InitType{
		OrientationStr: "P",
		UnitStr:        "in",
		Size:           fpdf.SizeType{Wd: pageW, Ht: pageH},
	})
	// Fixed dates and catalog order: the same label converts to the same bytes.
	pdf.SetCreationDate(date.UTC())
	pdf.SetModificationDate(date.UTC())
	pdf.SetCatalogSort(true)
	pdf.SetTitle("UPS label "+trackingNumber, true)
	pdf.SetCreator("shipd", true)
	pdf.SetMargins(0, 0, 0)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()
	opts := fpdf.ImageOptions{ImageType: "PNG"}
	pdf.RegisterImageOptionsReader("label", opts, &pngBuf)
	b := src.Bounds()
	w, h := fit(float64(b.Dx()), float64(b.Dy()), pageW, pageH)
	pdf.ImageOptions("label", (pageW-w)/2, (pageH-h)/2, w, h, false, opts, 0, "")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("writing the PDF: %w", err)
	}
	return out.Bytes(), nil
}

// fit scales a w x h image to the largest size that fits the page.
func fit(w, h, pw, ph float64) (float64, float64) {
	scale := min(pw/w, ph/h)
	return w * scale, h * scale
}

// rotateClockwise turns an image a quarter turn clockwise: the pixel at
// (x, y) goes to (H-1-y, x). A paletted GIF stays paletted, which keeps the
// PNG (and the PDF) small.
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
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, rgba.Bounds(), src, b.Min, draw.Src)
	// (x, y) of rgba is (b.Min.X+x, b.Min.Y+y) of src.
	dst := image.NewRGBA(image.Rect(0, 0, h, w))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dst.SetRGBA(h-1-y, x, rgba.RGBAAt(x, y))
		}
	}
	return dst
}
