package pdfmerge

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrUnmergeable: the document is not one this package reads (encryption,
// another filter on its structure, damage, or past a limit: ErrTooLarge).
// Nothing of it has been written.
var ErrUnmergeable = errors.New("the PDF cannot be read")

func unmergeable(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnmergeable}, args...)...)
}

// Bounds of the format (PDF 32000-1, Annex C), which also keep every sum
// of numbers read from a document far from overflowing.
const (
	maxObjectNumber = 1<<23 - 1 // 8,388,607
	maxGeneration   = 65535
	// maxSections bounds the cross-reference sections followed through
	// /Prev: one per incremental update.
	maxSections = 64
	// maxObjectDepth bounds how deep reading one object may recurse: a
	// stream's indirect /Length, an object stream read for an object.
	maxObjectDepth = 8
	// maxPages bounds the pages of one document; a label has one per
	// piece.
	maxPages = 10000
	// maxObjects bounds the objects the pages of one document may reach.
	maxObjects = 100000
)

// freeObject marks a free entry of the cross-reference table; badOffset one
// whose offset is not in the document (read only if something refers to it).
const (
	freeObject = -1
	badOffset  = math.MaxInt
)

// inStream is where an object of an object stream is: the stream's number
// and the object's index in it.
type inStream struct{ stm, index int }

// objectStream is a decoded object stream: its data and the offset of each
// of its objects (after /First).
type objectStream struct {
	data    []byte
	first   int
	offsets []int
}

// document is one parsed input. Objects are read on demand, once (cache).
type document struct {
	data    []byte
	m       *meter
	xref    map[int]int // object number → offset, or freeObject
	inStm   map[int]inStream
	trailer *pdfDict
	cache   map[int]any // nil while the object is being read: a cycle reads null
	stms    map[int]*objectStream
	depth   int
}

// parse reads the document's cross-reference sections (newest first, then
// each /Prev and hybrid /XRefStm) and its trailer.
func parse(data []byte, m *meter) (*document, error) {
	d := &document{data: data, m: m, xref: map[int]int{}, inStm: map[int]inStream{}, cache: map[int]any{}, stms: map[int]*objectStream{}}
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 {
		return nil, unmergeable("no startxref")
	}
	if err := m.scan(len(data) - i); err != nil {
		return nil, err
	}
	p := &lexer{b: data, pos: i + len("startxref"), m: m}
	off, ok := p.int(len(data) - 1)
	if !ok {
		return nil, unmergeable("startxref is not an offset in the document")
	}
	seen := map[int]bool{}
	for sections := 0; off >= 0; sections++ {
		if sections >= maxSections || seen[off] {
			return nil, unmergeable("the cross-reference sections loop or pass %d", maxSections)
		}
		seen[off] = true
		trailer, err := d.readXref(off)
		if err != nil {
			return nil, err
		}
		if d.trailer == nil {
			d.trailer = trailer
		}
		// A hybrid file's classic table names a cross-reference stream too.
		if stm := trailer.get("/XRefStm"); stm != nil {
			at, ok := rawInt(stm, len(data)-1)
			if !ok {
				return nil, unmergeable("/XRefStm is not an offset in the document")
			}
			if _, err := d.readXrefStream(at); err != nil {
				return nil, err
			}
		}
		off = -1
		if prev := trailer.get("/Prev"); prev != nil {
			if off, ok = rawInt(prev, len(data)-1); !ok {
				return nil, unmergeable("/Prev is not an offset in the document")
			}
		}
	}
	if d.trailer.get("/Encrypt") != nil {
		return nil, unmergeable("it is encrypted")
	}
	return d, nil
}

// rawInt is v as a non-negative integer of at most limit.
func rawInt(v any, limit int) (int, bool) {
	raw, ok := v.(pdfRaw)
	if !ok {
		return 0, false
	}
	return atoiWithin(raw, limit)
}

// setEntry records an entry of a cross-reference section unless a newer
// section gave one for that object.
func (d *document) setEntry(num, off int) error {
	if _, known := d.xref[num]; known {
		return nil
	}
	if _, known := d.inStm[num]; known {
		return nil
	}
	if err := d.m.charge(entryCost, "a cross-reference entry"); err != nil {
		return err
	}
	d.xref[num] = off
	return nil
}

// readXref reads one classic cross-reference section and its trailer, or
// a cross-reference stream at off.
func (d *document) readXref(off int) (*pdfDict, error) {
	if off < 0 || off >= len(d.data) {
		return nil, unmergeable("a cross-reference offset is outside the document")
	}
	p := &lexer{b: d.data, pos: off, m: d.m}
	if string(p.token()) != "xref" {
		return d.readXrefStream(off) // PDF 1.5
	}
	for {
		save := p.pos
		if string(p.token()) == "trailer" {
			break
		}
		p.pos = save
		start, ok1 := p.int(maxObjectNumber)
		count, ok2 := p.int(maxObjectNumber + 1 - start)
		if !ok1 || !ok2 {
			return nil, unmergeable("a cross-reference subsection header is not two numbers within %d", maxObjectNumber)
		}
		for n := range count {
			o, err := strconv.Atoi(string(p.token()))
			_ = p.token() // generation
			kind := string(p.token())
			if err != nil || (kind != "n" && kind != "f") {
				return nil, unmergeable("a cross-reference entry is not an offset, a generation and n or f")
			}
			switch {
			case kind == "f":
				o = freeObject
			case o < 0 || o >= len(d.data):
				o = badOffset
			}
			if err := d.setEntry(start+n, o); err != nil {
				return nil, err
			}
		}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := d.m.scan(p.pos - off); err != nil {
		return nil, err
	}
	t, ok := v.(*pdfDict)
	if !ok {
		return nil, unmergeable("the trailer is not a dictionary")
	}
	return t, nil
}

// readXrefStream reads a cross-reference stream (PDF 1.5) at off; its
// dictionary is the trailer.
func (d *document) readXrefStream(off int) (*pdfDict, error) {
	if off < 0 || off >= len(d.data) {
		return nil, unmergeable("a cross-reference stream's offset is outside the document")
	}
	p := &lexer{b: d.data, pos: off, m: d.m}
	p.token()
	p.token()
	if string(p.token()) != "obj" {
		return nil, unmergeable("no cross-reference table or stream where startxref points")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	dict, ok := v.(*pdfDict)
	if !ok || string(p.token()) != "stream" {
		return nil, unmergeable("the cross-reference stream is not a stream")
	}
	s, err := d.stream(p, dict)
	if err != nil {
		return nil, err
	}
	raw, _, err := d.decode(s, "the cross-reference stream")
	if err != nil {
		return nil, err
	}
	w, ok := d.ints(dict.get("/W"))
	if !ok || len(w) != 3 {
		return nil, unmergeable("the cross-reference stream's /W is not three numbers")
	}
	row := 0
	for _, n := range w {
		// Wider fields would overflow an int; PDF's own limits fit in 4 bytes.
		if n < 0 || n > 8 {
			return nil, unmergeable("a /W field of %d bytes", n)
		}
		row += n
	}
	if row == 0 {
		return nil, unmergeable("the cross-reference stream's rows are empty")
	}
	index, ok := d.ints(dict.get("/Index"))
	if dict.get("/Index") == nil {
		size, ok := rawInt(dict.get("/Size"), maxObjectNumber+1)
		if !ok {
			return nil, unmergeable("the cross-reference stream's /Size is not a number within %d", maxObjectNumber+1)
		}
		index = []int{0, size}
	} else if !ok || len(index)%2 != 0 {
		return nil, unmergeable("the cross-reference stream's /Index is not pairs of numbers")
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
		start, count := index[i], index[i+1]
		if start < 0 || start > maxObjectNumber || count < 0 || count > maxObjectNumber+1-start {
			return nil, unmergeable("the cross-reference stream's /Index names objects past %d", maxObjectNumber)
		}
		for n := range count {
			if at+row > len(raw) {
				return nil, unmergeable("the cross-reference stream is shorter than its /Index")
			}
			e := raw[at : at+row]
			at += row
			kind := 1
			if w[0] > 0 {
				kind = field(e[:w[0]])
			}
			second, third := field(e[w[0]:w[0]+w[1]]), field(e[w[0]+w[1]:])
			num := start + n
			switch kind {
			case 0:
				err = d.setEntry(num, freeObject)
			case 1:
				if second < 0 || second >= len(d.data) {
					second = badOffset
				}
				err = d.setEntry(num, second)
			case 2:
				if second < 0 || second > maxObjectNumber || third < 0 || third > maxObjectNumber {
					return nil, unmergeable("object %d is in object stream %d at index %d, past the format's bounds", num, second, third)
				}
				if _, known := d.xref[num]; known {
					continue
				}
				if _, known := d.inStm[num]; known {
					continue
				}
				if err := d.m.charge(entryCost, "a cross-reference entry"); err != nil {
					return nil, err
				}
				d.inStm[num] = inStream{stm: second, index: third}
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return dict, nil
}

// object reads an indirect object (nil for a free or missing one, as PDF says).
func (d *document) object(num int) (any, error) {
	if v, ok := d.cache[num]; ok {
		return v, nil
	}
	if d.depth >= maxObjectDepth {
		return nil, unmergeable("reading object %d recurses more than %d deep", num, maxObjectDepth)
	}
	d.depth++
	defer func() { d.depth-- }()
	if err := d.m.charge(entryCost, "an object"); err != nil {
		return nil, err
	}
	d.cache[num] = nil // a reference cycle (through /Length, an object stream) reads null
	if at, ok := d.inStm[num]; ok {
		v, err := d.fromObjectStream(num, at)
		if err != nil {
			return nil, err
		}
		d.cache[num] = v
		return v, nil
	}
	off, ok := d.xref[num]
	if !ok || off == freeObject {
		return nil, nil
	}
	if off < 0 || off >= len(d.data) {
		return nil, unmergeable("object %d's offset is outside the document", num)
	}
	p := &lexer{b: d.data, pos: off, m: d.m}
	p.token()
	p.token()
	if string(p.token()) != "obj" {
		return nil, unmergeable("object %d is not where the cross-reference table says", num)
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
	if err := d.m.scan(p.pos - off); err != nil {
		return nil, err
	}
	d.cache[num] = v
	return v, nil
}

// endstreamSlack is how far past /Length bytes the endstream keyword may
// be (end-of-line markers and spaces).
const endstreamSlack = 32

// stream reads a stream's data after its keyword: /Length bytes when they
// end at endstream, else up to the keyword (a wrong /Length is common).
func (d *document) stream(p *lexer, dict *pdfDict) (*pdfStream, error) {
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
		n, _ = atoiWithin(l, len(d.data)-start)
	case pdfRef:
		v, err := d.object(l.num)
		if err != nil {
			return nil, err
		}
		n, _ = rawInt(v, len(d.data)-start)
	}
	if n >= 0 { // then start+n <= len(d.data)
		rest := bytes.TrimLeft(d.data[start+n:min(len(d.data), start+n+endstreamSlack)], "\r\n \t")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			p.pos = start + n
			return &pdfStream{dict: dict, data: d.data[start : start+n]}, nil
		}
	}
	end := bytes.Index(d.data[start:], []byte("endstream"))
	if end < 0 {
		return nil, unmergeable("a stream has no endstream")
	}
	if err := d.m.scan(end); err != nil {
		return nil, err
	}
	p.pos = start + end
	return &pdfStream{dict: dict, data: bytes.TrimRight(d.data[start:start+end], "\r\n")}, nil
}

// objectStream decodes object stream num and reads its index of objects,
// once.
func (d *document) objectStream(num int) (*objectStream, error) {
	if os, ok := d.stms[num]; ok {
		return os, nil
	}
	if _, inside := d.inStm[num]; inside {
		// A stream is never inside an object stream: this is a loop.
		return nil, unmergeable("object stream %d is said to be inside an object stream", num)
	}
	v, err := d.object(num)
	if err != nil {
		return nil, err
	}
	s, ok := v.(*pdfStream)
	if !ok {
		return nil, unmergeable("object stream %d is not a stream", num)
	}
	count, ok1 := rawInt(s.dict.get("/N"), maxObjectNumber)
	first, ok2 := rawInt(s.dict.get("/First"), math.MaxInt32)
	if !ok1 || !ok2 {
		return nil, unmergeable("object stream %d's /N or /First is not a number within bounds", num)
	}
	data, _, err := d.decode(s, fmt.Sprintf("object stream %d", num))
	if err != nil {
		return nil, err
	}
	if first > len(data) {
		return nil, unmergeable("object stream %d's /First is past its data", num)
	}
	if err := d.m.charge(int64(count)*8, fmt.Sprintf("object stream %d's index", num)); err != nil {
		return nil, err
	}
	offsets := make([]int, 0, count)
	p := &lexer{b: data[:first], m: d.m}
	for range count {
		_, ok1 := p.int(maxObjectNumber)
		off, ok2 := p.int(len(data) - first)
		if !ok1 || !ok2 {
			return nil, unmergeable("object stream %d's index is not %d pairs of numbers within its data", num, count)
		}
		offsets = append(offsets, off)
	}
	if err := d.m.scan(p.pos); err != nil {
		return nil, err
	}
	os := &objectStream{data: data, first: first, offsets: offsets}
	d.stms[num] = os
	return os, nil
}

// fromObjectStream reads object num, the index-th of an object stream.
func (d *document) fromObjectStream(num int, at inStream) (any, error) {
	os, err := d.objectStream(at.stm)
	if err != nil {
		return nil, err
	}
	if at.index >= len(os.offsets) {
		return nil, unmergeable("object %d is past the %d objects of object stream %d", num, len(os.offsets), at.stm)
	}
	start := os.first + os.offsets[at.index] // both within the data: no overflow
	if start >= len(os.data) {
		return nil, unmergeable("object %d is past the end of object stream %d", num, at.stm)
	}
	p := &lexer{b: os.data, pos: start, m: d.m}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := d.m.scan(p.pos - start); err != nil {
		return nil, err
	}
	return v, nil
}

// ints reads an array of integers (false when any is not one, or is
// outside an int, or past the document's limit).
func (d *document) ints(v any) ([]int, bool) {
	arr, ok := v.(pdfArray)
	if !ok || d.m.charge(int64(len(arr))*8, "an array of numbers") != nil {
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

func (d *document) resolve(v any) (any, error) {
	if r, ok := v.(pdfRef); ok {
		return d.object(r.num)
	}
	return v, nil
}

// pageAttrs are the page attributes a page inherits from its ancestors.
var pageAttrs = [...]string{"/Resources", "/MediaBox", "/CropBox", "/Rotate"}

// maxTreeDepth bounds the page tree's depth; writers balance it, a few levels
// for thousands of pages.
const maxTreeDepth = 32

// pages lists the document's pages in order, each with its inherited
// attributes filled in. A node met twice (a cycle, a page listed twice) is
// not a tree: the document is refused.
func (d *document) pages() ([]pdfRef, []*pdfDict, error) {
	root, err := d.resolve(d.trailer.get("/Root"))
	if err != nil {
		return nil, nil, err
	}
	cat, ok := root.(*pdfDict)
	if !ok {
		return nil, nil, unmergeable("the catalog is not a dictionary")
	}
	top, ok := cat.get("/Pages").(pdfRef)
	if !ok {
		return nil, nil, unmergeable("the catalog has no page tree")
	}
	var refs []pdfRef
	var dicts []*pdfDict
	visited := map[int]bool{}
	var walk func(ref pdfRef, inherited [len(pageAttrs)]any, depth int) error
	walk = func(ref pdfRef, inherited [len(pageAttrs)]any, depth int) error {
		if depth > maxTreeDepth || len(refs) >= maxPages {
			return unmergeable("the page tree is deeper than %d or has more than %d pages", maxTreeDepth, maxPages)
		}
		if visited[ref.num] {
			return unmergeable("the page tree meets object %d twice", ref.num)
		}
		visited[ref.num] = true
		if err := d.m.charge(entryCost, "a page tree node"); err != nil {
			return err
		}
		v, err := d.object(ref.num)
		if err != nil {
			return err
		}
		node, ok := v.(*pdfDict)
		if !ok {
			return unmergeable("a page tree node is not a dictionary")
		}
		for i, k := range pageAttrs {
			if v := node.get(k); v != nil {
				inherited[i] = v
			}
		}
		if kids := node.get("/Kids"); kids != nil {
			kv, err := d.resolve(kids)
			if err != nil {
				return err
			}
			arr, ok := kv.(pdfArray)
			if !ok {
				return unmergeable("a page tree node's /Kids is not an array")
			}
			for _, k := range arr {
				kr, ok := k.(pdfRef)
				if !ok {
					return unmergeable("a page tree node's kid is not a reference")
				}
				if err := walk(kr, inherited, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		if err := d.m.charge(int64(len(node.keys)+len(pageAttrs))*valueCost, "a page"); err != nil {
			return err
		}
		page := &pdfDict{}
		for i, k := range node.keys {
			if k != "/Parent" {
				page.keys, page.vals = append(page.keys, k), append(page.vals, node.vals[i])
			}
		}
		for i, k := range pageAttrs {
			if page.get(k) == nil && inherited[i] != nil {
				page.keys, page.vals = append(page.keys, k), append(page.vals, inherited[i])
			}
		}
		refs, dicts = append(refs, ref), append(dicts, page)
		return nil
	}
	if err := walk(top, [len(pageAttrs)]any{}, 0); err != nil {
		return nil, nil, err
	}
	if len(refs) == 0 {
		return nil, nil, unmergeable("it has no pages")
	}
	return refs, dicts, nil
}
