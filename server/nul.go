package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// refuseUnstorableText answers a request carrying text PostgreSQL cannot
// store before anything stores or looks it up: U+0000, which its text
// cannot hold, and bytes that are not UTF-8 ("invalid byte sequence for
// encoding UTF8", SQLSTATE 22021). Every such query fails there, a 500,
// while SQLite keeps both, so without this check the two backends would
// answer the same request differently. A path id with either names nothing
// (404 not_found); a query parameter with either is 422 invalid_field
// naming it; a body string with NUL is 422 invalid_field naming it, and a
// body that is not UTF-8 is not JSON (400 invalid_json). Header values need
// no check: Go's HTTP server refuses NUL in them, and no header's value is
// stored or looked up as text (tokens and session cookies are hashed or
// refused by their own format first).
func (s *Server) refuseUnstorableText(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if unstorable(req.URL.Path) || slices.ContainsFunc(c.ParamValues(), unstorable) {
			return newAPIError(http.StatusNotFound, "not_found", "no such resource")
		}
		if raw := req.URL.RawQuery; strings.Contains(raw, "%") || unstorable(raw) {
			query := req.URL.Query()
			for _, name := range slices.Sorted(maps.Keys(query)) {
				if unstorable(name) {
					// No usable name to report: the query is the field.
					return textError("query", name)
				}
				if i := slices.IndexFunc(query[name], unstorable); i >= 0 {
					field := name
					if field == "" {
						field = "query"
					}
					return textError(field, query[name][i])
				}
			}
		}
		op := s.ops[routeKey(req.Method, c.Path())]
		if op == nil || !op.hasBody || op.csvBody || req.Body == nil {
			// A CSV body (a rate sheet) is stored sealed, whatever bytes it
			// holds; its validator refuses a field that is not UTF-8 or
			// holds a control character, at its line and column.
			return next(c)
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			if isBodyTooLarge(err) {
				return payloadTooLarge(s.bodyLimit(op))
			}
			return newAPIError(http.StatusBadRequest, "invalid_json", "the request body could not be read")
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		if !utf8.Valid(body) {
			return newAPIError(http.StatusBadRequest, "invalid_json",
				fmt.Sprintf("the request body is not valid JSON: JSON text is UTF-8, and byte %d is not", invalidUTF8At(body)))
		}
		// A NUL can only be in valid JSON as the escape \u0000 (a raw NUL
		// byte makes the JSON invalid, which validation answers with 400),
		// so a body without the escape needs no decoding.
		if !bytes.Contains(body, []byte(`\u0000`)) {
			return next(c)
		}
		var v any
		if json.Unmarshal(body, &v) != nil {
			return next(c)
		}
		if field, found := nulField(v, ""); found {
			return textError(field, "\x00")
		}
		return next(c)
	}
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// unstorable reports whether s is text PostgreSQL cannot store: NUL, or
// not UTF-8.
func unstorable(s string) bool { return hasNUL(s) || !utf8.ValidString(s) }

// textError names the field whose value is unstorable text.
func textError(field, value string) *apiError {
	msg := field + ": must not contain the NUL character (U+0000)"
	if !utf8.ValidString(value) {
		msg = field + ": must be UTF-8 text (percent-encoded bytes that are not UTF-8 were sent)"
	}
	return newAPIError(http.StatusUnprocessableEntity, "invalid_field", msg).withField(field)
}

// invalidUTF8At is the offset of the first byte of b that is not UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// nulField finds the first string in v holding NUL, in the order of sorted
// member names, and names it as validation names fields (items.0.description);
// a member name with NUL is reported as the object holding it ("body" at the top).
func nulField(v any, path string) (string, bool) {
	here := path
	if here == "" {
		here = "body"
	}
	switch v := v.(type) {
	case string:
		return here, hasNUL(v)
	case []any:
		for i, item := range v {
			if field, found := nulField(item, fieldPath(path, strconv.Itoa(i))); found {
				return field, true
			}
		}
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if hasNUL(name) {
				return here, true
			}
			if field, found := nulField(v[name], fieldPath(path, name)); found {
				return field, true
			}
		}
	}
	return "", false
}

func fieldPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
