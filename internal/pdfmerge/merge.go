package pdfmerge

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
)

// prepared is a document read and checked whole: its pages, and every
// object they reach in the order to write them. Nothing of it is written
// yet, so a document that fails half-way leaves nothing behind.
type prepared struct {
	d     *document
	pages []pdfRef
	dicts []*pdfDict
	order []int // the objects the pages reach, page tree and catalog cut
	cut   map[int]bool
}

// prepare reads doc within m's limits: its cross-reference sections, its
// page tree, then every object its pages reach. It is the whole reading a
// merge does, and what Check runs.
func prepare(doc []byte, m *meter) (*prepared, error) {
	d, err := parse(doc, m)
	if err != nil {
		return nil, err
	}
	pages, dicts, err := d.pages()
	if err != nil {
		return nil, err
	}
	p := &prepared{d: d, pages: pages, dicts: dicts, cut: map[int]bool{}}
	return p, p.reach()
}

// reach reads every object the pages reach, in the order they are met;
// references to the input's page tree and catalog (an annotation's /P to
// another page, a /Dest) become null. It walks with a stack of its own, not
// the Go stack: a chain of references is as long as the document makes it.
func (p *prepared) reach() error {
	reached := map[int]bool{}
	for _, r := range p.pages {
		reached[r.num] = true // written as pages
	}
	stack := make([]any, 0, len(p.dicts))
	for i := len(p.dicts) - 1; i >= 0; i-- {
		stack = append(stack, p.dicts[i])
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := v.(type) {
		case *pdfDict:
			for i := len(x.vals) - 1; i >= 0; i-- {
				stack = append(stack, x.vals[i])
			}
		case pdfArray:
			for i := len(x) - 1; i >= 0; i-- {
				stack = append(stack, x[i])
			}
		case *pdfStream:
			stack = append(stack, x.dict)
		case pdfRef:
			if reached[x.num] || p.cut[x.num] {
				continue
			}
			o, err := p.d.object(x.num)
			if err != nil {
				return err
			}
			if dict, ok := o.(*pdfDict); ok {
				if t, ok := dict.get("/Type").(pdfRaw); ok && (string(t) == "/Pages" || string(t) == "/Page" || string(t) == "/Catalog") {
					p.cut[x.num] = true
					continue
				}
			}
			if len(p.order) >= maxObjects {
				return unmergeable("%w: its pages reach more than %d objects", ErrTooLarge, maxObjects)
			}
			if err := p.d.m.charge(entryCost, "an object reached"); err != nil {
				return err
			}
			reached[x.num] = true
			p.order = append(p.order, x.num)
			stack = append(stack, o)
		}
	}
	return nil
}

// readGuarded is prepare within the budget, with a last resort: the reader
// refuses bad input with errors (FuzzMerge runs prepare itself, unguarded,
// so that a panic is found, not hidden), but one left in it would cut a
// download short or, at purchase, fail the job after the carrier sold the
// label; here it refuses that document instead.
func (b *Budget) readGuarded(ctx context.Context, doc []byte, use func(*prepared) error) error {
	return b.read(ctx, doc, func(m *meter) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = unmergeable("the reader failed on it (%v)", r)
			}
		}()
		p, err := prepare(doc, m)
		if err != nil {
			return err
		}
		return use(p)
	})
}

// Check reads doc as a Merger would, writing nothing: nil when it can be
// merged, ErrUnmergeable (ErrTooLarge past a limit) when not, or the
// context's error while waiting for the budget.
func (b *Budget) Check(ctx context.Context, doc []byte) error {
	return b.readGuarded(ctx, doc, func(*prepared) error { return nil })
}

// Merger writes the merged document. Object 1 is the catalog and 2 the
// page tree, both written last. Its memory is the output's offsets and
// page numbers (a few bytes per object) and, while Add reads a document,
// what the Budget lets that reading hold.
type Merger struct {
	w       *bufio.Writer
	budget  *Budget
	n       int64 // bytes written
	offsets []int64
	kids    []int
	font    int // the placeholder pages' font, once written
	err     error
}

// NewMerger starts a merged document on w, reading each document within
// budget (which must not be nil; one Budget is shared by every Merger of a
// process).
func NewMerger(w io.Writer, budget *Budget) *Merger {
	m := &Merger{w: bufio.NewWriterSize(w, 64<<10), budget: budget, offsets: []int64{0, 0}}
	m.write([]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"))
	return m
}

func (m *Merger) write(b []byte) {
	if m.err != nil {
		return
	}
	n, err := m.w.Write(b)
	m.n += int64(n)
	m.err = err
}

func (m *Merger) writeString(s string) { m.write([]byte(s)) }

// alloc reserves the next object number.
func (m *Merger) alloc() int {
	m.offsets = append(m.offsets, 0)
	return len(m.offsets)
}

func (m *Merger) begin(num int) {
	m.offsets[num-1] = m.n
	m.writeString(strconv.Itoa(num) + " 0 obj\n")
}

// Add appends every page of doc. ErrUnmergeable (nothing written) when it
// is not a document this reads; the context's error when it ended while
// waiting for the budget; a write error otherwise.
func (m *Merger) Add(ctx context.Context, doc []byte) error {
	err := m.budget.readGuarded(ctx, doc, func(p *prepared) error {
		m.writeDocument(p)
		return nil
	})
	if err != nil {
		return err
	}
	return m.err
}

// writeDocument writes a prepared document's pages and objects,
// renumbered.
func (m *Merger) writeDocument(p *prepared) {
	mapped := make(map[int]int, len(p.pages)+len(p.order))
	for _, r := range p.pages {
		mapped[r.num] = m.alloc()
	}
	for _, num := range p.order {
		mapped[num] = m.alloc()
	}
	var b bytes.Buffer
	for i, r := range p.pages {
		num := mapped[r.num]
		m.kids = append(m.kids, num)
		m.begin(num)
		b.Reset()
		writeValue(&b, p.dicts[i], mapped)
		b.Truncate(b.Len() - 2) // reopen the dict to add /Parent
		b.WriteString("/Parent 2 0 R>>\nendobj\n")
		m.write(b.Bytes())
	}
	for _, old := range p.order {
		v, _ := p.d.object(old) // read by reach: cached
		num := mapped[old]
		b.Reset()
		if s, ok := v.(*pdfStream); ok {
			dict := &pdfDict{}
			for i, k := range s.dict.keys {
				if k != "/Length" {
					dict.keys, dict.vals = append(dict.keys, k), append(dict.vals, s.dict.vals[i])
				}
			}
			dict.keys, dict.vals = append(dict.keys, "/Length"), append(dict.vals, pdfRaw(strconv.Itoa(len(s.data))))
			writeValue(&b, dict, mapped)
			b.WriteString("\nstream\n")
			m.begin(num)
			m.write(b.Bytes())
			m.write(s.data)
			m.writeString("\nendstream\nendobj\n")
			continue
		}
		writeValue(&b, v, mapped)
		m.begin(num)
		m.write(b.Bytes())
		m.writeString("\nendobj\n")
	}
}

// Placeholder appends a page saying text, for a document that could not be merged.
func (m *Merger) Placeholder(text string) {
	if m.font == 0 {
		m.font = m.alloc()
		m.begin(m.font)
		m.writeString("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>\nendobj\n")
	}
	var esc bytes.Buffer
	for _, r := range text {
		if r > 126 || r < 32 {
			r = '?'
		}
		if r == '(' || r == ')' || r == '\\' {
			esc.WriteByte('\\')
		}
		esc.WriteRune(r)
	}
	content := "BT /F1 9 Tf 18 400 Td (" + esc.String() + ") Tj ET"
	cnum := m.alloc()
	m.begin(cnum)
	m.writeString(fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream\nendobj\n", len(content), content))
	page := m.alloc()
	m.kids = append(m.kids, page)
	m.begin(page)
	m.writeString(fmt.Sprintf("<</Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Resources <</Font <</F1 %d 0 R>>>> /Contents %d 0 R>>\nendobj\n", m.font, cnum))
}

// Close writes the page tree, the catalog, the cross-reference table and the trailer.
func (m *Merger) Close() error {
	m.begin(2)
	m.writeString("<</Type /Pages /Count " + strconv.Itoa(len(m.kids)) + " /Kids [")
	for i, k := range m.kids {
		if i > 0 {
			m.writeString(" ")
		}
		m.writeString(strconv.Itoa(k) + " 0 R")
	}
	m.writeString("]>>\nendobj\n")
	m.begin(1)
	m.writeString("<</Type /Catalog /Pages 2 0 R>>\nendobj\n")
	xref := m.n
	m.writeString("xref\n0 " + strconv.Itoa(len(m.offsets)+1) + "\n0000000000 65535 f \n")
	for _, o := range m.offsets {
		if o == 0 { // reserved for a document that then could not be merged
			m.writeString("0000000000 00001 f \n")
			continue
		}
		m.writeString(fmt.Sprintf("%010d 00000 n \n", o))
	}
	m.writeString(fmt.Sprintf("trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(m.offsets)+1, xref))
	if m.err != nil {
		return m.err
	}
	return m.w.Flush()
}

// writeValue writes v with references renumbered by mapped; a reference to
// an object not copied (the input's page tree, catalog) becomes null.
func writeValue(b *bytes.Buffer, v any, mapped map[int]int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *pdfDict:
		b.WriteString("<<")
		for i, k := range x.keys {
			b.WriteString(k)
			b.WriteByte(' ')
			writeValue(b, x.vals[i], mapped)
			b.WriteByte(' ')
		}
		b.WriteString(">>")
	case pdfArray:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeValue(b, e, mapped)
		}
		b.WriteByte(']')
	case pdfRef:
		if n, ok := mapped[x.num]; ok {
			b.WriteString(strconv.Itoa(n) + " 0 R")
		} else {
			b.WriteString("null")
		}
	case pdfRaw:
		b.Write(x)
	case *pdfStream:
		b.WriteString("null") // a stream is always indirect
	}
}
