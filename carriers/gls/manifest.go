package gls

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
)

// endOfDayAnswer is ShipIT's EndOfDayResponse: the shipments of the day.
type endOfDayAnswer struct {
	Shipments []struct {
		Product   string `json:"Product"`
		Consignee struct {
			Address struct {
				Name1       string `json:"Name1"`
				City        string `json:"City"`
				CountryCode string `json:"CountryCode"`
				Zipcode     string `json:"Zipcode"`
			} `json:"Address"`
		} `json:"Consignee"`
		ShipmentUnit []struct {
			TrackID      string  `json:"TrackID"`
			ParcelNumber string  `json:"ParcelNumber"`
			Weight       float64 `json:"Weight"`
		} `json:"ShipmentUnit"`
	} `json:"Shipments"`
}

// reportLine is one parcel of the end-of-day report.
type reportLine struct {
	number, trackID, product, consignee string
	kg                                  float64
}

// Manifest asks ShipIT for the end-of-day report of the labels' day
// (POST /rs/shipments/endofday?date=YYYY-MM-DD), the parcels GLS holds
// data of for that day, and draws the form the driver takes: a line per
// parcel of the manifest, with what GLS reports of it. A label GLS's
// report does not list (bought on another day, or cancelled) refuses the
// manifest (ErrRejected), naming it: a form that lists parcels GLS has no
// data of would not match the driver's scans. The report is read, not
// made, so a resumed manifest asks it again. A label of several parcels
// has a line for each. GLS numbers no report: the
// form's number is the day and a digest of the manifest's reference.
func (c *Carrier) Manifest(ctx context.Context, req carriers.ManifestRequest) (carriers.ManifestForm, error) {
	if err := ctx.Err(); err != nil {
		return carriers.ManifestForm{}, err
	}
	if len(req.Labels) == 0 {
		return carriers.ManifestForm{}, rejected(opManifest, "a manifest without labels")
	}
	day := req.ShipDate
	if day.IsZero() {
		day = c.now()
	}
	date := day.Format("2006-01-02")
	a, err := c.do(ctx, request{op: opManifest, method: http.MethodPost, path: shipitPath + "/shipments/endofday",
		query: url.Values{"date": {date}}})
	if err != nil {
		return carriers.ManifestForm{}, err
	}
	report, err := parseEndOfDay(a.body)
	if err != nil {
		return carriers.ManifestForm{}, malformed(opManifest, a.status, "%v", err)
	}
	// Every parcel of every label: a multi-parcel label's pieces are its
	// TrackIDs (CarrierShipmentID), its master the tracking number.
	var lines []reportLine
	var missing []string
	for _, l := range req.Labels {
		tn := carriers.NormalizeTrackingNumber(l.TrackingNumber)
		ids := splitTrackIDs(l.CarrierShipmentID)
		if !slices.ContainsFunc(report, func(r reportLine) bool { return r.number == tn }) {
			missing = append(missing, tn)
			continue
		}
		for _, r := range report {
			if r.number == tn || slices.Contains(ids, strings.ToUpper(r.trackID)) {
				lines = append(lines, r)
			}
		}
	}
	if len(missing) > 0 {
		return carriers.ManifestForm{}, &carriers.Error{Carrier: carrierName, Operation: opManifest, HTTPStatus: a.status, Kind: carriers.ErrRejected,
			Message: carriers.Excerpt(fmt.Sprintf("GLS's end-of-day report of %s does not list parcel %s (bought on another day, or cancelled)",
				date, strings.Join(missing, ", ")))}
	}
	sum := sha256.Sum256([]byte("shipd/gls/endofday/" + req.Reference))
	number := "EOD-" + strings.ReplaceAll(date, "-", "") + "-" + strings.ToUpper(hex.EncodeToString(sum[:4]))
	pdf, err := renderReport(number, date, req.From, lines)
	if err != nil {
		return carriers.ManifestForm{}, &carriers.Error{Carrier: carrierName, Operation: opManifest, Kind: carriers.ErrFailed, Message: err.Error()}
	}
	return carriers.ManifestForm{Number: number, PDF: pdf}, nil
}

// parseEndOfDay reads every parcel of an end-of-day report.
func parseEndOfDay(body []byte) ([]reportLine, error) {
	var a endOfDayAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("the end-of-day answer is not the documented JSON: %w", err)
	}
	var out []reportLine
	for _, s := range a.Shipments {
		to := s.Consignee.Address
		consignee := strings.Join(slices.DeleteFunc([]string{strings.TrimSpace(to.Name1),
			strings.TrimSpace(strings.TrimSpace(to.Zipcode) + " " + strings.TrimSpace(to.City)), strings.TrimSpace(to.CountryCode)},
			func(s string) bool { return s == "" }), ", ")
		for _, u := range s.ShipmentUnit {
			number := carriers.NormalizeTrackingNumber(u.ParcelNumber)
			if number == "" {
				return nil, fmt.Errorf("a parcel of the report has no ParcelNumber")
			}
			if u.Weight < 0 || u.Weight > 1e6 {
				return nil, fmt.Errorf("parcel %s weighs %g kg", carriers.Excerpt(number), u.Weight)
			}
			out = append(out, reportLine{number: number, trackID: strings.TrimSpace(u.TrackID), product: strings.TrimSpace(s.Product),
				consignee: consignee, kg: u.Weight})
		}
	}
	return out, nil
}

// renderReport draws the end-of-day form on A4 pages: the shipper, the
// day, the count and total weight, then a line per parcel.
func renderReport(number, date string, from carriers.Address, lines []reportLine) ([]byte, error) {
	const margin, rowH, bottom = 15.0, 6.0, 280.0
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(false) // small, and its text readable by tests and tools
	pdf.SetTitle("GLS END OF DAY REPORT "+number, true)
	pdf.SetCreator("shipd", true)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(false, 0)
	tr := paperwork.CP1252
	var total float64
	for _, l := range lines {
		total += l.kg
	}
	header := func() {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "B", 15)
		pdf.CellFormat(0, 9, tr("GLS END OF DAY REPORT"), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		shipper := strings.Join(slices.DeleteFunc([]string{strings.TrimSpace(from.Company), strings.TrimSpace(from.Name),
			strings.TrimSpace(from.Street1), strings.TrimSpace(strings.TrimSpace(from.Zip) + " " + strings.TrimSpace(from.City)),
			carriers.NormalizeCountry(from.Country)}, func(s string) bool { return s == "" }), ", ")
		for _, f := range [][2]string{{"Shipper", shipper}, {"Date", date}, {"Parcels", strconv.Itoa(len(lines))},
			{"Weight", strconv.FormatFloat(total, 'f', 2, 64) + " kg"}, {"Report", number}} {
			pdf.SetFont("Helvetica", "B", 10)
			pdf.CellFormat(30, 6, tr(f[0]), "", 0, "L", false, 0, "")
			pdf.SetFont("Helvetica", "", 10)
			pdf.CellFormat(0, 6, tr(f[1]), "", 1, "L", false, 0, "")
		}
		pdf.Ln(3)
		pdf.SetFont("Helvetica", "B", 9)
		for _, col := range []struct {
			w    float64
			name string
		}{{8, "#"}, {32, "Parcel number"}, {22, "TrackID"}, {20, "Product"}, {80, "Consignee"}, {18, "kg"}} {
			pdf.CellFormat(col.w, rowH, tr(col.name), "B", 0, "L", false, 0, "")
		}
		pdf.Ln(rowH)
		pdf.SetFont("Courier", "", 9)
	}
	header()
	for i, l := range lines {
		if pdf.GetY()+rowH > bottom {
			header()
		}
		pdf.CellFormat(8, rowH, strconv.Itoa(i+1), "", 0, "L", false, 0, "")
		pdf.CellFormat(32, rowH, tr(l.number), "", 0, "L", false, 0, "")
		pdf.CellFormat(22, rowH, tr(l.trackID), "", 0, "L", false, 0, "")
		pdf.CellFormat(20, rowH, tr(l.product), "", 0, "L", false, 0, "")
		pdf.CellFormat(80, rowH, tr(carriers.Excerpt(l.consignee)), "", 0, "L", false, 0, "")
		pdf.CellFormat(18, rowH, strconv.FormatFloat(l.kg, 'f', 2, 64), "", 1, "R", false, 0, "")
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("drawing the end-of-day report: %w", err)
	}
	return buf.Bytes(), nil
}
