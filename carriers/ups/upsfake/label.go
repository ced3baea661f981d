package upsfake

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"strings"
)

// The label image is what UPS answers for LabelImageFormat GIF: a 4x6 inch
// label at about 200 dpi (800x1200 dots) lying on its side in a landscape
// 1200x800 image, its top towards the image's left edge.
const (
	labelW = 800
	labelH = 1200
)

type labelContent struct {
	service, trackingNumber, weight string
	fromName, toName, reference     string
	from, to                        addr
}

// canvas is a 1-bit portrait drawing surface.
type canvas struct {
	img *image.Paletted
}

const (
	white = 0
	black = 1
)

func (c canvas) rect(x0, y0, x1, y1 int) {
	for y := max(y0, 0); y < min(y1, labelH); y++ {
		for x := max(x0, 0); x < min(x1, labelW); x++ {
			c.img.Pix[y*c.img.Stride+x] = black
		}
	}
}

func (c canvas) frame(x0, y0, x1, y1, t int) {
	c.rect(x0, y0, x1, y0+t)
	c.rect(x0, y1-t, x1, y1)
	c.rect(x0, y0, x0+t, y1)
	c.rect(x1-t, y0, x1, y1)
}

// text draws s with the 5x7 font at scale dots per font pixel.
func (c canvas) text(x, y, scale int, s string) {
	font := glyphs()
	for _, r := range strings.ToUpper(s) {
		g, ok := font[r]
		if !ok {
			g = font['?']
		}
		for row, bits := range g {
			for col := 0; col < 5; col++ {
				if bits[col] == '#' {
					c.rect(x+col*scale, y+row*scale, x+(col+1)*scale, y+(row+1)*scale)
				}
			}
		}
		x += 6 * scale
	}
}

// renderLabel draws a recognisable label and returns it as UPS does: a
// landscape GIF.
func renderLabel(l labelContent) ([]byte, error) {
	pal := color.Palette{color.White, color.Black}
	c := canvas{img: image.NewPaletted(image.Rect(0, 0, labelW, labelH), pal)}
	c.frame(10, 10, labelW-10, labelH-10, 6)
	// Sender, top left.
	c.text(40, 40, 3, l.fromName)
	c.text(40, 75, 3, strings.Join(l.from.lines, " "))
	c.text(40, 110, 3, l.from.city+" "+l.from.state+" "+l.from.postal)
	c.text(600, 40, 4, l.weight)
	c.rect(10, 170, labelW-10, 176)
	// Recipient.
	c.text(40, 200, 4, "SHIP TO:")
	c.text(80, 250, 5, l.toName)
	c.text(80, 310, 3, strings.Join(l.to.lines, " "))
	c.text(80, 360, 4, l.to.city+" "+l.to.state+" "+l.to.postal+" "+l.to.country)
	c.rect(10, 460, labelW-10, 466)
	// Service and tracking number.
	c.text(40, 500, 7, "UPS "+strings.TrimPrefix(l.service, "UPS "))
	c.text(40, 600, 4, "TRACKING #: "+l.trackingNumber)
	// A barcode-like band from the tracking number, for the look of it.
	x := 60
	for i, r := range l.trackingNumber + l.trackingNumber {
		w := 3 + int(r)%4*2
		if i%2 == 0 {
			c.rect(x, 680, x+w, 900)
		}
		x += w
		if x > labelW-60 {
			break
		}
	}
	c.rect(10, 940, labelW-10, 946)
	c.text(40, 980, 3, "REF: "+l.reference)
	c.text(40, 1100, 3, "UPSFAKE TEST LABEL - NOT FOR SHIPPING")

	// Lay it on its side: a quarter turn counter-clockwise, so the label's
	// top edge becomes the image's left edge.
	land := image.NewPaletted(image.Rect(0, 0, labelH, labelW), pal)
	for y := 0; y < labelH; y++ {
		for x := 0; x < labelW; x++ {
			land.Pix[(labelW-1-x)*land.Stride+y] = c.img.Pix[y*c.img.Stride+x]
		}
	}
	var buf bytes.Buffer
	if err := gif.Encode(&buf, land, &gif.Options{NumColors: 2}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// glyphs is a 5x7 font: upper-case letters, digits and some punctuation.
func glyphs() map[rune][7]string {
	return map[rune][7]string{
		'A': {" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"},
		'B': {"#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "},
		'C': {" ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### "},
		'D': {"#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "},
		'E': {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"},
		'F': {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "},
		'G': {" ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####"},
		'H': {"#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"},
		'I': {" ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "},
		'J': {"  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "},
		'K': {"#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"},
		'L': {"#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"},
		'M': {"#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"},
		'N': {"#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #"},
		'O': {" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "},
		'P': {"#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "},
		'Q': {" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"},
		'R': {"#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"},
		'S': {" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "},
		'T': {"#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "},
		'U': {"#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "},
		'V': {"#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "},
		'W': {"#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # "},
		'X': {"#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"},
		'Y': {"#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "},
		'Z': {"#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"},
		'0': {" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "},
		'1': {"  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "},
		'2': {" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"},
		'3': {"#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "},
		'4': {"   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "},
		'5': {"#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "},
		'6': {"  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "},
		'7': {"#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "},
		'8': {" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "},
		'9': {" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "},
		' ': {"     ", "     ", "     ", "     ", "     ", "     ", "     "},
		'-': {"     ", "     ", "     ", "#####", "     ", "     ", "     "},
		'.': {"     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "},
		',': {"     ", "     ", "     ", "     ", " ##  ", "  #  ", " #   "},
		':': {"     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     "},
		'#': {" # # ", " # # ", "#####", " # # ", "#####", " # # ", " # # "},
		'/': {"    #", "    #", "   # ", "  #  ", " #   ", "#    ", "#    "},
		'_': {"     ", "     ", "     ", "     ", "     ", "     ", "#####"},
		'?': {" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "},
	}
}
