package pdfmerge

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
)

// decode undoes a structure stream's FlateDecode and predictor, all that
// cross-reference and object streams use, and returns its data and the
// bytes charged for it (0 for data left as written, a slice of the
// document).
//
// The stream is inflated twice: first into nothing, counting, and refused
// when it passes Limits.Stream or what the document may still hold; then
// into a buffer of exactly that size. A bomb thus costs the time to
// inflate Limits.Stream bytes and no memory, where reading it into a
// growing buffer would hold it (and, doubling, up to twice over) before
// any limit could be checked.
func (d *document) decode(s *pdfStream, what string) ([]byte, int64, error) {
	filter, parms := s.dict.get("/Filter"), s.dict.get("/DecodeParms")
	if arr, ok := filter.(pdfArray); ok {
		if len(arr) != 1 {
			return nil, 0, unmergeable("%s has %d filters; one is read", what, len(arr))
		}
		filter = arr[0]
	}
	if arr, ok := parms.(pdfArray); ok {
		if len(arr) != 1 {
			return nil, 0, unmergeable("%s has %d sets of decode parameters", what, len(arr))
		}
		parms = arr[0]
	}
	if filter == nil {
		return s.data, 0, nil
	}
	if f, ok := filter.(pdfRaw); !ok || string(f) != "/FlateDecode" {
		return nil, 0, unmergeable("%s is encoded with %s; FlateDecode is read", what, filter)
	}
	pred, err := predictorOf(parms, what)
	if err != nil {
		return nil, 0, err
	}
	// Charged whether or not a pooled one is reused: the charge bounds, it
	// need not be exact.
	if err := d.m.charge(decompressorCost, "a decompressor"); err != nil {
		return nil, 0, err
	}
	zr, err := d.m.inflater(s.data)
	if err != nil {
		return nil, 0, unmergeable("%s is not zlib data", what)
	}
	defer d.m.keepInflater(zr)
	limit := min(d.m.limits.Stream, d.m.left())
	n, err := io.Copy(io.Discard, io.LimitReader(zr, limit+1))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, 0, unmergeable("%s does not inflate", what)
	}
	if err := d.m.scan(int(2 * n)); err != nil {
		return nil, 0, err
	}
	if n > limit {
		if limit < d.m.limits.Stream {
			return nil, 0, d.m.charge(n, what+" inflated") // says which limit
		}
		return nil, 0, unmergeable("%w: %s inflates past %d KiB, the most a label's structure stream may", ErrTooLarge, what, d.m.limits.Stream>>10)
	}
	if err := d.m.charge(n, what+" inflated"); err != nil {
		return nil, 0, err
	}
	out := make([]byte, n)
	if err := zr.(zlib.Resetter).Reset(bytes.NewReader(s.data), nil); err != nil {
		return nil, 0, unmergeable("%s is not zlib data", what)
	}
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, 0, unmergeable("%s inflates differently twice", what)
	}
	out, err = pred.undo(out, what)
	if err != nil {
		return nil, 0, err
	}
	return out, n, nil
}

// inflater is a zlib reader of data, from the pool when one is there.
func (m *meter) inflater(data []byte) (io.ReadCloser, error) {
	if m.inflaters != nil {
		if zr, ok := m.inflaters.Get().(io.ReadCloser); ok {
			if err := zr.(zlib.Resetter).Reset(bytes.NewReader(data), nil); err != nil {
				m.inflaters.Put(zr)
				return nil, err
			}
			return zr, nil
		}
	}
	return zlib.NewReader(bytes.NewReader(data))
}

// keepInflater gives a zlib reader back to the pool.
func (m *meter) keepInflater(zr io.ReadCloser) {
	if m.inflaters != nil {
		m.inflaters.Put(zr)
	}
}

// predictor is a stream's /DecodeParms: PNG predictors (Predictor 10 to
// 15, one filter byte per row), or none.
type predictor struct {
	png bool
	// rowLen is the bytes of a row without its filter byte, bpp the bytes
	// of a pixel (at least 1), as PNG counts them.
	rowLen, bpp int
}

// Bounds of decode parameters: PDF allows any Colors, Columns fits a
// row of any label's table or image, and BitsPerComponent is one of
// PNG's.
const (
	maxColors  = 32
	maxColumns = 1 << 24
)

func predictorOf(parms any, what string) (predictor, error) {
	dict, ok := parms.(*pdfDict)
	if !ok {
		if parms == nil || string(parmsRaw(parms)) == "null" {
			return predictor{}, nil
		}
		return predictor{}, unmergeable("%s's /DecodeParms is not a dictionary", what)
	}
	param := func(key string, def, lo, hi int) (int, error) {
		v := dict.get(key)
		if v == nil {
			return def, nil
		}
		raw, _ := v.(pdfRaw)
		n, ok := atoiWithin(raw, hi)
		if !ok || n < lo {
			return 0, unmergeable("%s's %s is not a number from %d to %d", what, key, lo, hi)
		}
		return n, nil
	}
	kind, err := param("/Predictor", 1, 1, 15)
	if err != nil {
		return predictor{}, err
	}
	switch {
	case kind == 1:
		return predictor{}, nil
	case kind < 10:
		return predictor{}, unmergeable("%s uses predictor %d; PNG predictors are read", what, kind)
	}
	colors, err := param("/Colors", 1, 1, maxColors)
	if err != nil {
		return predictor{}, err
	}
	bpc, err := param("/BitsPerComponent", 8, 1, 16)
	if err != nil {
		return predictor{}, err
	}
	switch bpc {
	case 1, 2, 4, 8, 16:
	default:
		return predictor{}, unmergeable("%s's /BitsPerComponent is %d", what, bpc)
	}
	columns, err := param("/Columns", 1, 1, maxColumns)
	if err != nil {
		return predictor{}, err
	}
	// At most 32*16*2^24 bits: no overflow.
	return predictor{png: true, rowLen: (colors*bpc*columns + 7) / 8, bpp: max(1, (colors*bpc+7)/8)}, nil
}

func parmsRaw(v any) pdfRaw {
	raw, _ := v.(pdfRaw)
	return raw
}

// undo reverses PNG row filters in place: each row of rowLen bytes after
// its filter byte is written over the data before it (a row's output
// starts before its input, and every byte it reads is at or past the one
// written), so no second buffer is allocated. A short last row is dropped,
// as PNG decoders do.
func (p predictor) undo(data []byte, what string) ([]byte, error) {
	if !p.png {
		return data, nil
	}
	in, out := 0, 0
	for in+1+p.rowLen <= len(data) {
		kind := data[in]
		in++
		row := data[out : out+p.rowLen]
		var prev []byte
		if out >= p.rowLen {
			prev = data[out-p.rowLen : out]
		}
		for i := range p.rowLen {
			x := data[in+i]
			var left, up, upLeft byte
			if i >= p.bpp {
				left = row[i-p.bpp]
			}
			if prev != nil {
				up = prev[i]
				if i >= p.bpp {
					upLeft = prev[i-p.bpp]
				}
			}
			switch kind {
			case 0:
			case 1:
				x += left
			case 2:
				x += up
			case 3:
				x += byte((int(left) + int(up)) / 2)
			case 4:
				x += paeth(left, up, upLeft)
			default:
				return nil, unmergeable("%s has a row of PNG filter %d", what, kind)
			}
			row[i] = x
		}
		in += p.rowLen
		out += p.rowLen
	}
	return data[:out], nil
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
