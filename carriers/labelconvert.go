package carriers

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"time"

	"github.com/go-pdf/fpdf"
)

// ConvertLabelImage turns a carrier's label image (a GIF, PNG, TIFF, JPEG:
// whichever formats the caller registered and lists) into the document of
// format f: an upright PNG, or a one-page PDF with the 4x6 label on a 4x6
// or letter page. The image is held to the bounds of every label image:
// its header is checked before anything is decoded (CheckLabelImage), and
// the conversion waits for its share of mem. A refused image wraps the
// reason; a context that ends while waiting returns its error.
func ConvertLabelImage(ctx context.Context, mem *LabelMemory, data []byte, f LabelFormat, size LabelSize, title string, date time.Time, formats ...string) ([]byte, error) {
	info, err := CheckLabelImage(data, formats...)
	if err != nil {
		return nil, err
	}
	release, err := mem.Acquire(ctx, info.Cost())
	if err != nil {
		return nil, err
	}
	defer release()
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the carrier's label image does not decode: %w", err)
	}
	if _, paletted := src.(*image.Paletted); !paletted {
		// Black on white, one byte a pixel, no alpha: transparent is paper.
		b := src.Bounds()
		gray := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(gray, gray.Bounds(), image.White, image.Point{}, draw.Src)
		draw.Draw(gray, gray.Bounds(), src, b.Min, draw.Over)
		src = gray
	}
	if b := src.Bounds(); b.Dx() > b.Dy() {
		src = turnClockwise(src)
	}
	var pngBuf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&pngBuf, src); err != nil {
		return nil, fmt.Errorf("re-encoding the label image: %w", err)
	}
	if f == LabelPNG {
		return pngBuf.Bytes(), nil
	}
	const labelW, labelH = 4.0, 6.0
	page, x0, y0 := fpdf.SizeType{Wd: labelW, Ht: labelH}, 0.0, 0.0
	if size == LabelLetter {
		// Centred across, half an inch from the top: a sheet cut in two carries it.
		page, x0, y0 = fpdf.SizeType{Wd: 8.5, Ht: 11}, (8.5-labelW)/2, 0.5
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "in", Size: page})
	pdf.SetCreationDate(date.UTC())
	pdf.SetModificationDate(date.UTC())
	pdf.SetCatalogSort(true)
	pdf.SetTitle(title, true)
	pdf.SetCreator("shipd", true)
	pdf.SetMargins(0, 0, 0)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AddPage()
	opts := fpdf.ImageOptions{ImageType: "PNG"}
	pdf.RegisterImageOptionsReader("label", opts, &pngBuf)
	b := src.Bounds()
	w, h := labelW, float64(b.Dy())*labelW/float64(b.Dx())
	if h > labelH {
		w, h = float64(b.Dx())*labelH/float64(b.Dy()), labelH
	}
	pdf.ImageOptions("label", x0+(labelW-w)/2, y0+(labelH-h)/2, w, h, false, opts, 0, "")
	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("writing the label PDF: %w", err)
	}
	return out.Bytes(), nil
}

// turnClockwise turns an image a quarter turn clockwise: a label lying on
// its side, its top towards the image's left edge, comes upright.
func turnClockwise(src image.Image) image.Image {
	b := src.Bounds()
	var dst draw.Image
	if p, ok := src.(*image.Paletted); ok {
		dst = image.NewPaletted(image.Rect(0, 0, b.Dy(), b.Dx()), p.Palette)
	} else {
		dst = image.NewGray(image.Rect(0, 0, b.Dy(), b.Dx()))
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dst.Set(b.Max.Y-1-y, x-b.Min.X, src.At(x, y))
		}
	}
	return dst
}
