package server

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// refuseNUL answers a request carrying U+0000 before anything stores or
// looks it up: PostgreSQL's text cannot hold it (every such query fails, a
// 500), while SQLite keeps it, so without this check the two backends would
// answer the same request differently. A path id with NUL names nothing (404
// not_found); a query parameter or a body string with NUL is 422
// invalid_field naming it. Header values need no check: Go's HTTP server
// refuses NUL in them before any handler runs.
func (s *Server) refuseNUL(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if hasNUL(req.URL.Path) || slices.ContainsFunc(c.ParamValues(), hasNUL) {
			return newAPIError(http.StatusNotFound, "not_found", "no such resource")
		}
		if strings.Contains(req.URL.RawQuery, "%00") || hasNUL(req.URL.RawQuery) {
			query := req.URL.Query()
			for _, name := range slices.Sorted(maps.Keys(query)) {
				if hasNUL(name) || name == "" {
					// No usable name to report: the query is the field.
					return nulError("query")
				}
				if slices.ContainsFunc(query[name], hasNUL) {
					return nulError(name)
				}
			}
		}
		op := s.ops[routeKey(req.Method, c.Path())]
		if op == nil || !op.hasBody || req.Body == nil {
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
			return nulError(field)
		}
		return next(c)
	}
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// nulError names the field whose value holds NUL.
func nulError(field string) *apiError {
	return newAPIError(http.StatusUnprocessableEntity, "invalid_field",
		field+": must not contain the NUL character (U+0000)").withField(field)
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
