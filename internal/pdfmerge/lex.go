package pdfmerge

import (
	"bytes"
	"strconv"
)

// The values a document is parsed into. Names, numbers, strings, booleans
// and null are kept as written (pdfRaw, a slice of the document: nothing
// copied); dictionaries keep their keys in order.
type (
	pdfDict struct {
		keys []string // with the leading slash, as written
		vals []any
	}
	pdfArray  []any
	pdfRef    struct{ num, gen int }
	pdfRaw    []byte
	pdfStream struct {
		dict *pdfDict
		data []byte // as written: filters untouched
	}
)

func (d *pdfDict) get(key string) any {
	for i, k := range d.keys {
		if k == key {
			return d.vals[i]
		}
	}
	return nil
}

// maxNesting bounds how deep arrays and dictionaries nest in one value: a
// label's go three or four deep.
const maxNesting = 64

// lexer reads PDF tokens and values from b, charging what it keeps to m.
type lexer struct {
	b   []byte
	pos int
	m   *meter
}

func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (p *lexer) skip() {
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
// are returned as one or two bytes; nil at the end.
func (p *lexer) token() []byte {
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

// int reads the next token as a non-negative integer of at most limit.
func (p *lexer) int(limit int) (int, bool) {
	return atoiWithin(p.token(), limit)
}

// atoiWithin parses b as a decimal integer in [0, limit].
func atoiWithin(b []byte, limit int) (int, bool) {
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 0 || n > limit {
		return 0, false
	}
	return n, true
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
func (p *lexer) value() (any, error) {
	return p.valueDepth(0)
}

func (p *lexer) valueDepth(depth int) (any, error) {
	if depth > maxNesting {
		return nil, unmergeable("values nest more than %d deep", maxNesting)
	}
	if err := p.m.charge(valueCost, "a value"); err != nil {
		return nil, err
	}
	p.skip()
	if p.pos >= len(p.b) {
		return nil, unmergeable("a value is cut off")
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
				return pdfRaw(p.b[start:min(p.pos, len(p.b))]), nil
			}
		}
		return nil, unmergeable("a string is not closed")
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
				return nil, unmergeable("an array is not closed")
			}
			if p.b[p.pos] == ']' {
				p.pos++
				return arr, nil
			}
			v, err := p.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			if arr, err = grow(p.m, arr, slotCost, "an array"); err != nil {
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
				return nil, unmergeable("a dictionary key is not a name")
			}
			k, err := p.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			key, ok := k.(pdfRaw)
			if !ok {
				return nil, unmergeable("a dictionary key is not a name")
			}
			if err := p.m.charge(int64(len(key))+8, "a dictionary key"); err != nil {
				return nil, err
			}
			v, err := p.valueDepth(depth + 1)
			if err != nil {
				return nil, err
			}
			if d.keys, err = grow(p.m, d.keys, slotCost, "a dictionary"); err != nil {
				return nil, err
			}
			if d.vals, err = grow(p.m, d.vals, slotCost, "a dictionary"); err != nil {
				return nil, err
			}
			d.keys, d.vals = append(d.keys, string(key)), append(d.vals, v)
		}
	case c == '<':
		end := bytes.IndexByte(p.b[p.pos:], '>')
		if end < 0 {
			return nil, unmergeable("a hexadecimal string is not closed")
		}
		p.pos += end + 1
		return pdfRaw(p.b[start:p.pos]), nil
	case isPDFDelim(c):
		return nil, unmergeable("%q where a value should be", c)
	}
	tok := p.token()
	if isInt(tok) {
		// N G R is a reference.
		save := p.pos
		gen := p.token()
		if isInt(gen) && string(p.token()) == "R" {
			n, ok1 := atoiWithin(tok, maxObjectNumber)
			g, ok2 := atoiWithin(gen, maxGeneration)
			if ok1 && ok2 {
				return pdfRef{n, g}, nil
			}
		}
		p.pos = save
	}
	return pdfRaw(tok), nil
}
