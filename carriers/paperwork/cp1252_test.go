package paperwork

import (
	"testing"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
)

// CP1252 writes what fpdf's own cp1252 translator writes, for every rune of
// the Basic Multilingual Plane and a few beyond.
func TestCP1252MatchesFpdf(t *testing.T) {
	t.Parallel()
	want := fpdf.New("P", "in", "", "").UnicodeTranslatorFromDescriptor("")
	check := func(r rune) {
		s := "a" + string(r) + "z"
		if got, w := CP1252(s), want(s); got != w {
			t.Errorf("U+%04X: cp1252 %q, fpdf %q", r, got, w)
		}
	}
	for r := rune(0); r <= 0xFFFF; r++ {
		if utf8.ValidRune(r) {
			check(r)
		}
	}
	for _, r := range []rune{0x1F4E6, 0x10FFFF} {
		check(r)
	}
}
