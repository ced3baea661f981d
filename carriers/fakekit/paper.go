package fakekit

import (
	"bytes"

	"github.com/go-pdf/fpdf"
)

// TextPDF is a one-page Letter document of a title and lines of text, as a
// fake returns the paperwork its carrier draws (a commercial invoice). It is
// not compressed, so that a test finds its text in the bytes.
func TextPDF(title string, lines []string) ([]byte, error) {
	pdf := fpdf.New("P", "pt", "Letter", "")
	pdf.SetCompression(false)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.Cell(0, 24, title)
	pdf.Ln(28)
	pdf.SetFont("Helvetica", "", 10)
	for _, l := range lines {
		pdf.Cell(0, 14, l)
		pdf.Ln(14)
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
