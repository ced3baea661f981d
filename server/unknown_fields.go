package server

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// Unknown request fields. The request schemas of the contract say
// additionalProperties: false, so kin-openapi refuses a field they do not
// have; these turn its report into 422 invalid_field naming the field's path
// and, like Stripe, the documented field the client most likely meant. A
// misspelt field used to be dropped in silence: "serviceCatgory": "overnight"
// bought the cheapest service of any speed.

// unknownProperty reports the name of the field kin-openapi refused for
// additionalProperties: false. It reports that as a failure of the object's
// "properties" with the name quoted in the reason (the path is the object's,
// without the name), so the reason is the only place the name is.
func unknownProperty(se *openapi3.SchemaError) (string, bool) {
	const prefix, suffix = "property ", " is unsupported"
	if se.SchemaField != "properties" || !strings.HasPrefix(se.Reason, prefix) || !strings.HasSuffix(se.Reason, suffix) {
		return "", false
	}
	name, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(se.Reason, prefix), suffix))
	if err != nil {
		return "", false
	}
	return name, true
}

// unknownFieldIssue is the issue for the field name of the object at parent,
// whose schema is object: its path, and the closest documented field at the
// same level when one is close enough to be a slip of the keyboard.
func unknownFieldIssue(parent []string, name string, object *openapi3.Schema) validationIssue {
	if name == "" {
		// A member with an empty name: there is no name to show, so the
		// issue is the object's (the body's at the top).
		path := strings.Join(parent, ".")
		if path == "" {
			path = "body"
		}
		return validationIssue{path: path, message: "has a member with an empty name, which is no field of this request", unknown: true}
	}
	path := strings.Join(append(slices.Clip(parent), shortName(name)), ".")
	is := validationIssue{path: path, message: "is not a field of this request", unknown: true}
	if object == nil {
		return is
	}
	if best := closestName(name, object.Properties); best != "" {
		is.suggestion = strings.Join(append(slices.Clip(parent), best), ".")
		is.message += "; did you mean " + is.suggestion + "?"
	}
	return is
}

// maxEchoedName bounds how much of an unknown field's name an error repeats:
// a name can be as long as the body, and the answer must stay small.
const maxEchoedName = 64

// shortName is name, cut to maxEchoedName runes with an ellipsis when longer.
func shortName(name string) string {
	if utf8.RuneCountInString(name) <= maxEchoedName {
		return name
	}
	return string([]rune(name)[:maxEchoedName]) + "…"
}

// withoutTypoEchoes drops the "is required" of a field that an unknown field
// is suggested for: a client that wrote toAddress.stret1 did send the street,
// under the wrong name, and one issue saying so (with the right name) is the
// answer to act on, where two would make it look like two mistakes.
func withoutTypoEchoes(issues []validationIssue) []validationIssue {
	suggested := map[string]bool{}
	for _, is := range issues {
		if is.unknown && is.suggestion != "" {
			suggested[is.suggestion] = true
		}
	}
	if len(suggested) == 0 {
		return issues
	}
	return slices.DeleteFunc(issues, func(is validationIssue) bool { return is.missing && suggested[is.path] })
}

// closestName returns the name of known closest to name by edit distance
// (Damerau–Levenshtein, optimal string alignment), compared without case,
// underscores or hyphens so that service_category and ServiceCategory find
// serviceCategory; "" when none is within a third of the name's length (at
// least one edit, at most three). Ties go to the first name in sort order,
// so the answer is the same on every run.
func closestName[V any](name string, known map[string]V) string {
	target := foldName(name)
	n := utf8.RuneCountInString(target)
	limit := min(max(n/3, 1), 3)
	best, bestDist := "", limit+1
	for k := range known {
		candidate := foldName(k)
		if abs(utf8.RuneCountInString(candidate)-n) > limit {
			continue // too far apart in length alone; this also bounds the work a hostile name can cause
		}
		if d := editDistance(target, candidate); d < bestDist || d == bestDist && k < best {
			best, bestDist = k, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of two neighbouring letters
// that turn one into the other. Field names are short, so the full table is
// cheap; the name a client sent is bounded by the body limit, and the caller
// only compares it with the dozen names of one object.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
