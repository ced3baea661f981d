package ups

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/gif"
	"image/png"

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
