package pdfmerge

import (
	"fmt"
	"io"
	"testing"

	"github.com/shipd-dev/shipd/internal/pdfmerge/pdftest"
)

// BenchmarkMergeBatch merges a batch of PDF 1.5 labels into io.Discard.
// Besides B/op (everything allocated, transient), it reports what the
// merger keeps across the batch (retained-B: the output's offsets and page
// numbers, the only memory that grows with the batch) and the most one
// label's reading allocated (doc-B, as the meter charges it): README's "a
// few hundred KB whatever the batch's size" is doc-B plus retained-B.
func BenchmarkMergeBatch(b *testing.B) {
	label := pdftest.Label15("BT /F1 9 Tf 18 400 Td (SHIP TO ADA LOVELACE) Tj ET").Bytes()
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprint("labels=", n), func(b *testing.B) {
			b.ReportAllocs()
			budget := NewBudget(0, Limits{})
			var retained int
			for b.Loop() {
				m := NewMerger(io.Discard, budget)
				for range n {
					if err := m.Add(b.Context(), label); err != nil {
						b.Fatal(err)
					}
				}
				retained = 8*cap(m.offsets) + 8*cap(m.kids)
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(retained), "retained-B")
			b.ReportMetric(float64(budget.Stats().PeakDocument), "doc-B")
		})
	}
}

// BenchmarkCheck is what a purchase adds to read its label as a merge
// will: a classic label (shipd's own, fpdf's layout) and a PDF 1.5 one.
func BenchmarkCheck(b *testing.B) {
	for name, doc := range map[string][]byte{
		"classic": pdftest.Classic([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			pdftest.Stream("BT /F1 9 Tf 18 400 Td (SHIP TO ADA LOVELACE) Tj ET"),
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}, nil),
		"object streams": pdftest.Label15("BT /F1 9 Tf 18 400 Td (SHIP TO ADA LOVELACE) Tj ET").Bytes(),
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			budget := NewBudget(0, Limits{})
			for b.Loop() {
				if err := budget.Check(b.Context(), doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
