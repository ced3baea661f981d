package pdfmerge

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/internal/pdfmerge/pdftest"
)

// pageTexts reads a merged document with the merger's own parser: its
// pages in order, each page's content and MediaBox.
func pageTexts(t *testing.T, doc []byte) (contents, boxes []string) {
	t.Helper()
	d, err := parse(doc, newMeter(Limits{}.withDefaults(), len(doc)))
	if err != nil {
		t.Fatalf("the merged document does not parse: %v", err)
	}
	_, pages, err := d.pages()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		c, err := d.resolve(p.get("/Contents"))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := c.(*pdfStream)
		if !ok {
			t.Fatalf("page contents %T", c)
		}
		contents = append(contents, string(s.data))
		var box bytes.Buffer
		writeValue(&box, p.get("/MediaBox"), nil)
		boxes = append(boxes, box.String())
	}
	return contents, boxes
}

func TestMergePDFsKeepsPagesInOrder(t *testing.T) {
	t.Parallel()
	// Two pages under a Pages node that gives them MediaBox and Resources;
	// the second page's content has an indirect /Length.
	first := pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 288 432] /Resources << /Font << /F1 7 0 R >> >> >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /Contents 6 0 R /Annots [<< /Type /Annot /Subtype /Link /P 3 0 R /Rect [0 0 1 1] >>] >>",
		pdftest.Stream("BT (first a) Tj ET"),
		"<< /Length 8 0 R >>\nstream\nBT (first b) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"18",
	}, nil)
	// An incremental update replaced the page's content: the newer one counts.
	second := pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R % a comment\n>>",
		pdftest.Stream("BT (old) Tj ET"),
	}, map[int]string{4: pdftest.Stream("BT (second \\(new\\)) Tj ET")})

	var out bytes.Buffer
	m := NewMerger(&out, NewBudget(0, Limits{}))
	for _, doc := range [][]byte{first, second} {
		if err := m.Add(t.Context(), doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	contents, boxes := pageTexts(t, out.Bytes())
	if diff := cmp.Diff([]string{"BT (first a) Tj ET", "BT (first b) Tj ET", "BT (second \\(new\\)) Tj ET"}, contents); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"[0 0 288 432]", "[0 0 288 432]", "[0 0 612 792]"}, boxes); diff != "" {
		t.Errorf("MediaBoxes, inherited ones copied (-want +got):\n%s", diff)
	}
	if !bytes.Contains(out.Bytes(), []byte("/BaseFont /Helvetica")) {
		t.Error("the inherited font did not follow its page")
	}
}

// A document the merger cannot read is refused whole, before it writes
// anything; the batch puts a page naming the shipment in its place.
func TestMergePDFRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	xrefStream := []byte("%PDF-1.5\n1 0 obj\n<< /Type /XRef /W [1 2 1] /Size 1 /Length 0 >>\nstream\n\nendstream\nendobj\nstartxref\n9\n%%EOF\n")
	encrypted := bytes.Replace(pdftest.Classic([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"}, nil),
		[]byte("/Root 1 0 R"), []byte("/Root 1 0 R /Encrypt 3 0 R"), 1)
	for name, doc := range map[string][]byte{"xref stream": xrefStream, "encrypted": encrypted, "not a PDF": []byte("GIF89a"), "no pages": pdftest.Classic([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"}, nil)} {
		var out bytes.Buffer
		m := NewMerger(&out, NewBudget(0, Limits{}))
		if err := m.Add(t.Context(), doc); !errors.Is(err, ErrUnmergeable) {
			t.Errorf("%s: %v, want ErrUnmergeable", name, err)
		}
		m.Placeholder("The label of shp_x could not be merged")
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		contents, _ := pageTexts(t, out.Bytes())
		if len(contents) != 1 || !strings.Contains(contents[0], "shp_x") {
			t.Errorf("%s: pages %q, want the placeholder alone", name, contents)
		}
	}
}

// buildPDF15 writes a PDF 1.5 document as modern writers do: the catalog,
// page tree, page and font compressed in an object stream (7), the content a
// plain object (5), and a cross-reference stream (8), deflated with the PNG
// Up predictor.
func buildPDF15(content string) []byte {
	inStm := map[int]string{
		1: "<< /Type /Catalog /Pages 2 0 R >>",
		2: "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 288 432] >>",
		3: "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
		4: "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
	}
	var header, body bytes.Buffer
	for num := 1; num <= 4; num++ {
		fmt.Fprintf(&header, "%d %d ", num, body.Len())
		body.WriteString(inStm[num] + "\n")
	}
	objstm := deflate(append(header.Bytes(), body.Bytes()...))
	first := header.Len()

	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	off5 := b.Len()
	fmt.Fprintf(&b, "5 0 obj\n%s\nendobj\n", pdftest.Stream(content))
	off7 := b.Len()
	fmt.Fprintf(&b, "7 0 obj\n<< /Type /ObjStm /N 4 /First %d /Filter /FlateDecode /Length %d >>\nstream\n", first, len(objstm))
	b.Write(objstm)
	b.WriteString("\nendstream\nendobj\n")
	off8 := b.Len()
	// Entries of W [1 2 1]: type, offset or object stream, generation or index.
	rows := [][]byte{{0, 0, 0, 255}}
	for i := range 4 {
		rows = append(rows, []byte{2, 0, 7, byte(i)})
	}
	rows = append(rows, []byte{1, byte(off5 >> 8), byte(off5), 0}, []byte{0, 0, 0, 0}, []byte{1, byte(off7 >> 8), byte(off7), 0}, []byte{1, byte(off8 >> 8), byte(off8), 0})
	var table []byte
	prev := make([]byte, 4)
	for _, r := range rows {
		table = append(table, 2) // Up
		for i := range r {
			table = append(table, r[i]-prev[i])
		}
		prev = r
	}
	xs := deflate(table)
	fmt.Fprintf(&b, "8 0 obj\n<< /Type /XRef /Size 9 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length %d >>\nstream\n", len(xs))
	b.Write(xs)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", off8)
	return b.Bytes()
}

func deflate(b []byte) []byte {
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return out.Bytes()
}

// PDF 1.5 documents (cross-reference and object streams) merge like classic ones.
func TestMergePDF15ObjectStreams(t *testing.T) {
	t.Parallel()
	classic := pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>",
		pdftest.Stream("BT (classic) Tj ET"),
	}, nil)
	var out bytes.Buffer
	m := NewMerger(&out, NewBudget(0, Limits{}))
	for _, doc := range [][]byte{buildPDF15("BT /F1 9 Tf (modern one) Tj ET"), classic, buildPDF15("BT /F1 9 Tf (modern two) Tj ET")} {
		if err := m.Add(t.Context(), doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	contents, boxes := pageTexts(t, out.Bytes())
	if diff := cmp.Diff([]string{"BT /F1 9 Tf (modern one) Tj ET", "BT (classic) Tj ET", "BT /F1 9 Tf (modern two) Tj ET"}, contents); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"[0 0 288 432]", "[0 0 288 432]", "[0 0 288 432]"}, boxes); diff != "" {
		t.Errorf("MediaBoxes (-want +got):\n%s", diff)
	}
	if n := bytes.Count(out.Bytes(), []byte("/BaseFont /Courier")); n != 2 {
		t.Errorf("%d fonts copied out of the object streams, want 2", n)
	}
	if bytes.Contains(out.Bytes(), []byte("/ObjStm")) || bytes.Contains(out.Bytes(), []byte("/XRef")) {
		t.Error("an object or cross-reference stream was copied")
	}
}

// Damaged documents (every truncation, bytes overwritten) are refused or
// merged, never a panic: the merger runs inside a response being streamed.
func TestMergePDFSurvivesDamage(t *testing.T) {
	t.Parallel()
	for _, doc := range [][]byte{buildPDF15("BT (x) Tj ET"), pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", pdftest.Stream("BT (x) Tj ET")}, nil)} {
		for cut := range len(doc) {
			m := NewMerger(io.Discard, NewBudget(0, Limits{}))
			_ = m.Add(t.Context(), doc[:cut])
			damaged := bytes.Clone(doc)
			damaged[cut] ^= 0x5a
			_ = m.Add(t.Context(), damaged)
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
