package pdfmerge

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"sort"
	"strings"
)

// The documents the tests read: well-formed PDF 1.5 files (cross-reference
// stream, object streams) that hostile tests then bend one entry at a time,
// so that each seed is damaged exactly where it says.

// objStm is one object stream of a pdf15: the objects it holds, in order.
type objStm struct {
	members []int
	// first replaces the /First entry ("" is the right value).
	first string
	// inflated, when set, is appended after the members' bodies before
	// deflating: the padding a decompression bomb is made of.
	inflated int
	// deflated, when set, is the stream's data as is (a bomb made once and
	// used by every stream of a document), and members[0] is its
	// index-th object.
	deflated []byte
	index    int
	// length replaces the /Length entry ("" is the right value).
	length string
	// content, when set, is what the stream inflates to, instead of its
	// members' header and bodies; n replaces /N ("" is the members').
	content []byte
	n       string
}

// xrefOpts bends the cross-reference stream.
type xrefOpts struct {
	w           string // replaces "/W [1 4 2]" in the dictionary (the rows keep 1 4 2)
	decodeParms string // replaces "/DecodeParms << /Predictor 12 /Columns 7 >>"
	extra       string // more dictionary entries
	// table, when set, is what the stream inflates to instead of the
	// document's rows.
	table []byte
}

// pdf15 is a PDF 1.5 document: plain objects, object streams and a
// cross-reference stream, in which inStm holds the bodies of the objects
// that live in object streams.
type pdf15 struct {
	plain map[int]string
	inStm map[int]string
	stms  map[int]objStm
	xref  xrefOpts
}

// bytes writes the document: the plain objects and the object streams in
// number order, then the cross-reference stream (deflated, PNG Up
// predictor, W [1 4 2]) as the last object.
func (p pdf15) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	type entry struct{ kind, field2, field3 int }
	entries := map[int]entry{}
	var nums []int
	for n := range p.plain {
		nums = append(nums, n)
	}
	for n := range p.stms {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		entries[n] = entry{1, b.Len(), 0}
		if body, ok := p.plain[n]; ok {
			fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
			continue
		}
		s := p.stms[n]
		var header, body bytes.Buffer
		for i, m := range s.members {
			entries[m] = entry{2, n, s.index + i}
			fmt.Fprintf(&header, "%d %d ", m, body.Len())
			body.WriteString(p.inStm[m] + "\n")
		}
		first := s.first
		if first == "" {
			first = fmt.Sprint(header.Len())
		}
		data := s.deflated
		if data == nil {
			plain := append(header.Bytes(), body.Bytes()...)
			if s.content != nil {
				plain = s.content
			}
			data = deflateWithPadding(plain, s.inflated-len(plain))
		}
		count := fmt.Sprint(len(s.members))
		if s.deflated != nil {
			count = fmt.Sprint(s.index + len(s.members))
		}
		if s.n != "" {
			count = s.n
		}
		length := s.length
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
	if p.xref.table != nil {
		table = p.xref.table
	}
	xs := deflateWithPadding(table, 0)
	w, parms := "/W [1 4 2]", "/DecodeParms << /Predictor 12 /Columns 7 >>"
	if p.xref.w != "" {
		w = p.xref.w
	}
	if p.xref.decodeParms != "" {
		parms = p.xref.decodeParms
	}
	at := b.Len()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d %s /Root 1 0 R /Filter /FlateDecode %s %s /Length %d >>\nstream\n", xrefNum, size, w, parms, p.xref.extra, len(xs))
	b.Write(xs)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
	return b.Bytes()
}

// deflateWithPadding deflates data followed by padding spaces (none when
// padding <= 0), writing the padding in chunks: a bomb is built without
// holding what it inflates to. Without padding the data is stored
// uncompressed in zlib's format, which inflates the same and costs no
// compressor (the fuzz targets build a document per input).
func deflateWithPadding(data []byte, padding int) []byte {
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

// labelPDF15 is a one-page label whose catalog, page tree, page and font
// are in object stream 10 and whose content (5) is a plain object.
func labelPDF15(content string) pdf15 {
	return pdf15{
		plain: map[int]string{5: stream(content)},
		inStm: map[int]string{
			1: "<< /Type /Catalog /Pages 2 0 R >>",
			2: "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 288 432] >>",
			3: "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
			4: "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
		},
		stms: map[int]objStm{10: {members: []int{1, 2, 3, 4}}},
	}
}

// objectStreamBomb is the label: a page whose resources name
// graphics states each in an object stream of its own, every object stream
// inflating to inflated bytes (the same deflated data reused, so the
// document is small: 16 streams of 64 MiB are about a megabyte). The
// document is valid PDF: a reader that validates before it inflates (as
// pdfcpu does) still has to inflate.
func objectStreamBomb(streams, inflated int) []byte {
	p := labelPDF15("BT (bomb) Tj ET")
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
	blob := deflateWithPadding([]byte(plain), inflated-len(plain))
	for i := range streams {
		obj, stm := 20+i, 100+i
		fmt.Fprintf(&names, " /G%d %d 0 R", i, obj)
		p.inStm[obj] = gs
		p.stms[stm] = objStm{members: []int{obj}, deflated: blob, index: i, first: fmt.Sprint(first)}
	}
	p.inStm[3] = "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> /ExtGState <<" + names.String() + " >> >> >>"
	return p.bytes()
}
