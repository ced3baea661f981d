package pdfmerge

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrUnmergeable: the document's structure is one the merger does not read.
var ErrUnmergeable = errors.New("the PDF's structure cannot be merged")

type pdfDict struct {
	keys []string // with the leading slash, as written
	vals []any
}

func (d *pdfDict) get(key string) any {
	for i, k := range d.keys {
		if k == key {
			return d.vals[i]
		}
	}
	return nil
}

type (
	pdfArray  []any
	pdfRef    struct{ num, gen int }
	pdfRaw    []byte // a name, number, string, boolean or null, as written
	pdfStream struct {
		dict *pdfDict
		data []byte
	}
)

// pdfDoc is one parsed input.
type pdfDoc struct {
	data    []byte
	xref    map[int]int    // object number → offset (-1: free)
	inStm   map[int][2]int // object number → its object stream and index (PDF 1.5)
	trailer *pdfDict
	cache   map[int]any
	stms    map[int][]byte // decoded object streams
}

func parsePDF(data []byte) (*pdfDoc, error) {
	d := &pdfDoc{data: data, xref: map[int]int{}, inStm: map[int][2]int{}, cache: map[int]any{}, stms: map[int][]byte{}}
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 {
		return nil, ErrUnmergeable
	}
	p := &pdfLexer{b: data, pos: i + len("startxref")}
	tok := p.token()
	off, err := strconv.Atoi(string(tok))
	if err != nil {
		return nil, ErrUnmergeable
	}
	for seen := 0; off >= 0 && seen < 64; seen++ {
		trailer, err := d.readXref(off)
		if err != nil {
			return nil, err
		}
		if d.trailer == nil {
			d.trailer = trailer
		}
		// A hybrid file's classic table names a cross-reference stream too.
		if stm, ok := trailer.get("/XRefStm").(pdfRaw); ok {
			if n, err := strconv.Atoi(string(stm)); err == nil {
				if _, err := d.readXrefStream(n); err != nil {
					return nil, err
				}
			}
		}
		off = -1
		if prev, ok := trailer.get("/Prev").(pdfRaw); ok {
			if off, err = strconv.Atoi(string(prev)); err != nil {
				return nil, ErrUnmergeable
			}
		}
	}
	if d.trailer == nil || d.trailer.get("/Encrypt") != nil {
		return nil, ErrUnmergeable
	}
	return d, nil
}

// readXref reads one classic cross-reference section and its trailer;
// entries already known (from a newer section) win.
func (d *pdfDoc) readXref(off int) (*pdfDict, error) {
	if off < 0 || off >= len(d.data) {
		return nil, ErrUnmergeable
	}
	p := &pdfLexer{b: d.data, pos: off}
	if string(p.token()) != "xref" {
		return d.readXrefStream(off) // PDF 1.5
	}
	for {
		save := p.pos
		tok := p.token()
		if string(tok) == "trailer" {
			break
		}
		start, err1 := strconv.Atoi(string(tok))
		count, err2 := strconv.Atoi(string(p.token()))
		if err1 != nil || err2 != nil || count < 0 || count > len(d.data) {
			_ = save
			return nil, ErrUnmergeable
		}
		for n := range count {
			o, err1 := strconv.Atoi(string(p.token()))
			_ = p.token() // generation
			kind := string(p.token())
			if err1 != nil || (kind != "n" && kind != "f") {
				return nil, ErrUnmergeable
			}
			if _, known := d.xref[start+n]; !known && kind == "n" {
				d.xref[start+n] = o
			} else if !known {
				d.xref[start+n] = -1
			}
		}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	t, ok := v.(*pdfDict)
	if !ok {
		return nil, ErrUnmergeable
	}
	return t, nil
}

// object reads an indirect object (nil for a free or missing one, as PDF says).
func (d *pdfDoc) object(num int) (any, error) {
	if v, ok := d.cache[num]; ok {
		return v, nil
	}
	if at, ok := d.inStm[num]; ok {
		if _, known := d.xref[num]; !known {
			d.cache[num] = nil
			v, err := d.fromObjectStream(at[0], at[1])
			if err != nil {
				return nil, err
			}
			d.cache[num] = v
			return v, nil
		}
	}
	off, ok := d.xref[num]
	if !ok || off < 0 {
		return nil, nil
	}
	if off >= len(d.data) {
		return nil, ErrUnmergeable
	}
	d.cache[num] = nil // a reference cycle through /Length reads nil
	p := &pdfLexer{b: d.data, pos: off}
	p.token()
	p.token()
	if string(p.token()) != "obj" {
		return nil, ErrUnmergeable
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if dict, ok := v.(*pdfDict); ok {
		save := p.pos
		if string(p.token()) == "stream" {
			if v, err = d.stream(p, dict); err != nil {
				return nil, err
			}
		} else {
			p.pos = save
		}
	}
	d.cache[num] = v
	return v, nil
}

// stream reads a stream's data after its keyword: /Length bytes when they
// end at endstream, else up to the keyword (a wrong /Length is common).
func (d *pdfDoc) stream(p *pdfLexer, dict *pdfDict) (any, error) {
	start := p.pos
	if start < len(d.data) && d.data[start] == '\r' {
		start++
	}
	if start < len(d.data) && d.data[start] == '\n' {
		start++
	}
	n := -1
	switch l := dict.get("/Length").(type) {
	case pdfRaw:
		n, _ = strconv.Atoi(string(l))
	case pdfRef:
		v, err := d.object(l.num)
		if err != nil {
			return nil, err
		}
		if raw, ok := v.(pdfRaw); ok {
			n, _ = strconv.Atoi(string(raw))
		}
	}
	if n >= 0 && start+n <= len(d.data) {
		rest := bytes.TrimLeft(d.data[start+n:min(len(d.data), start+n+32)], "\r\n \t")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			return &pdfStream{dict: dict, data: d.data[start : start+n]}, nil
		}
	}
	end := bytes.Index(d.data[start:], []byte("endstream"))
	if end < 0 {
		return nil, ErrUnmergeable
	}
	data := bytes.TrimRight(d.data[start:start+end], "\r\n")
	return &pdfStream{dict: dict, data: data}, nil
}

// readXrefStream reads a cross-reference stream (PDF 1.5) at off; its
// dictionary is the trailer. Entries already known win, as in readXref.
func (d *pdfDoc) readXrefStream(off int) (*pdfDict, error) {
	p := &pdfLexer{b: d.data, pos: off}
	p.token()
	p.token()
	if string(p.token()) != "obj" {
		return nil, ErrUnmergeable
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	dict, ok := v.(*pdfDict)
	if !ok || string(p.token()) != "stream" {
		return nil, ErrUnmergeable
	}
	sv, err := d.stream(p, dict)
	if err != nil {
		return nil, err
	}
	raw, err := decodeStream(sv.(*pdfStream))
	if err != nil {
		return nil, err
	}
	w, ok := ints(dict.get("/W"))
	if !ok || len(w) != 3 {
		return nil, ErrUnmergeable
	}
	size, _ := ints(pdfArray{dict.get("/Size")})
	index, ok := ints(dict.get("/Index"))
	if !ok {
		if len(size) != 1 {
			return nil, ErrUnmergeable
		}
		index = []int{0, size[0]}
	}
	row := w[0] + w[1] + w[2]
	if row <= 0 || len(index)%2 != 0 {
		return nil, ErrUnmergeable
	}
	field := func(b []byte) int {
		n := 0
		for _, c := range b {
			n = n<<8 | int(c)
		}
		return n
	}
	at := 0
	for i := 0; i < len(index); i += 2 {
		for n := range index[i+1] {
			if at+row > len(raw) {
				return nil, ErrUnmergeable
			}
			e := raw[at : at+row]
			at += row
			kind := 1
			if w[0] > 0 {
				kind = field(e[:w[0]])
			}
			num := index[i] + n
			if _, known := d.xref[num]; known {
				continue
			}
			if _, known := d.inStm[num]; known {
				continue
			}
			switch kind {
			case 0:
				d.xref[num] = -1
			case 1:
				d.xref[num] = field(e[w[0] : w[0]+w[1]])
			case 2:
				d.inStm[num] = [2]int{field(e[w[0] : w[0]+w[1]]), field(e[w[0]+w[1]:])}
			}
		}
	}
	return dict, nil
}

// fromObjectStream reads the index-th object of object stream stm.
func (d *pdfDoc) fromObjectStream(stm, index int) (any, error) {
	data, ok := d.stms[stm]
	if !ok {
		v, err := d.object(stm)
		if err != nil {
			return nil, err
		}
		s, isStream := v.(*pdfStream)
		if !isStream {
			return nil, ErrUnmergeable
		}
		if data, err = decodeStream(s); err != nil {
			return nil, err
		}
		d.stms[stm] = data
	}
	v, _ := d.object(stm)
	n, _ := ints(pdfArray{v.(*pdfStream).dict.get("/N"), v.(*pdfStream).dict.get("/First")})
	if len(n) != 2 || index >= n[0] {
		return nil, ErrUnmergeable
	}
	p := &pdfLexer{b: data}
	off := -1
	for i := 0; i <= index; i++ {
		p.token()
		o, err := strconv.Atoi(string(p.token()))
		if err != nil {
			return nil, ErrUnmergeable
		}
		off = o
	}
	if n[1]+off >= len(data) {
		return nil, ErrUnmergeable
	}
	p.pos = n[1] + off
	return p.value()
}

// decodeStream undoes a stream's FlateDecode and PNG predictor, all that
// cross-reference and object streams use.
func decodeStream(s *pdfStream) ([]byte, error) {
	filter := s.dict.get("/Filter")
	if arr, ok := filter.(pdfArray); ok && len(arr) == 1 {
		filter = arr[0]
	}
	if filter == nil {
		return s.data, nil
	}
	if f, ok := filter.(pdfRaw); !ok || string(f) != "/FlateDecode" {
		return nil, ErrUnmergeable
	}
	zr, err := zlib.NewReader(bytes.NewReader(s.data))
	if err != nil {
		return nil, ErrUnmergeable
	}
	out, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, ErrUnmergeable
	}
	parms, _ := s.dict.get("/DecodeParms").(*pdfDict)
	if parms == nil {
		return out, nil
	}
	pc, _ := ints(pdfArray{parms.get("/Predictor"), parms.get("/Columns")})
	if len(pc) == 0 || pc[0] < 10 {
		return out, nil
	}
	cols := 1
	if len(pc) == 2 {
		cols = pc[1]
	}
	if cols <= 0 {
		return nil, ErrUnmergeable
	}
	// PNG predictors, one filter byte per row; one byte per pixel here.
	var res []byte
	prev := make([]byte, cols)
	for at := 0; at+cols+1 <= len(out); at += cols + 1 {
		kind, row := out[at], bytes.Clone(out[at+1:at+1+cols])
		for i := range row {
			var left, upLeft byte
			if i > 0 {
				left, upLeft = row[i-1], prev[i-1]
			}
			switch kind {
			case 1:
				row[i] += left
			case 2:
				row[i] += prev[i]
			case 3:
				row[i] += byte((int(left) + int(prev[i])) / 2)
			case 4:
				row[i] += paeth(left, prev[i], upLeft)
			}
		}
		res = append(res, row...)
		prev = row
	}
	return res, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ints reads an array of integers (false when any is not one).
func ints(v any) ([]int, bool) {
	arr, ok := v.(pdfArray)
	if !ok {
		return nil, false
	}
	out := make([]int, 0, len(arr))
	for _, e := range arr {
		raw, ok := e.(pdfRaw)
		if !ok {
			return nil, false
		}
		n, err := strconv.Atoi(string(raw))
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

func (d *pdfDoc) resolve(v any) (any, error) {
	if r, ok := v.(pdfRef); ok {
		return d.object(r.num)
	}
	return v, nil
}

// pageAttrs are the page attributes a page inherits from its ancestors.
var pageAttrs = []string{"/Resources", "/MediaBox", "/CropBox", "/Rotate"}

// pages lists the document's pages in order, each with its inherited attributes filled in.
func (d *pdfDoc) pages() ([]pdfRef, []*pdfDict, error) {
	root, err := d.resolve(d.trailer.get("/Root"))
	if err != nil {
		return nil, nil, err
	}
	cat, ok := root.(*pdfDict)
	if !ok {
		return nil, nil, ErrUnmergeable
	}
	top, ok := cat.get("/Pages").(pdfRef)
	if !ok {
		return nil, nil, ErrUnmergeable
	}
	var refs []pdfRef
	var dicts []*pdfDict
	var walk func(ref pdfRef, inherited map[string]any, depth int) error
	walk = func(ref pdfRef, inherited map[string]any, depth int) error {
		if depth > 32 || len(refs) > 10000 {
			return ErrUnmergeable
		}
		v, err := d.object(ref.num)
		if err != nil {
			return err
		}
		node, ok := v.(*pdfDict)
		if !ok {
			return ErrUnmergeable
		}
		here := map[string]any{}
		for k, v := range inherited {
			here[k] = v
		}
		for _, k := range pageAttrs {
			if v := node.get(k); v != nil {
				here[k] = v
			}
		}
		if kids := node.get("/Kids"); kids != nil {
			kv, err := d.resolve(kids)
			if err != nil {
				return err
			}
			arr, ok := kv.(pdfArray)
			if !ok {
				return ErrUnmergeable
			}
			for _, k := range arr {
				kr, ok := k.(pdfRef)
				if !ok {
					return ErrUnmergeable
				}
				if err := walk(kr, here, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		page := &pdfDict{}
		for i, k := range node.keys {
			if k != "/Parent" {
				page.keys, page.vals = append(page.keys, k), append(page.vals, node.vals[i])
			}
		}
		for _, k := range pageAttrs {
			if page.get(k) == nil && here[k] != nil {
				page.keys, page.vals = append(page.keys, k), append(page.vals, here[k])
			}
		}
		refs, dicts = append(refs, ref), append(dicts, page)
		return nil
	}
	if err := walk(top, nil, 0); err != nil {
		return nil, nil, err
	}
	if len(refs) == 0 {
		return nil, nil, ErrUnmergeable
	}
	return refs, dicts, nil
}

// Merger writes the merged document. Object 1 is the catalog and 2 the
// page tree, both written last.
type Merger struct {
	w       *bufio.Writer
	n       int64 // bytes written
	offsets []int64
	kids    []int
	font    int // the placeholder pages' font, once written
	err     error
}

func NewMerger(w io.Writer) *Merger {
	m := &Merger{w: bufio.NewWriterSize(w, 64<<10), offsets: []int64{0, 0}}
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

// add appends every page of the document doc; ErrUnmergeable (nothing
// written) when its structure is not one this reads.
func (m *Merger) Add(doc []byte) error {
	d, err := parsePDF(doc)
	if err != nil {
		return err
	}
	refs, dicts, err := d.pages()
	if err != nil {
		return err
	}
	c := &pdfCopy{m: m, d: d, mapped: map[int]int{}}
	for _, r := range refs {
		c.mapped[r.num] = m.alloc()
	}
	// Check every object the pages reach before writing any, so a document
	// that fails half-way leaves nothing behind.
	if err := c.reach(dicts); err != nil {
		return err
	}
	for i, r := range refs {
		num := c.mapped[r.num]
		m.kids = append(m.kids, num)
		m.begin(num)
		var b bytes.Buffer
		c.value(&b, dicts[i])
		b.Truncate(b.Len() - 2) // reopen the dict to add /Parent
		b.WriteString("/Parent 2 0 R>>\nendobj\n")
		m.write(b.Bytes())
	}
	for len(c.queue) > 0 {
		old := c.queue[0]
		c.queue = c.queue[1:]
		v, _ := d.object(old)
		var b bytes.Buffer
		num := c.mapped[old]
		if s, ok := v.(*pdfStream); ok {
			dict := &pdfDict{}
			for i, k := range s.dict.keys {
				if k != "/Length" {
					dict.keys, dict.vals = append(dict.keys, k), append(dict.vals, s.dict.vals[i])
				}
			}
			dict.keys, dict.vals = append(dict.keys, "/Length"), append(dict.vals, pdfRaw(strconv.Itoa(len(s.data))))
			c.value(&b, dict)
			b.WriteString("\nstream\n")
			m.begin(num)
			m.write(b.Bytes())
			m.write(s.data)
			m.writeString("\nendstream\nendobj\n")
			continue
		}
		c.value(&b, v)
		m.begin(num)
		m.write(b.Bytes())
		m.writeString("\nendobj\n")
	}
	return m.err
}

// placeholder appends a page saying text, for a document that could not be merged.
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

// close writes the page tree, the catalog, the cross-reference table and the trailer.
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

// pdfCopy renumbers one input's objects into the output.
type pdfCopy struct {
	m      *Merger
	d      *pdfDoc
	mapped map[int]int // input object → output object
	queue  []int       // input objects to write
	cut    map[int]bool
}

// reach reads every object the pages reach, assigning output numbers and
// queueing them; references to the input's page tree and catalog (an
// annotation's /P to another page, a /Dest) become null.
func (c *pdfCopy) reach(pages []*pdfDict) error {
	c.cut = map[int]bool{}
	var walk func(v any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case *pdfDict:
			for _, e := range x.vals {
				if err := walk(e); err != nil {
					return err
				}
			}
		case pdfArray:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case *pdfStream:
			return walk(x.dict)
		case pdfRef:
			if _, ok := c.mapped[x.num]; ok || c.cut[x.num] {
				return nil
			}
			o, err := c.d.object(x.num)
			if err != nil {
				return err
			}
			if dict, ok := o.(*pdfDict); ok {
				if t, ok := dict.get("/Type").(pdfRaw); ok && (string(t) == "/Pages" || string(t) == "/Page" || string(t) == "/Catalog") {
					c.cut[x.num] = true
					return nil
				}
			}
			if len(c.mapped) > 100000 {
				return ErrUnmergeable
			}
			c.mapped[x.num] = c.m.alloc()
			c.queue = append(c.queue, x.num)
			return walk(o)
		}
		return nil
	}
	for _, p := range pages {
		if err := walk(p); err != nil {
			return err
		}
	}
	return nil
}

func (c *pdfCopy) value(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *pdfDict:
		b.WriteString("<<")
		for i, k := range x.keys {
			b.WriteString(k)
			b.WriteByte(' ')
			c.value(b, x.vals[i])
			b.WriteByte(' ')
		}
		b.WriteString(">>")
	case pdfArray:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			c.value(b, e)
		}
		b.WriteByte(']')
	case pdfRef:
		if n, ok := c.mapped[x.num]; ok {
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

// pdfLexer reads PDF tokens and values.
type pdfLexer struct {
	b   []byte
	pos int
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	return bytes.IndexByte([]byte("()<>[]{}/%"), c) >= 0
}

func (p *pdfLexer) skip() {
	for p.pos < len(p.b) {
		c := p.b[p.pos]
		switch {
		case isPDFSpace(c):
			p.pos++
		case c == '%':
			for p.pos < len(p.b) && p.b[p.pos] != '\n' && p.b[p.pos] != '\r' {
				p.pos++
			}
		default:
			return
		}
	}
}

// token returns the next regular token (a keyword or number); delimiters
// are returned as one or two bytes.
func (p *pdfLexer) token() []byte {
	p.skip()
	start := p.pos
	if p.pos >= len(p.b) {
		return nil
	}
	c := p.b[p.pos]
	if isPDFDelim(c) {
		p.pos++
		if (c == '<' || c == '>') && p.pos < len(p.b) && p.b[p.pos] == c {
			p.pos++
		}
		return p.b[start:p.pos]
	}
	for p.pos < len(p.b) && !isPDFSpace(p.b[p.pos]) && !isPDFDelim(p.b[p.pos]) {
		p.pos++
	}
	return p.b[start:p.pos]
}

func isInt(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// value reads one direct value (a reference N G R included).
func (p *pdfLexer) value() (any, error) {
	return p.valueDepth(0)
}

func (p *pdfLexer) valueDepth(depth int) (any, error) {
	if depth > 64 {
		return nil, ErrUnmergeable
	}
	p.skip()
	if p.pos >= len(p.b) {
		return nil, ErrUnmergeable
	}
	start := p.pos
	switch c := p.b[p.pos]; {
	case c == '(':
		level := 0
		for p.pos < len(p.b) {
			switch p.b[p.pos] {
			case '\\':
				p.pos++
			case '(':
				level++
			case ')':
				level--
			}
			p.pos++
			if level == 0 {
				return pdfRaw(p.b[start:p.pos]), nil
			}
		}
		return nil, ErrUnmergeable
	case c == '/':
		p.pos++
		for p.pos < len(p.b) && !isPDFSpace(p.b[p.pos]) && !isPDFDelim(p.b[p.pos]) {
			p.pos++
		}
		return pdfRaw(p.b[start:p.pos]), nil
	case c == '[':
		p.pos++
		arr := pdfArray{}
		for {
			p.skip()
			if p.pos >= len(p.b) {
				return nil, ErrUnmergeable
			}
			if p.b[p.pos] == ']' {
				p.pos++
				return arr, nil
			}
			v, err := p.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
	case c == '<' && p.pos+1 < len(p.b) && p.b[p.pos+1] == '<':
		p.pos += 2
		d := &pdfDict{}
		for {
			p.skip()
			if p.pos+1 < len(p.b) && p.b[p.pos] == '>' && p.b[p.pos+1] == '>' {
				p.pos += 2
				return d, nil
			}
			if p.pos >= len(p.b) || p.b[p.pos] != '/' {
				return nil, ErrUnmergeable
			}
			k, _ := p.valueDepth(depth + 1)
			v, err := p.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			d.keys, d.vals = append(d.keys, string(k.(pdfRaw))), append(d.vals, v)
		}
	case c == '<':
		end := bytes.IndexByte(p.b[p.pos:], '>')
		if end < 0 {
			return nil, ErrUnmergeable
		}
		p.pos += end + 1
		return pdfRaw(p.b[start:p.pos]), nil
	case isPDFDelim(c):
		return nil, ErrUnmergeable
	}
	tok := p.token()
	if isInt(tok) {
		// N G R is a reference.
		save := p.pos
		gen := p.token()
		if isInt(gen) && string(p.token()) == "R" {
			n, err1 := strconv.Atoi(string(tok))
			g, err2 := strconv.Atoi(string(gen))
			if err1 == nil && err2 == nil {
				return pdfRef{n, g}, nil
			}
		}
		p.pos = save
	}
	return pdfRaw(tok), nil
}
