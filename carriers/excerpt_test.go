package carriers_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/carriers"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", carriers.ExcerptLimit)
	cases := []struct{ name, in, want string }{
		{"plain", "Invalid postal code.", "Invalid postal code."},
		{"white space and controls", "  line one\r\n\tline\x00two \x1b[31m ", "line one line two [31m"},
		{"invalid bytes and replacement characters", "bad\xff\xfe byte\uFFFDs", "bad bytes"},
		{"exactly the limit", long, long},
		{"one over the limit", long + "x", long + "…"},
		{"space at the limit", long[:len(long)-2] + " xyz", long[:len(long)-2] + "…"},
		{"long text of invalid bytes", strings.Repeat("\xff", 1<<20) + "ok", ""},
		{"empty", "", ""},
		{"right-to-left override", "Invalid \u202Etxt.exe\u202C code", "Invalid txt.exe code"},
		{"every bidi control", "a\u061Cb\u200Ec\u200Fd\u202Ae\u202Bf\u202Cg\u202Dh\u202Ei\u2066j\u2067k\u2068l\u2069m", "abcdefghijklm"},
		{"bidi controls only", "\u202E\u2066", ""},
		{"bidi control between spaces", "a \u202E b", "a b"},
	}
	for _, c := range cases {
		if got := carriers.Excerpt(c.in); got != c.want {
			t.Errorf("%s: Excerpt(%.40q) = %.60q, want %.60q", c.name, c.in, got, c.want)
		}
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add("Invalid postal code.")
	f.Add(" a\tb\x00\xff" + strings.Repeat("ü", 400))
	f.Add("Invalid \u202Etxt.exe\u202C \u2067code\u2069")
	f.Fuzz(func(t *testing.T, s string) {
		got := carriers.Excerpt(s)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		if n := utf8.RuneCountInString(got); n > carriers.ExcerptLimit+1 {
			t.Fatalf("%d characters", n)
		}
		if again := carriers.Excerpt(got); again != got {
			t.Fatalf("not idempotent: %q → %q", got, again)
		}
		if bs := carriers.Excerpt([]byte(s)); bs != got {
			t.Fatalf("bytes give %q, the string %q", bs, got)
		}
		if strings.TrimSpace(got) != got || strings.Contains(got, "  ") {
			t.Fatalf("untrimmed white space in %q", got)
		}
		for _, r := range got {
			if r < ' ' || r == 0x7f || r == utf8.RuneError {
				t.Fatalf("control or replacement character %U in %q", r, got)
			}
			if unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("bidirectional control %U in %q", r, got)
			}
		}
		clean := utf8.ValidString(s) && len(s) <= carriers.ExcerptLimit &&
			!strings.ContainsFunc(s, func(r rune) bool {
				return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
			}) &&
			strings.Join(strings.Fields(s), " ") == s
		if clean && got != s {
			t.Fatalf("clean short text changed: %q → %q", s, got)
		}
	})
}

func TestIdentifierOf(t *testing.T) {
	for in, want := range map[string]string{
		"  PRG123  ":       "PRG123",
		"\xff\xfe":         "",
		"\uFFFD\uFFFD":     "",
		" \t\n":            "",
		"A\u202EB":         "AB",
		"ORD 1\nORD 2":     "ORD 1 ORD 2",
		"\uFFFDPRG9\uFFFD": "PRG9",
	} {
		if got := carriers.IdentifierOf(in); got != want {
			t.Errorf("IdentifierOf(%q) = %q, want %q", in, got, want)
		}
	}
}
