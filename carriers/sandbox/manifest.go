package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
)

// Manifest triggers: the origin's name (fromAddress.name of the labels, or
// of POST /manifests).
const (
	// TriggerManifestRejected: the carrier refuses the manifest.
	TriggerManifestRejected = "Manifest Rejected"
)

// Manifest draws the form of a sandbox carrier with a manifest step
// (USPS's SCAN form, FedEx's Ground close; the sandbox UPS, like UPS, has
// none): at once, after the slow trigger's delay for an
// origin named "Slow Carrier", or refused for one named "Manifest Rejected".
// The form number derives from the reference, so a retried job gets the
// same form.
func (m *carrier) Manifest(ctx context.Context, req carriers.ManifestRequest) (carriers.ManifestForm, error) {
	if err := ctx.Err(); err != nil {
		return carriers.ManifestForm{}, err
	}
	if !m.Capabilities().Has(carriers.CapManifests) {
		return carriers.Unsupported{}.Manifest(ctx, req)
	}
	if len(req.Labels) == 0 {
		return carriers.ManifestForm{}, fmt.Errorf("sandbox: %s manifest without labels: %w", m.name, carriers.ErrRejected)
	}
	switch {
	case matches(req.From.Name, TriggerSlowCarrier):
		if err := m.wait(ctx); err != nil {
			return carriers.ManifestForm{}, err
		}
	case matches(req.From.Name, TriggerManifestRejected):
		return carriers.ManifestForm{}, fmt.Errorf("sandbox: %s refused the manifest (trigger: origin name '%s'): %w",
			m.name, TriggerManifestRejected, carriers.ErrRejected)
	}
	number := m.formNumber(req.Reference)
	numbers := make([]string, len(req.Labels))
	for i, l := range req.Labels {
		numbers[i] = l.TrackingNumber
	}
	title := m.t.ManifestTitle
	if title == "" {
		title = strings.ToUpper(m.name) + " END OF DAY FORM"
	}
	pdf, err := RenderManifest(ManifestInput{Title: title, Number: number, From: req.From, Date: req.ShipDate,
		TrackingNumbers: numbers, TestMode: req.TestMode})
	if err != nil {
		return carriers.ManifestForm{}, err
	}
	return carriers.ManifestForm{Number: number, PDF: pdf}, nil
}

// formNumber is a 22-digit number like a SCAN form's (a 94 prefix, as
// USPS's forms have), derived from the reference.
func (m *carrier) formNumber(ref string) string {
	sum := sha256.Sum256([]byte(m.name + "\x00manifest\x00" + ref))
	a := binary.BigEndian.Uint64(sum[0:8]) % 1e10
	b := binary.BigEndian.Uint64(sum[8:16]) % 1e10
	return fmt.Sprintf("94%010d%010d", a, b)
}

// ManifestInput is what goes on a manifest form.
type ManifestInput struct {
	Title           string
	Number          string
	From            carriers.Address
	Date            time.Time
	TrackingNumbers []string
	TestMode        bool
}

// Letter page geometry of the form, in inches.
const (
	formMargin  = 0.6
	formRowH    = 0.22
	formColumns = 3
	formBottom  = letterH - 0.7
)

// RenderManifest draws a PS Form 5630 style form on US letter pages: the
// shipper, the date, the count, the form number as a Code 128 barcode and
// every tracking number, in three columns, on more pages when they do not
// fit on one.
func RenderManifest(in ManifestInput) ([]byte, error) {
	if strings.TrimSpace(in.Number) == "" {
		return nil, errors.New("manifest: form number is required")
	}
	bc, err := barcodeBars(in.Number)
	if err != nil {
		return nil, err
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "in", Size: fpdf.SizeType{Wd: letterW, Ht: letterH}})
	pdf.SetCompression(false) // as labels: small, and its text readable by tests and tools
	pdf.SetTitle(in.Title+" "+in.Number, true)
	pdf.SetCreator("shipd sandbox", true)
	pdf.SetMargins(formMargin, formMargin, formMargin)
	pdf.SetAutoPageBreak(false, 0)
	tr := paperwork.CP1252
	w := letterW - 2*formMargin
	date := in.Date.Format("01/02/2006")
	pdf.SetCreationDate(in.Date.UTC())
	pdf.SetModificationDate(in.Date.UTC())

	pdf.AddPage()
	if in.TestMode {
		pdf.SetFont("Helvetica", "B", 11)
		pdf.SetTextColor(200, 0, 0)
		pdf.SetXY(formMargin, 0.25)
		pdf.CellFormat(w, 0.25, tr(sampleMark), "", 0, "C", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
	}
	pdf.SetFont("Helvetica", "B", 16)
	pdf.SetXY(formMargin, formMargin)
	pdf.CellFormat(w, 0.35, tr(in.Title), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	y := formMargin + 0.45
	facts := [][2]string{
		{"Shipper", strings.Join(addressLines(in.From, false), ", ")},
		{"Date", date},
		{"Packages", strconv.Itoa(len(in.TrackingNumbers))},
		{"Form number", in.Number},
	}
	for _, f := range facts {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.SetXY(formMargin, y)
		pdf.CellFormat(1.3, 0.22, tr(f[0]), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(w-1.3, 0.22, tr(f[1]), "", 0, "L", false, 0, "")
		y += 0.24
	}
	// The barcode the driver scans: whole thousandths of an inch per module.
	y += 0.1
	module := math.Floor(4.0/float64(bc.modules)*1000) / 1000
	pdf.SetFillColor(0, 0, 0)
	for _, b := range bc.bars {
		pdf.Rect(formMargin+float64(b.start)*module, y, float64(b.width)*module, 0.8, "F")
	}
	y += 0.85
	pdf.SetFont("Helvetica", "B", 11)
	pdf.SetXY(formMargin, y)
	pdf.CellFormat(4.0, 0.22, tr(in.Number), "", 0, "C", false, 0, "")
	y += 0.4
	pdf.SetLineWidth(0.01)
	pdf.Line(formMargin, y, letterW-formMargin, y)
	y += 0.1

	colW := w / formColumns
	page := 1
	list := func(top float64) {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.SetXY(formMargin, top)
		pdf.CellFormat(w, 0.25, tr("Tracking numbers"), "", 0, "L", false, 0, "")
	}
	list(y)
	y += 0.3
	top, col := y, 0
	pdf.SetFont("Courier", "", 9)
	for i, n := range in.TrackingNumbers {
		if y+formRowH > formBottom {
			col++
			y = top
			if col == formColumns {
				page++
				pdf.AddPage()
				pdf.SetFont("Helvetica", "", 9)
				pdf.SetXY(formMargin, 0.35)
				pdf.CellFormat(w, 0.2, tr(fmt.Sprintf("%s %s, page %d", in.Title, in.Number, page)), "", 0, "L", false, 0, "")
				list(formMargin)
				top, y, col = formMargin+0.3, formMargin+0.3, 0
				pdf.SetFont("Courier", "", 9)
			}
		}
		pdf.SetXY(formMargin+float64(col)*colW, y)
		pdf.CellFormat(colW, formRowH, tr(fmt.Sprintf("%4d  %s", i+1, n)), "", 0, "L", false, 0, "")
		y += formRowH
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return buf.Bytes(), nil
}
