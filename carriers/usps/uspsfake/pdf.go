package uspsfake

import (
	"bytes"
	"strings"

	"github.com/go-pdf/fpdf"
)

// mailClassTitles is what the fake prints as the service banner.
var mailClassTitles = map[string]string{
	"USPS_GROUND_ADVANTAGE":                     "USPS GROUND ADVANTAGE",
	"PRIORITY_MAIL":                             "USPS PRIORITY MAIL",
	"PRIORITY_MAIL_EXPRESS":                     "USPS PRIORITY MAIL EXPRESS",
	"FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE": "FIRST-CLASS PKG INTL SERVICE",
	"PRIORITY_MAIL_INTERNATIONAL":               "PRIORITY MAIL INTERNATIONAL",
	"PRIORITY_MAIL_EXPRESS_INTERNATIONAL":       "PRIORITY MAIL EXPRESS INTL",
}

// labelPDF draws a 4x6 inch test label: service banner, addresses, a
// barcode-like pattern of the tracking number and the number itself. It is
// plainly marked as a test label so that it is never mailed.
func labelPDF(l *label) ([]byte, error) {
	const w, h = 288.0, 432.0 // 4 x 6 inches in points
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w, Ht: h}})
	pdf.SetMargins(12, 12, 12)
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetCreationDate(l.SoldAt)
	pdf.SetModificationDate(l.SoldAt)
	pdf.SetTitle("USPS test label "+l.TrackingNumber, false)
	pdf.AddPage()
	pdf.SetLineWidth(1.5)
	pdf.Rect(6, 6, w-12, h-12, "D")

	// Service banner.
	pdf.SetFillColor(0, 0, 0)
	pdf.Rect(6, 6, 60, 60, "F")
	pdf.SetTextColor(255, 255, 255)
	pdf.SetFont("Helvetica", "B", 28)
	pdf.Text(17, 48, serviceLetter(l.mailClass))
	pdf.SetTextColor(0, 0, 0)
	pdf.SetFont("Helvetica", "B", 13)
	pdf.Text(74, 30, orDefault(mailClassTitles[l.mailClass], l.mailClass))
	pdf.SetFont("Helvetica", "", 8)
	pdf.Text(74, 44, "TEST LABEL - USPSFAKE - NOT FOR MAILING")
	pdf.Text(74, 56, "Ship date: "+l.SoldAt.UTC().Format("01/02/2006"))
	pdf.Line(6, 72, w-6, 72)

	// Sender.
	y := 86.0
	pdf.SetFont("Helvetica", "", 8)
	for _, line := range addressLines(l.from, false) {
		pdf.Text(14, y, line)
		y += 10
	}

	// Recipient.
	y = 150
	pdf.SetFont("Helvetica", "B", 9)
	pdf.Text(30, y, "SHIP TO:")
	pdf.SetFont("Helvetica", "B", 12)
	y += 16
	for _, line := range addressLines(l.to, l.international) {
		pdf.Text(30, y, line)
		y += 15
	}

	// Tracking barcode (a pattern drawn from the digits, not a real IMpb).
	pdf.Line(6, 268, w-6, 268)
	pdf.SetFont("Helvetica", "B", 10)
	pdf.Text(64, 284, "USPS TRACKING # EP")
	x := 24.0
	for i, c := range l.TrackingNumber {
		bar := 1 + float64(int(c)%3)
		pdf.Rect(x, 292, bar, 58, "F")
		x += bar + 1.5 + float64((int(c)+i)%2)
		if x > w-26 {
			break
		}
	}
	pdf.SetFont("Helvetica", "", 11)
	pdf.Text(40, 368, spaced(l.TrackingNumber))
	pdf.Line(6, 380, w-6, 380)
	if l.Reference != "" {
		pdf.SetFont("Helvetica", "", 8)
		pdf.Text(14, 396, "Ref: "+ascii(l.Reference))
	}
	if l.customs != nil {
		l.customs.draw(pdf, w, h) // customs.go
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func serviceLetter(mailClass string) string {
	switch {
	case strings.Contains(mailClass, "EXPRESS"):
		return "E"
	case strings.Contains(mailClass, "PRIORITY"):
		return "P"
	case strings.Contains(mailClass, "INTERNATIONAL"):
		return "F"
	}
	return "G"
}

func addressLines(a labelAddressIn, international bool) []string {
	name := strings.TrimSpace(a.FirstName + " " + a.LastName)
	var lines []string
	for _, s := range []string{name, a.Firm, a.StreetAddress, a.SecondaryAddress} {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, ascii(strings.ToUpper(s)))
		}
	}
	if international {
		lines = append(lines, ascii(strings.ToUpper(strings.TrimSpace(a.City+" "+a.Province+" "+a.PostalCode))), ascii(strings.ToUpper(a.Country)))
	} else {
		zip := a.ZIPCode
		if a.ZIPPlus4 != "" {
			zip += "-" + a.ZIPPlus4
		}
		lines = append(lines, ascii(strings.ToUpper(a.City)+" "+a.State+" "+zip))
	}
	return lines
}

// ascii keeps the printable ASCII the core PDF fonts can draw.
func ascii(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 32 || r > 126 {
			return '?'
		}
		return r
	}, s)
}

// spaced groups a tracking number in fours, as USPS prints it.
func spaced(tn string) string {
	var b strings.Builder
	for i, c := range tn {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
