package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/gen"
)

// validateRequest checks the request against the contract before any handler
// runs. Unparsable JSON is 400 invalid_json; everything else is 422, shaped by
// how many problems there are (see validationError).
func (s *Server) validateRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		if op == nil || op.nothingToValidate {
			return next(c)
		}
		req := c.Request()
		if len(op.onceQuery) > 0 {
			query := req.URL.Query()
			for _, name := range op.onceQuery {
				if n := len(query[name]); n > 1 {
					return validationIssuesError([]validationIssue{{path: name, message: fmt.Sprintf("is given %d times; give it once", n)}}, 0)
				}
			}
		}
		if op.csvBody {
			// A CSV body is read as CSV whatever its Content-Type says
			// (curl --data-binary sends another), and its rows are judged
			// by the domain's validator, which says at which line and
			// column a mistake is: kin-openapi's CSV decoder would only
			// say that it is one. It is read here for the limit's 413.
			body, err := io.ReadAll(req.Body)
			if err != nil {
				if isBodyTooLarge(err) {
					return payloadTooLarge(s.bodyLimit(op))
				}
				return newAPIError(http.StatusBadRequest, "invalid_json", "the request body could not be read")
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		} else if op.hasBody {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				if isBodyTooLarge(err) {
					return payloadTooLarge(s.bodyLimit(op))
				}
				return newAPIError(http.StatusBadRequest, "invalid_json", "the request body could not be read")
			}
			if err := checkJSONBody(req, body, op.route.Operation.RequestBody.Value.Required); err != nil {
				return err
			}
			if err := checkArraySizes(op, body); err != nil {
				return err
			}
			if op.idempotent && len(bytes.TrimSpace(body)) > 0 {
				if m, _ := req.Context().Value(responseKey).(*responseMeta); m != nil {
					if m.fingerprint, err = bodyFingerprint(body); err != nil {
						return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is not valid JSON")
					}
				}
			}
			body = op.normalizeIntegers(body)
			body = op.normalizeEnumBody(body) // enums.go
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		op.normalizeEnumQuery(req) // enums.go
		params := map[string]string{}
		for i, name := range c.ParamNames() {
			params[name] = c.ParamValues()[i]
		}
		input := &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      op.route,
			Options: &openapi3filter.Options{
				MultiError:              true,
				AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
				SchemaValidationOptions: op.route.Spec.GetSchemaValidationOptions(), // timeFormats
				ExcludeRequestBody:      op.csvBody,
			},
		}
		if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
			return validationError(err)
		}
		if req.GetBody != nil {
			req.Body, _ = req.GetBody()
		}
		return next(c)
	}
}

func checkJSONBody(req *http.Request, body []byte, required bool) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		if required {
			return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is empty; send a JSON object")
		}
		return nil
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return newAPIError(http.StatusBadRequest, "invalid_json", "send the body as JSON with Content-Type: application/json")
	}
	if !json.Valid(body) {
		return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is not valid JSON"+syntaxErrorPosition(body))
	}
	if bytes.TrimSpace(body)[0] != '{' {
		return newAPIError(http.StatusBadRequest, "invalid_json", "the request body must be a JSON object")
	}
	return nil
}

// syntaxErrorPosition says what is wrong with invalid JSON and where, as a
// person finds it in an editor: ": invalid character '}' looking for
// beginning of object key string at line 3, column 5". The column counts
// characters, not bytes; the end of the body is the position after its last
// character.
func syntaxErrorPosition(body []byte) string {
	var se *json.SyntaxError
	if err := json.Unmarshal(body, new(json.RawMessage)); !errors.As(err, &se) {
		return ""
	}
	// Offset counts the bytes read when the error was found: the character
	// at fault is the last of them, unless the body ended early.
	at := min(int(se.Offset), len(body))
	if at > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
		at--
	}
	line := 1 + bytes.Count(body[:at], []byte("\n"))
	lineStart := bytes.LastIndexByte(body[:at], '\n') + 1
	column := 1 + utf8.RuneCount(body[lineStart:at])
	return fmt.Sprintf(": %s at line %d, column %d", se.Error(), line, column)
}

// checkArraySizes refuses an array longer than its schema's maxItems before
// anything looks at its items: validating a million wrong items would cost
// seconds where counting them costs little. The body is walked as raw JSON,
// so no item is decoded.
func checkArraySizes(op *operation, body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	mt := op.route.Operation.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	if path, limit, n := tooLongArray(mt.Schema.Value, body, nil); path != "" {
		return newAPIError(http.StatusUnprocessableEntity, "invalid_field",
			fmt.Sprintf("%s: must have at most %d items (has %d)", path, limit, n)).withField(path)
	}
	return nil
}

// tooLongArray finds the first array of raw longer than its schema allows and
// returns its dot-separated path, its limit and its length. It scans the raw
// JSON (already known to be valid) without decoding anything, so a hostile
// array costs one pass over its bytes.
func tooLongArray(schema *openapi3.Schema, raw []byte, path []string) (string, uint64, int) {
	if schema == nil || !hasArrays(schema) {
		return "", 0, 0
	}
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "", 0, 0
	}
	switch raw[0] {
	case '[':
		n, found := 0, ""
		var limit uint64
		var length int
		eachElement(raw, func(item []byte) bool {
			n++
			if schema.MaxItems != nil && uint64(n) > *schema.MaxItems {
				return false // too long already: no need to look further
			}
			if schema.Items != nil && found == "" {
				found, limit, length = tooLongArray(schema.Items.Value, item, append(path, strconv.Itoa(n-1)))
			}
			return true
		})
		if schema.MaxItems != nil && uint64(n) > *schema.MaxItems {
			return strings.Join(path, "."), *schema.MaxItems, countElements(raw)
		}
		return found, limit, length
	case '{':
		found := ""
		var limit uint64
		var length int
		eachMember(raw, func(name string, value []byte) bool {
			if prop := schema.Properties[name]; prop != nil {
				found, limit, length = tooLongArray(prop.Value, value, append(path, name))
			}
			return found == ""
		})
		return found, limit, length
	}
	return "", 0, 0
}

// normalizeIntegers rewrites the numbers the contract types as integers but
// the client wrote with a fraction or an exponent (1.0, 1e2, 100.000): JSON
// Schema counts them as integers, and so does shipd, while Go's decoder
// would refuse them. A number that is not a whole one (1.5) is left for
// validation to refuse; a body with nothing to rewrite is returned as is.
func (op *operation) normalizeIntegers(body []byte) []byte {
	mt := op.route.Operation.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || !bytes.ContainsAny(body, ".eE") {
		return body
	}
	var spans [][2]int // start and end of each literal to rewrite
	var walk func(schema *openapi3.Schema, raw []byte, depth int)
	walk = func(schema *openapi3.Schema, raw []byte, depth int) {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if schema == nil || len(raw) == 0 || depth > 16 {
			return
		}
		switch c := raw[0]; {
		case c == '{':
			eachMember(raw, func(name string, value []byte) bool {
				if prop := schema.Properties[name]; prop != nil {
					walk(prop.Value, value, depth+1)
				}
				return true
			})
		case c == '[' && schema.Items != nil:
			eachElement(raw, func(item []byte) bool { walk(schema.Items.Value, item, depth+1); return true })
		case (c == '-' || c >= '0' && c <= '9') && schema.Type.Is(openapi3.TypeInteger) && bytes.ContainsAny(raw, ".eE"):
			start := cap(body) - cap(raw) // raw is a slice of body
			spans = append(spans, [2]int{start, start + len(raw)})
		}
	}
	walk(mt.Schema.Value, body, 0)
	if len(spans) == 0 {
		return body
	}
	out := make([]byte, 0, len(body))
	last := 0
	for _, sp := range spans {
		r, ok := new(big.Rat).SetString(string(body[sp[0]:sp[1]]))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			continue
		}
		out = append(append(out, body[last:sp[0]]...), r.Num().String()...)
		last = sp[1]
	}
	return append(out, body[last:]...)
}

// hasArrays reports whether a schema has an array anywhere in it.
func hasArrays(schema *openapi3.Schema) bool {
	return hasArraysDepth(schema, 8)
}

func hasArraysDepth(schema *openapi3.Schema, depth int) bool {
	if schema == nil || depth == 0 {
		return false
	}
	if schema.Type.Is("array") || schema.Items != nil {
		return true
	}
	for _, prop := range schema.Properties {
		if prop != nil && hasArraysDepth(prop.Value, depth-1) {
			return true
		}
	}
	return false
}

// skipValue returns the length of the JSON value at the start of b (b is valid JSON).
func skipValue(b []byte) int {
	switch b[0] {
	case '"':
		for i := 1; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return len(b)
	case '[', '{':
		depth := 0
		for i := 0; i < len(b); i++ {
			switch b[i] {
			case '"':
				i += skipValue(b[i:]) - 1
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	i := 0
	for i < len(b) && !strings.ContainsRune(",]} \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// eachElement calls fn with each element of the array at the start of b, until fn returns false.
func eachElement(b []byte, fn func(item []byte) bool) {
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		n := skipValue(b[i:])
		if !fn(b[i : i+n]) {
			return
		}
		i = skipSpace(b, i+n)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// countElements counts the elements of the array at the start of b.
func countElements(b []byte) int {
	n := 0
	eachElement(b, func([]byte) bool { n++; return true })
	return n
}

// eachMember calls fn with each member of the object at the start of b, until fn returns false.
func eachMember(b []byte, fn func(name string, value []byte) bool) {
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		n := skipValue(b[i:])
		var name string
		if json.Unmarshal(b[i:i+n], &name) != nil {
			return
		}
		i = skipSpace(b, i+n)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return
		}
		v := skipValue(b[i:])
		if !fn(name, b[i:i+v]) {
			return
		}
		i = skipSpace(b, i+v)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// validationIssue is one problem found by validation.
type validationIssue struct {
	path    string
	message string
	missing bool
	// unknown marks a field the contract does not have; suggestion is the
	// path of the documented field its name is closest to, if any is close.
	unknown    bool
	suggestion string
}

// maxReportedIssues bounds the issues an error lists: a hostile body with a
// million wrong items gets the first ones and a count, in milliseconds.
const maxReportedIssues = 50

// issueSet collects problems once each, in constant time per problem, and
// keeps the first maxReportedIssues.
type issueSet struct {
	list []validationIssue
	seen map[validationIssue]bool
	more int // problems beyond the cap
}

// full reports whether another new problem would only be counted.
func (s *issueSet) full() bool { return len(s.list) >= maxReportedIssues }

func (s *issueSet) add(is validationIssue) {
	if s.seen[is] {
		return // kin-openapi can report one bound twice (minimum and exclusiveMinimum)
	}
	if len(s.list) >= maxReportedIssues {
		s.more++
		return
	}
	if s.seen == nil {
		s.seen = map[validationIssue]bool{}
	}
	s.seen[is] = true
	s.list = append(s.list, is)
}

// validationError shapes the problems: one missing field is missing_field, one
// wrong field invalid_field, several are invalid_request with every issue.
func validationError(err error) *apiError {
	var set issueSet
	collectIssues(err, &set)
	if len(set.list) == 0 {
		return newAPIError(http.StatusUnprocessableEntity, "invalid_request", "the request does not match the contract")
	}
	return validationIssuesError(withoutTypoEchoes(set.list), set.more)
}

func validationIssuesError(issues []validationIssue, more int) *apiError {
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].path < issues[j].path })
	if len(issues) == 1 && more == 0 {
		is := issues[0]
		if is.missing || is.unknown {
			code := "missing_field"
			if is.unknown {
				code = "invalid_field"
			}
			return newAPIError(http.StatusUnprocessableEntity, code, is.path+" "+is.message).withField(is.path)
		}
		return newAPIError(http.StatusUnprocessableEntity, "invalid_field", is.path+": "+is.message).withField(is.path)
	}
	msg := fmt.Sprintf("the request has %d problems; see issues", len(issues))
	if more > 0 {
		msg = fmt.Sprintf("the request has %d problems; issues lists the first %d, %d more are not listed", len(issues)+more, len(issues), more)
	}
	e := newAPIError(http.StatusUnprocessableEntity, "invalid_request", msg)
	list := make([]gen.ValidationIssue, len(issues))
	for i, is := range issues {
		list[i] = gen.ValidationIssue{Path: is.path, Message: is.message}
	}
	e.Body.Issues = &list
	return e
}

// collectIssues flattens kin-openapi's error tree into set. It switches on
// concrete types rather than errors.As because a RequestError unwraps to its
// inner MultiError, which would lose the parameter the errors belong to.
func collectIssues(err error, set *issueSet) {
	switch e := err.(type) {
	case openapi3.MultiError:
		for _, inner := range e {
			collectIssues(inner, set)
		}
		return
	case *openapi3filter.RequestError:
		if e.Parameter != nil {
			parameterIssues(e, set)
			return
		}
		if e.Err != nil {
			collectIssues(e.Err, set)
			return
		}
		set.add(validationIssue{path: "body", message: e.Reason})
		return
	case *openapi3.SchemaError:
		if name, ok := unknownProperty(e); ok {
			if set.full() {
				set.more++ // not listed: spare looking for its closest name
				return
			}
			set.add(unknownFieldIssue(e.JSONPointer(), name, e.Schema))
			return
		}
		path := strings.Join(e.JSONPointer(), ".")
		if e.SchemaField == "required" {
			set.add(validationIssue{path: path, message: "is required", missing: true})
			return
		}
		if path == "" {
			path = "body"
		}
		set.add(validationIssue{path: path, message: schemaMessage(e)})
		return
	}
	if u := errors.Unwrap(err); u != nil {
		collectIssues(u, set)
		return
	}
	set.add(validationIssue{path: "body", message: err.Error()})
}

func parameterIssues(re *openapi3filter.RequestError, set *issueSet) {
	name := re.Parameter.Name
	if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
		set.add(validationIssue{path: name, message: "is required", missing: true})
		return
	}
	var inner issueSet
	collectIssues(re.Err, &inner)
	for _, is := range inner.list {
		is.path = name
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			is.message = "must be " + article(strings.Join(re.Parameter.Schema.Value.Type.Slice(), " or "))
		}
		set.add(is)
	}
}

// schemaMessage words a schema failure for people; it never echoes the value.
func schemaMessage(se *openapi3.SchemaError) string {
	switch se.SchemaField {
	case "exclusiveMinimum", "minimum":
		if se.Schema != nil && se.Schema.Min != nil {
			if (se.Schema.ExclusiveMin.Bool != nil && *se.Schema.ExclusiveMin.Bool) || se.SchemaField == "exclusiveMinimum" {
				return fmt.Sprintf("number must be greater than %g", *se.Schema.Min)
			}
			return fmt.Sprintf("number must be at least %g", *se.Schema.Min)
		}
	case "pattern":
		if se.Schema != nil && se.Schema.Pattern == "^[A-Za-z]{2}$" {
			return "must be a two-letter ISO 3166-1 country code"
		}
	case "format":
		// The format's regular expression means nothing to the person a
		// client shows this to; the form it wants does.
		switch {
		case se.Schema == nil:
		case se.Schema.Format == "date":
			return "must be a date as YYYY-MM-DD, e.g. 2026-03-10"
		case se.Schema.Format == "date-time":
			return "must be an RFC 3339 time with its offset, e.g. 2026-12-01T09:00:00-05:00 (or Z for UTC)"
		}
	}
	return strings.ReplaceAll(se.Reason, "more than", "greater than")
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
