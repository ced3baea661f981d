// Package pdftest builds the PDFs that tests of label documents read:
// well-formed labels (classic, and PDF 1.5 with object streams), the
// issue's damaged documents (Seeds) and decompression bombs, each a
// readable label bent in one place. It is for tests only, like httptest.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"sort"
	"strings"
)

// Classic writes a classic PDF of the given objects (numbered from 1), with
// a correct cross-reference table; update, when given, is appended as an
// incremental update replacing objects (its table points back with /Prev).
func Classic(objects []string, update map[int]string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	for num, o := range update {
		at := b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", num, o)
		x := b.Len()
		fmt.Fprintf(&b, "xref\n%d 1\n%010d 00000 n \ntrailer\n<< /Size %d /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", num, at, len(objects)+1, xref, x)
	}
	return b.Bytes()
}

// Stream is a stream object's text: a dictionary with its /Length, and
// content.
func Stream(content string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// ObjStm is one object stream of a PDF15: the objects it holds, in order.
type ObjStm struct {
	Members []int
	// First replaces the /First entry ("" is the right value).
	First string
	// Inflated, when set, is the size to pad the stream to, appended after the members' bodies before
	// deflating: the padding a decompression bomb is made of.
	Inflated int
	// Deflated, when set, is the stream's data as is (a bomb made once and
	// used by every stream of a document), and Members[0] is its
	// Index-th object.
	Deflated []byte
	Index    int
	// Length replaces the /Length entry ("" is the right value).
	Length string
	// Content, when set, is what the stream inflates to, instead of its
	// members' header and bodies; N replaces /N ("" is the members').
	Content []byte
	N       string
}

// XrefOpts bends the cross-reference stream.
type XrefOpts struct {
	W           string // replaces "/W [1 4 2]" in the dictionary (the rows keep 1 4 2)
	DecodeParms string // replaces "/DecodeParms << /Predictor 12 /Columns 7 >>"
	Extra       string // more dictionary entries
	// Table, when set, is what the stream inflates to instead of the
	// document's rows.
	Table []byte
}

// PDF15 is a PDF 1.5 document: plain objects, object streams and a
// cross-reference stream, in which InStm holds the bodies of the objects
// that live in object streams.
type PDF15 struct {
	Plain map[int]string
	InStm map[int]string
	Stms  map[int]ObjStm
	Xref  XrefOpts
}

// Bytes writes the document: the plain objects and the object streams in
// number order, then the cross-reference stream (deflated, PNG Up
// predictor, W [1 4 2]) as the last object.
func (p PDF15) Bytes() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	type entry struct{ kind, field2, field3 int }
	entries := map[int]entry{}
	var nums []int
	for n := range p.Plain {
		nums = append(nums, n)
	}
	for n := range p.Stms {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		entries[n] = entry{1, b.Len(), 0}
		if body, ok := p.Plain[n]; ok {
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
			continue
		}
		s := p.Stms[n]
		var header, body bytes.Buffer
		for i, m := range s.Members {
			entries[m] = entry{2, n, s.Index + i}
			fmt.Fprintf(&header, "%d %d ", m, body.Len())
			body.WriteString(p.InStm[m] + "\n")
		}
		first := s.First
		if first == "" {
			first = fmt.Sprint(header.Len())
		}
		data := s.Deflated
		if data == nil {
			plain := append(header.Bytes(), body.Bytes()...)
			if s.Content != nil {
				plain = s.Content
			}
			data = Deflate(plain, s.Inflated-len(plain))
		}
		count := fmt.Sprint(len(s.Members))
		if s.Deflated != nil {
			count = fmt.Sprint(s.Index + len(s.Members))
		}
		if s.N != "" {
			count = s.N
		}
		length := s.Length
		if length == "" {
			length = fmt.Sprint(len(data))
		}
		fmt.Fprintf(&b, "%d 0 obj\n<< /Type /ObjStm /N %s /First %s /Filter /FlateDecode /Length %s >>\nstream\n", n, count, first, length)
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	size := 1
	for n := range entries {
		size = max(size, n+1)
	}
	xrefNum := size
	entries[xrefNum] = entry{1, b.Len(), 0}
	size++
	const cols = 7
	var table []byte
	prev := make([]byte, cols)
	for n := range size {
		e, ok := entries[n]
		row := make([]byte, cols)
		if ok {
			row[0] = byte(e.kind)
			binary.BigEndian.PutUint32(row[1:5], uint32(e.field2))
			binary.BigEndian.PutUint16(row[5:7], uint16(e.field3))
		}
		table = append(table, 2) // PNG Up
		for i := range row {
			table = append(table, row[i]-prev[i])
		}
		prev = row
	}
	if p.Xref.Table != nil {
		table = p.Xref.Table
	}
	xs := Deflate(table, 0)
	w, parms := "/W [1 4 2]", "/DecodeParms << /Predictor 12 /Columns 7 >>"
	if p.Xref.W != "" {
		w = p.Xref.W
	}
	if p.Xref.DecodeParms != "" {
		parms = p.Xref.DecodeParms
	}
	at := b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d %s /Root 1 0 R /Filter /FlateDecode %s %s /Length %d >>\nstream\n", xrefNum, size, w, parms, p.Xref.Extra, len(xs))
	b.Write(xs)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
	return b.Bytes()
}

// Deflate deflates data followed by padding spaces (none when
// padding <= 0), writing the padding in chunks: a bomb is built without
// holding what it inflates to. Without padding the data is stored
// uncompressed in zlib's format, which inflates the same and costs no
// compressor (the fuzz targets build a document per input).
func Deflate(data []byte, padding int) []byte {
	if padding <= 0 {
		return zlibStored(data)
	}
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	_, _ = zw.Write(data)
	chunk := bytes.Repeat([]byte{' '}, 64<<10)
	for padding > 0 {
		n := min(padding, len(chunk))
		_, _ = zw.Write(chunk[:n])
		padding -= n
	}
	_ = zw.Close()
	return out.Bytes()
}

// zlibStored is data as a zlib stream of stored (uncompressed) deflate
// blocks (RFC 1950, RFC 1951 3.2.4).
func zlibStored(data []byte) []byte {
	sum := adler32.Checksum(data)
	out := []byte{0x78, 0x01}
	for {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		out = append(out, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		out = append(out, data[:n]...)
		data = data[n:]
		if final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(out, sum)
}

// Label15 is a one-page label whose catalog, page tree, page and font
// are in object stream 10 and whose content (5) is a plain object.
func Label15(content string) PDF15 {
	return PDF15{
		Plain: map[int]string{5: Stream(content)},
		InStm: map[int]string{
			1: "<< /Type /Catalog /Pages 2 0 R >>",
			2: "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 288 432] >>",
			3: "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
			4: "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
		},
		Stms: map[int]ObjStm{10: {Members: []int{1, 2, 3, 4}}},
	}
}

// ObjectStreamBomb is the label: a page whose resources name
// graphics states each in an object stream of its own, every object stream
// inflating to inflated bytes (the same deflated data reused, so the
// document is small: 16 streams of 64 MiB are about a megabyte). The
// document is valid PDF: a reader that validates before it inflates (as
// pdfcpu does) still has to inflate.
func ObjectStreamBomb(streams, inflated int) []byte {
	p := Label15("BT (bomb) Tj ET")
	var names strings.Builder
	// Every stream holds the same data, so that one deflated blob serves
	// them all: a header naming all the objects, each at offset 0 of one
	// graphics state, then the padding. Object 20+i is the i-th of stream
	// 100+i.
	var header strings.Builder
	for i := range streams {
		fmt.Fprintf(&header, "%d 0 ", 20+i)
	}
	first := header.Len()
	const gs = "<< /Type /ExtGState /CA 1 >>"
	plain := header.String() + gs + "\n"
	blob := Deflate([]byte(plain), inflated-len(plain))
	for i := range streams {
		obj, stm := 20+i, 100+i
		fmt.Fprintf(&names, " /G%d %d 0 R", i, obj)
		p.InStm[obj] = gs
		p.Stms[stm] = ObjStm{Members: []int{obj}, Deflated: blob, Index: i, First: fmt.Sprint(first)}
	}
	p.InStm[3] = "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> /ExtGState <<" + names.String() + " >> >> >>"
	return p.Bytes()
}

// Seed is a damaged document; Refused says it must be refused
// (ErrUnmergeable), else it may also be read (a reader repairs what it
// can), but never panic.
type Seed struct {
	Name    string
	Doc     []byte
	Refused bool
}

// Seeds are the damaged documents, each a readable label
// bent in one place, and more of the same kind found reading the parser;
// the first four are the issue's, which panicked the merger.
func Seeds() []Seed {
	bent := func(bend func(p *PDF15)) []byte {
		p := Label15("BT (x) Tj ET")
		bend(&p)
		return p.Bytes()
	}
	classic := func(content string) []byte {
		return Classic([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>", content}, nil)
	}
	label := classic(Stream("BT (x) Tj ET"))
	return []Seed{
		// The four: each panicked the merger.
		{"xref stream W [-5 10 1]", bent(func(p *PDF15) { p.Xref.W = "/W [-5 10 1]" }), true},
		{"trailer XRefStm -1", bytes.Replace(label, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /XRefStm -1"), 1), true},
		{"object stream First -100000", bent(func(p *PDF15) {
			s := p.Stms[10]
			s.First = "-100000"
			p.Stms[10] = s
		}), true},
		{"DecodeParms Columns 9e18", bent(func(p *PDF15) {
			p.Xref.DecodeParms = "/DecodeParms << /Predictor 12 /Columns 9000000000000000000 >>"
		}), true},
		// Numbers that overflow an offset, a size or a sum of them.
		{"stream Length 2^63-1", classic("<< /Length 9223372036854775807 >>\nstream\nBT (x) Tj ET\nendstream"), false},
		{"xref stream W [1 8 8]", bent(func(p *PDF15) { p.Xref.W = "/W [1 8 8]" }), true},
		{"xref stream W [0 0 0]", bent(func(p *PDF15) { p.Xref.W = "/W [0 0 0]" }), true},
		{"xref stream Index past MaxInt", bent(func(p *PDF15) { p.Xref.Extra = "/Index [9223372036854775800 100]" }), true},
		{"DecodeParms Colors 2^40", bent(func(p *PDF15) {
			p.Xref.DecodeParms = "/DecodeParms << /Predictor 12 /Columns 7 /Colors 1099511627776 >>"
		}), true},
		{"object stream First 2^63-1", bent(func(p *PDF15) {
			s := p.Stms[10]
			s.First = "9223372036854775807"
			p.Stms[10] = s
		}), true},
		{"classic xref subsection at MaxInt", bytes.Replace(label, []byte("xref\n0 5\n"), []byte("xref\n9223372036854775807 5\n"), 1), true},
		// An object stream whose /Length is an object inside itself: reading
		// it needs it read.
		{"object stream Length in itself", bent(func(p *PDF15) {
			p.InStm[6] = "99"
			s := p.Stms[10]
			s.Members, s.Length = append(s.Members, 6), "6 0 R"
			p.Stms[10] = s
		}), false},
		// A page tree that is a cycle, and one that lists a page twice.
		{"page tree cycle", Classic([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2 >>"}, nil), true},
		{"page listed twice", Classic([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>", Stream("BT (x) Tj ET")}, nil), true},
		// A PNG row filter that does not exist.
		{"PNG filter 9", bent(func(p *PDF15) {
			p.Xref.DecodeParms = "/DecodeParms << /Predictor 12 /Columns 6 >>"
		}), true},
	}
}
