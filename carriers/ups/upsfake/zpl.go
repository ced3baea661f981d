package upsfake

import (
	"fmt"
	"strings"
)

// zplLabel is what UPS answers for LabelImageFormat ZPL: a ZPL II label
// for 4x6 stock at 203 dpi, its tracking number as a Code 128 barcode.
func zplLabel(service, trackingNumber, toName string, to addr) []byte {
	var b strings.Builder
	b.WriteString("^XA\n^PW812\n^LL1218\n")
	fmt.Fprintf(&b, "^FO40,40^A0N,60,60^FDUPS %s^FS\n", zplText(service))
	y := 200
	for _, line := range append([]string{toName}, append(to.lines, strings.TrimSpace(to.city+" "+to.state+" "+to.postal))...) {
		fmt.Fprintf(&b, "^FO60,%d^A0N,40,40^FD%s^FS\n", y, zplText(line))
		y += 50
	}
	fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n", trackingNumber)
	b.WriteString("^XZ\n")
	return []byte(b.String())
}

// zplText keeps ZPL's command characters out of field data.
func zplText(s string) string { return strings.NewReplacer("^", " ", "~", " ").Replace(s) }
