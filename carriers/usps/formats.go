package usps

import (
	"context"
	"net/http"

	_ "golang.org/x/image/tiff" // ConvertLabelImage decodes USPS's TIFF labels

	"github.com/shipd-dev/shipd/carriers"
)

// The Labels API's imageType of each label shipd asks for.
const (
	imagePDF  = "PDF"
	imageZPL  = "ZPL203DPI"
	imageTIFF = "TIFF"
)

// imageTypeFor is the imageType asked of USPS for a label in format f and
// size: a 4x6 PDF as USPS draws it; ZPL203DPI for ZPL (203 dpi, the
// printers' common resolution); a TIFF for a PNG, and for a PDF on a
// letter page (USPS draws neither: a TIFF is a lossless image shipd
// converts, where a JPG would blur the barcode).
func imageTypeFor(f carriers.LabelFormat, size carriers.LabelSize) string {
	switch {
	case f == carriers.LabelZPL:
		return imageZPL
	case f == carriers.LabelPNG, size == carriers.LabelLetter:
		return imageTIFF
	}
	return imagePDF
}

// labelIn reads a label answer asked for format f and size: a PDF or ZPL
// as USPS wrote it, or its TIFF converted to a PNG or a letter PDF within
// the label memory.
func (c *Carrier) labelIn(ctx context.Context, contentType string, body []byte, f carriers.LabelFormat, size carriers.LabelSize) (carriers.Label, error) {
	imageType := imageTypeFor(f, size)
	label, err := parseLabelAs(contentType, body, imageType)
	if err != nil || imageType != imageTIFF {
		return label, err
	}
	doc, err := carriers.ConvertLabelImage(ctx, c.cfg.LabelMemory, label.Document, f, size, "USPS label "+label.TrackingNumber, c.now(), "tiff")
	if err != nil {
		if ctx.Err() != nil {
			return carriers.Label{}, err
		}
		return carriers.Label{}, carriers.Unusable(carriers.Label{TrackingNumber: label.TrackingNumber},
			failed(opBuy, http.StatusOK, "label %s: %v", label.TrackingNumber, err))
	}
	label.Document, label.Format = doc, f
	return label, nil
}
