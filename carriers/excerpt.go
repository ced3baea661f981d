package carriers

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExcerptLimit is how many characters of a carrier's text go into an error
// message: enough for a few of its messages joined, little enough that an
// answer with a megabyte in its message field does not become a megabyte
// error body, log line and webhook payload.
const ExcerptLimit = 300

// Excerpt is a carrier's text made fit for an error message: valid UTF-8,
// without bidirectional controls, control characters and runs of white
// space turned into one space, and at
// most ExcerptLimit characters followed by "…" when it was cut. Every
// carrier passes the messages and codes it copies out of an answer through
// it, so no answer can make shipd's errors longer than the answer itself
// or break a log line. It takes the bytes of an answer as well, without
// copying all of them.
func Excerpt[T ~string | ~[]byte](text T) string {
	// Four bytes per character is the most UTF-8 needs, so this much of a
	// long text always holds the characters kept.
	if len(text) > 4*ExcerptLimit+4 {
		text = text[:4*ExcerptLimit+4]
	}
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.ToValidUTF8(string(text), "") {
		if r == utf8.RuneError || unicode.Is(unicode.Bidi_Control, r) {
			// RuneError: what json.Unmarshal put where the answer had
			// invalid bytes. Bidi controls (U+202A–U+202E, U+2066–U+2069,
			// U+200E, U+200F, U+061C) are invisible and reorder the text
			// after them: in an error message, a log line or the settings
			// UI a carrier's text could make itself read as something else.
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		width := 1
		if space {
			width = 2
		}
		if n+width > ExcerptLimit {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n += width
	}
	return b.String()
}

// IdentifierOf is an identifier a carrier answered (a pickup's number, a
// booking's reference) as shipd keeps it: its Excerpt, without the spaces
// around it. "" when nothing printable is left, which a parser takes as no
// identifier at all: json.Unmarshal decodes bytes that are not UTF-8 to
// U+FFFD, which Excerpt drops.
func IdentifierOf(s string) string { return Excerpt(strings.TrimSpace(s)) }
