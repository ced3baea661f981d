package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// RenderZPL writes the 4x6 label in ZPL II for 203 dpi thermal printers
// (812x1218 dots), with the layout of RenderLabel's PDF: text in the
// printer's scalable font 0, the tracking number as a Code 128 ^BC symbol
// the printer draws itself. ZPL has no diagonal text, so a test label's
// sample mark is the reversed footer alone.
func RenderZPL(in LabelInput) ([]byte, error) {
	if strings.TrimSpace(in.TrackingNumber) == "" {
		return nil, errors.New("label: tracking number is required")
	}
	bc, err := barcodeBars(in.TrackingNumber)
	if err != nil {
		return nil, err
	}
	z := &zplWriter{}
	// ^CI28: field data is UTF-8. ^PW/^LL: the 4x6 label at 203 dpi.
	z.printf("^XA\n^CI28\n^PW%d\n^LL%d\n^LH0,0\n", PNGWidth, PNGHeight)
	z.box(margin, margin, innerW, pageH-2*margin, 0.02)

	z.fill(margin, headerTop, innerW, headerH)
	z.text(margin+padding, headerTop, 1.6, headerH, in.Carrier, 24, 'L', true)
	svc := strings.ToUpper(in.Service)
	x, w := margin+1.7, innerW-1.7-padding
	z.text(x, headerTop+0.08, w, 0.28, svc, zplFit(svc, w, 13, 7), 'R', true)
	z.text(x, headerTop+0.36, w, 0.18, "SERVICE", 7, 'R', true)

	x, colW := margin+padding, 2.25
	y := fromTop
	z.text(x, y, colW, 7*ptIn*1.3, "FROM:", 7, 'L', false)
	y += 7 * ptIn * 1.3
	for _, line := range addressLines(in.From, carriers.IsInternational(in.From, in.To)) {
		z.text(x, y, colW, 7.5*ptIn*1.3, line, zplFit(line, colW, 7.5, 5.5), 'L', false)
		y += 7.5 * ptIn * 1.3
	}
	rx := margin + padding + colW + 0.1
	rw := pageW - margin - padding - rx
	y = fromTop
	for _, f := range labelFacts(in) {
		z.text(rx, y, rw, 6*ptIn*1.3, f[0], 6, 'L', false)
		y += 6 * ptIn * 1.3
		z.text(rx, y, rw, 8*ptIn*1.3, f[1], zplFit(f[1], rw, 8, 5), 'L', false)
		y += 8*ptIn*1.3 + 0.02
	}
	z.rule(shipToTop-0.04, 0.02)

	w = innerW - 2*padding
	z.text(x, shipToTop+0.02, w, 9*ptIn*1.4, "SHIP TO:", 9, 'L', false)
	y = shipToTop + 0.02 + 9*ptIn*1.4
	lines := addressLines(in.To, carriers.IsInternational(in.From, in.To))
	for i, line := range lines {
		size := 12.0
		if i == 0 || i == len(lines)-1 {
			size = 13
		}
		z.text(x+0.25, y, w-0.25, 12*ptIn*1.22, line, zplFit(line, w-0.25, size, 7), 'L', false)
		y += 12 * ptIn * 1.22
	}
	if flags := labelFlags(in); flags != "" {
		z.fill(x, flagsTop, w, 0.2)
		z.text(x, flagsTop, w, 0.2, flags, zplFit(flags, w, 9, 6), 'C', true)
	}
	z.rule(trackingTop-0.04, 0.05)

	z.text(margin+padding, trackingTop+0.04, innerW-2*padding, 0.18, strings.ToUpper(in.Carrier)+" TRACKING #", 8, 'L', false)
	// ^BY: whole dots per module, as wide as the PDF's symbol allows; ^BC
	// without its own interpretation line (the number is printed below,
	// larger, as on the PDF), in its automatic mode (A), which packs digits
	// in pairs (subset C) as the symbol measured here does.
	module := min(max(px(innerW-2*0.2)/bc.modules, 1), 10)
	z.printf("^BY%d,3,%d\n^FO%d,%d^BCN,%d,N,N,N,A^FH\\^FD%s^FS\n", module, px(barcodeH),
		(PNGWidth-module*bc.modules)/2, px(trackingTop+0.28), px(barcodeH), zplEscape(in.TrackingNumber))
	z.text(margin, trackingTop+0.28+barcodeH+0.06, innerW, 0.22, in.TrackingNumber, 12, 'C', false)
	z.rule(footerTop-0.04, 0.05)

	h := pageH - margin - footerTop
	if in.TestMode {
		z.fill(margin, footerTop, innerW, h)
		z.text(margin, footerTop, innerW, h, sampleMark, 14, 'C', true)
	} else {
		z.text(margin, footerTop, innerW, h, "Created with shipd", 7, 'C', false)
	}
	z.printf("^XZ\n")
	return []byte(z.b.String()), nil
}

type zplWriter struct{ b strings.Builder }

func (z *zplWriter) printf(format string, args ...any) { fmt.Fprintf(&z.b, format, args...) }

// fill is a solid black box (^GB with a border as thick as the box).
func (z *zplWriter) fill(x, y, w, h float64) {
	z.printf("^FO%d,%d^GB%d,%d,%d,B,0^FS\n", px(x), px(y), px(w), px(h), min(px(w), px(h)))
}

// box is a rectangle's outline of line width lw.
func (z *zplWriter) box(x, y, w, h, lw float64) {
	z.printf("^FO%d,%d^GB%d,%d,%d,B,0^FS\n", px(x-lw/2), px(y-lw/2), px(w+lw), px(h+lw), max(px(lw), 1))
}

// rule is a line across the label at y.
func (z *zplWriter) rule(y, lw float64) {
	z.printf("^FO%d,%d^GB%d,%d,%d,B,0^FS\n", px(margin), px(y-lw/2), px(innerW), max(px(lw), 1), max(px(lw), 1))
}

// text writes one line in font 0 at size points, vertically centred in
// the box (x, y, w, h) and aligned 'L', 'C' or 'R' in a one-line field
// block; reversed (^FR) it prints white on a black fill.
func (z *zplWriter) text(x, y, w, h float64, s string, size float64, align byte, reversed bool) {
	dots := px(size * ptIn)
	top := px(y+h/2) - dots/2
	pad := px(cellMargin)
	fr := ""
	if reversed {
		fr = "^FR"
	}
	z.printf("^FO%d,%d^A0N,%d,%d^FB%d,1,0,%c,0%s^FH\\^FD%s^FS\n", px(x)+pad, top, dots, dots, px(w)-2*pad, align, fr, zplEscape(s))
}

// zplFit shrinks size (points), in half points down to minSize, until s
// fits width w inches in font 0, whose characters average about 0.55 of
// their height across.
func zplFit(s string, w, size, minSize float64) float64 {
	n := float64(len([]rune(s)))
	for ; size > minSize; size -= 0.5 {
		if n*size*ptIn*0.55 <= w*0.92 {
			return size
		}
	}
	return minSize
}

// zplEscape makes s field data for ^FH\: the characters ZPL reads as
// commands (^, ~) and the escape itself as hexadecimal, control
// characters as spaces.
func zplEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '^' || r == '~' || r == '\\':
			fmt.Fprintf(&b, "\\%02X", r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
