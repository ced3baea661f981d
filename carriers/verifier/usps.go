package verifier

import "strings"

// usTokens upper-cases a US address line and splits it into words the way
// Publication 28 writes them: periods are dropped ("N.W." is "NW", "St." is
// "ST"), commas separate words, and "#" always stands alone so "#4" and
// "APT #4" parse like "# 4" and "APT 4".
func usTokens(s string) []string {
	s = strings.ToUpper(s)
	s = strings.NewReplacer(".", "", ",", " ", "#", " # ").Replace(s)
	return strings.Fields(s)
}

// cleanUS is usTokens joined back into one line, for fields that have no
// further structure (city, state).
func cleanUS(s string) string {
	return strings.Join(usTokens(s), " ")
}

// street1Parts is a standardised first street line.
type street1Parts struct {
	// full is the whole standardised line, including any trailing unit.
	full string
	// line is full without the unit, i.e. what stays in street1 when the
	// unit moves to street2.
	line string
	unit string
	// problem is "" or the code of the reason the line is not deliverable.
	problem string
}

// parseStreet1 standardises a US first street line. military says whether
// the state is AA/AE/AP, where PSC/CMR/UNIT boxes replace house numbers.
func parseStreet1(raw string, military bool) street1Parts {
	tokens := usTokens(raw)
	if len(tokens) == 0 {
		return street1Parts{problem: CodeMissingStreet}
	}
	if box, ok := poBox(tokens); ok {
		p := street1Parts{full: box, line: box}
		if box == "PO BOX" {
			p.problem = CodeMissingStreetNumber
		}
		return p
	}
	whole := strings.Join(tokens, " ")
	if military && isMilitaryBox(tokens) {
		return street1Parts{full: whole, line: whole}
	}
	hn := houseNumberLen(tokens)
	if hn == 0 {
		return street1Parts{full: whole, line: whole, problem: CodeMissingStreetNumber}
	}
	rest, unit := splitUnit(tokens, hn)
	if len(rest) == hn {
		return street1Parts{full: whole, line: whole, problem: CodeMissingStreet}
	}
	line := strings.Join(append(rest[:hn:hn], standardizeStreetName(rest[hn:])...), " ")
	full := line
	if unit != "" {
		full += " " + unit
	}
	return street1Parts{full: full, line: line, unit: unit}
}

// poBox recognises the spellings of a post office box ("P.O. Box 123",
// "P O Box #123", "POBOX 123", "Post Office Box 123") and returns the
// standard "PO BOX 123". A box without a number comes back as "PO BOX".
func poBox(tokens []string) (string, bool) {
	var rest []string
	switch {
	case len(tokens) >= 2 && tokens[0] == "PO" && tokens[1] == "BOX":
		rest = tokens[2:]
	case len(tokens) >= 3 && tokens[0] == "P" && tokens[1] == "O" && tokens[2] == "BOX":
		rest = tokens[3:]
	case len(tokens) >= 3 && tokens[0] == "POST" && tokens[1] == "OFFICE" && tokens[2] == "BOX":
		rest = tokens[3:]
	case tokens[0] == "POBOX":
		rest = tokens[1:]
	default:
		return "", false
	}
	if len(rest) > 0 && rest[0] == "#" {
		rest = rest[1:]
	}
	return strings.Join(append([]string{"PO BOX"}, rest...), " "), true
}

// isMilitaryBox recognises "PSC 1234 BOX 5678", "CMR 450 BOX 1" and
// "UNIT 2050 BOX 4190", the delivery lines of APO/FPO/DPO addresses.
func isMilitaryBox(tokens []string) bool {
	if len(tokens) != 4 || tokens[2] != "BOX" || !isDigits(tokens[1]) || !isDigits(tokens[3]) {
		return false
	}
	switch tokens[0] {
	case "PSC", "CMR", "UNIT":
		return true
	}
	return false
}

// houseNumberLen returns how many leading tokens form the house number: 0
// when there is none, 2 for a fractional number such as "123 1/2".
func houseNumberLen(tokens []string) int {
	first := tokens[0]
	if _, ordinal := ordinalNumber(first); ordinal {
		// "5TH AVE" is a street name without a house number.
		return 0
	}
	if !startsWithDigit(first) && !isGridNumber(first) {
		return 0
	}
	if len(tokens) > 1 && isFraction(tokens[1]) {
		return 2
	}
	return 1
}

// isGridNumber accepts the Wisconsin/Illinois grid house numbers such as
// "W156N11390" or "N6W23001", which begin with a letter but are real
// primary numbers.
func isGridNumber(s string) bool {
	i := 0
	for range 2 {
		if i >= len(s) || !strings.ContainsRune("NSEW", rune(s[i])) {
			return false
		}
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

func isFraction(s string) bool {
	num, den, ok := strings.Cut(s, "/")
	return ok && isDigits(num) && isDigits(den)
}

// splitUnit finds a secondary unit at the end of the token list and returns
// the tokens before it and the standardised unit ("STE 3300", "# 4", "REAR").
// The unit must follow at least one street-name word, so a street named
// like a designator ("123 LOT RD") is left alone.
func splitUnit(tokens []string, hn int) ([]string, string) {
	n := len(tokens)
	minAt := hn + 1 // index of the first token that may start a unit
	last := tokens[n-1]

	// "APT # 4": the pound sign is redundant after a designator.
	if n-3 >= minAt && tokens[n-2] == "#" && isUnitNumber(last) {
		if d, ok := unitDesignators[tokens[n-3]]; ok && d.needsNumber {
			return tokens[:n-3], d.abbr + " " + last
		}
	}
	if n-2 >= minAt && isUnitNumber(last) {
		if tokens[n-2] == "#" {
			// Pub 28 wants a space between "#" and the number.
			return tokens[:n-2], "# " + last
		}
		if d, ok := unitDesignators[tokens[n-2]]; ok && d.needsNumber {
			return tokens[:n-2], d.abbr + " " + last
		}
	}
	// "3RD FLOOR" is written "FL 3".
	if n-2 >= minAt && isFloorWord(last) {
		if num, ok := ordinalNumber(tokens[n-2]); ok {
			return tokens[:n-2], "FL " + num
		}
	}
	// A designator without a number ("REAR", "PH") is only taken when it
	// follows a suffix or directional, because words like FRONT and SIDE are
	// common in street names.
	if n-2 >= minAt {
		if d, ok := unitDesignators[last]; ok && !d.needsNumber && isSuffixOrDirectional(tokens[n-2]) {
			return tokens[:n-1], d.abbr
		}
	}
	return tokens, ""
}

func isSuffixOrDirectional(s string) bool {
	_, suffix := streetSuffixes[s]
	_, dir := directionals[s]
	return suffix || dir
}

func isFloorWord(s string) bool { return s == "FLOOR" || s == "FL" || s == "FLR" }

// ordinalNumber turns "3RD" into "3".
func ordinalNumber(s string) (string, bool) {
	for _, suffix := range []string{"ST", "ND", "RD", "TH"} {
		if num, ok := strings.CutSuffix(s, suffix); ok && isDigits(num) {
			return num, true
		}
	}
	return "", false
}

// isUnitNumber accepts secondary numbers such as "4", "4B", "12-A" and a
// single letter ("APT B"); longer all-letter words are more likely part of
// the street name.
func isUnitNumber(s string) bool {
	if s == "" {
		return false
	}
	digit := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r == '-' || (r >= 'A' && r <= 'Z'):
		default:
			return false
		}
	}
	return digit || len(s) == 1
}

// standardizeStreetName abbreviates the suffix and directionals of the words
// after the house number. Position matters: only the last word (before a
// post-directional) is a suffix, so "AVENUE OF THE AMERICAS" and "AVENUE B"
// keep AVENUE; and a directional or suffix that is the only name word is the
// street name itself ("NORTH ST", "123 AVENUE S").
func standardizeStreetName(words []string) []string {
	out := append([]string(nil), words...)
	end := len(out) // out[:end] is what remains to classify
	if end >= 2 {
		if d, ok := directionals[out[end-1]]; ok {
			out[end-1] = d
			end--
		}
	}
	if end >= 2 {
		if s, ok := streetSuffixes[out[end-1]]; ok {
			out[end-1] = s
			end--
		}
	}
	if end >= 2 {
		if d, ok := directionals[out[0]]; ok {
			out[0] = d
		}
	}
	return out
}

// standardizeStreet2 standardises a second street line, which normally holds
// units ("Suite 3300", "#4", "2nd floor", "Bldg 5 Apt 3"). A designator is
// abbreviated where a unit can start: at the beginning or after a unit
// number. Designators that take no number are only abbreviated when they are
// the whole line, so "Front Desk" stays as typed.
func standardizeStreet2(raw string) string {
	tokens := usTokens(raw)
	if len(tokens) == 2 && isFloorWord(tokens[1]) {
		if num, ok := ordinalNumber(tokens[0]); ok {
			return "FL " + num
		}
	}
	out := make([]string, 0, len(tokens))
	for i, tok := range tokens {
		d, ok := unitDesignators[tok]
		unitStart := i == 0 || isUnitNumber(tokens[i-1])
		switch {
		case ok && unitStart && d.needsNumber && i+1 < len(tokens):
			out = append(out, d.abbr)
		case ok && !d.needsNumber && len(tokens) == 1:
			out = append(out, d.abbr)
		case tok == "#" && i > 0 && i+1 < len(tokens) && isDesignator(tokens[i-1]):
			// "APT # 4": the pound sign is redundant after a designator.
		default:
			out = append(out, tok)
		}
	}
	return strings.Join(out, " ")
}

func isDesignator(s string) bool {
	_, ok := unitDesignators[s]
	return ok
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func startsWithDigit(s string) bool {
	return s != "" && s[0] >= '0' && s[0] <= '9'
}
