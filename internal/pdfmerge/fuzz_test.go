package pdfmerge

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/shipd-dev/shipd/internal/pdfmerge/pdftest"
)

// The fuzz targets (make fuzz runs each; scripts/fuzz.sh finds them by
// name). Each reads its input with prepare itself, not through
// readGuarded, whose recover would hide a panic; limits are small so that
// the fuzzer spends its time on structure, not on inflating.

var fuzzLimits = Limits{Stream: 256 << 10, Document: 1 << 20}

// readAndMerge is what every target checks of a document: no panic; an
// error is ErrUnmergeable; nothing allocated past the document limit; and
// a document read merges into one that reads back with as many pages.
func readAndMerge(t *testing.T, doc []byte) {
	m := newMeter(fuzzLimits, len(doc))
	p, err := prepare(doc, m)
	if m.used > fuzzLimits.Document {
		t.Fatalf("the reading charged %d bytes, past the limit %d", m.used, fuzzLimits.Document)
	}
	if err != nil {
		if !errors.Is(err, ErrUnmergeable) {
			t.Fatalf("prepare: %v, want ErrUnmergeable", err)
		}
		return
	}
	var out bytes.Buffer
	merger := NewMerger(&out, NewBudget(0, fuzzLimits))
	merger.writeDocument(p)
	if err := merger.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := prepare(out.Bytes(), newMeter(Limits{}.withDefaults(), out.Len()))
	if err != nil {
		t.Fatalf("the merged document does not read back: %v\n%q", err, out.Bytes())
	}
	if len(back.pages) != len(p.pages) {
		t.Fatalf("the merged document has %d pages, the input %d", len(back.pages), len(p.pages))
	}
}

// FuzzMerge reads any bytes as a label.
func FuzzMerge(f *testing.F) {
	for _, s := range pdftest.Seeds() {
		f.Add(s.Doc)
	}
	f.Add(pdftest.Label15("BT (x) Tj ET").Bytes())
	f.Add(buildPDF15("BT /F1 9 Tf (modern) Tj ET"))
	f.Add(pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 288 432] /Resources << /Font << /F1 7 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Annots [<< /Type /Annot /Subtype /Link /P 3 0 R /Rect [0 0 1 1] >>] >>",
		pdftest.Stream("BT (first a) Tj ET"),
		"<< /Length 8 0 R >>\nstream\nBT (first b) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"18",
	}, map[int]string{5: pdftest.Stream("BT (new) Tj ET")}))
	f.Add(pdftest.ObjectStreamBomb(4, 4<<20))
	f.Fuzz(readAndMerge)
}

// FuzzXrefStream reads a label whose cross-reference stream has any
// dictionary entries (W, Index, DecodeParms) and inflates to any table.
func FuzzXrefStream(f *testing.F) {
	label := pdftest.Label15("BT (x) Tj ET")
	f.Add("/W [1 4 2]", "", "/DecodeParms << /Predictor 12 /Columns 7 >>", []byte(nil))
	f.Add("/W [-5 10 1]", "", "", []byte(nil))
	f.Add("/W [1 2 1]", "/Index [0 3 10 2]", "", []byte{1, 0, 9, 0, 2, 0, 10, 0, 2, 0, 10, 1, 0, 0, 0, 0, 1, 0, 30, 0})
	f.Add("/W [1 4 2]", "", "/DecodeParms << /Predictor 15 /Columns 7 /Colors 3 /BitsPerComponent 16 >>", []byte{4, 1, 2, 3, 4, 5, 6, 7, 1, 9, 9, 9})
	f.Add("/W [1 4 2]", "", "/DecodeParms << /Predictor 12 /Columns 9000000000000000000 >>", []byte(nil))
	f.Fuzz(func(t *testing.T, w, index, parms string, table []byte) {
		p := label
		p.Xref = pdftest.XrefOpts{W: w, Extra: index, DecodeParms: parms, Table: table}
		if w == "" {
			p.Xref.W = " "
		}
		if parms == "" {
			p.Xref.DecodeParms = " "
		}
		readAndMerge(t, p.Bytes())
	})
}

// FuzzObjectStream reads a label whose object stream (holding its catalog,
// page tree, page and font) has any /N and /First and inflates to any
// content.
func FuzzObjectStream(f *testing.F) {
	// The label's own object stream, as labelPDF15 writes it.
	var header, body bytes.Buffer
	for num, obj := range []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 288 432] >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
	} {
		fmt.Fprintf(&header, "%d %d ", num+1, body.Len())
		body.WriteString(obj + "\n")
	}
	valid, first := append(header.Bytes(), body.Bytes()...), strconv.Itoa(header.Len())
	f.Add("4", first, valid)
	f.Add("4", "-100000", valid)
	f.Add("9223372036854775807", first, valid)
	f.Add("2", "4", []byte("1 0 1 0 << /Type /Catalog /Pages 1 0 R >>"))
	f.Fuzz(func(t *testing.T, n, first string, content []byte) {
		p := pdftest.Label15("BT (x) Tj ET")
		p.Stms[10] = pdftest.ObjStm{Members: []int{1, 2, 3, 4}, N: n + " ", First: first + " ", Content: content}
		readAndMerge(t, p.Bytes())
	})
}
