package apidoc

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// ErrMismatch is wrapped by every *MismatchError.
var ErrMismatch = errors.New("apidoc: does not match the document")

// MismatchError is a request or an answer that breaks the documented
// operation, with each problem found.
type MismatchError struct {
	Operation Operation
	// Subject is "request" or "answer 200" (with the answer's status).
	Subject  string
	Problems []Problem
}

// Problem is one way a request or an answer breaks its operation.
type Problem struct {
	// In is where: "body", "path", "query", "header" or "status".
	In string
	// Name is the parameter or header, when In is one.
	Name string
	// Pointer is the JSON pointer of the value within the body or the
	// parameter ("/RateRequest/Shipment/Package/0"); empty for the whole.
	Pointer string
	// Reason says what is wrong, and with what value when it is short.
	Reason string
}

func (p Problem) String() string {
	where := p.In
	if p.Name != "" {
		where += " " + strconv.Quote(p.Name)
	}
	if p.Pointer != "" {
		where += " " + p.Pointer
	}
	return where + ": " + p.Reason
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s of %s does not match the document:", e.Subject, e.Operation)
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p.String())
	}
	return b.String()
}

func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Except returns err without the problems excused says are known, or nil
// when no problem is left. An err that is not a *MismatchError is returned
// unchanged. Tests use it for narrow, documented exceptions.
func Except(err error, excused func(Operation, Problem) bool) error {
	var me *MismatchError
	if !errors.As(err, &me) {
		return err
	}
	left := &MismatchError{Operation: me.Operation, Subject: me.Subject}
	for _, p := range me.Problems {
		if !excused(me.Operation, p) {
			left.Problems = append(left.Problems, p)
		}
	}
	if len(left.Problems) == 0 {
		return nil
	}
	return left
}

// options are the validation options of every check: all problems at once,
// no authentication (the fakes' tokens are not the carriers'; the scheme
// is the adapters' oauth package's business), nothing written back into
// the request, and an undocumented answer status is a problem.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		MultiError:                        true,
		AuthenticationFunc:                openapi3filter.NoopAuthenticationFunc,
		SkipSettingDefaults:               true,
		RejectWhenRequestBodyNotSpecified: true,
		IncludeResponseStatus:             true,
	}
}

// Operation returns the documented operation r is addressed to, or an error
// wrapping ErrUndocumented.
func (s *Set) Operation(r *http.Request) (Operation, error) {
	rt, _, err := s.find(r.Method, r.URL)
	if err != nil {
		return Operation{}, err
	}
	return rt.operation(), nil
}

// CheckRequest checks a request's method, path, query, headers and body
// against the operation it is addressed to. body is the request's body,
// read by the caller; r.Body is not read.
func (s *Set) CheckRequest(r *http.Request, body []byte) error {
	rt, params, err := s.find(r.Method, r.URL)
	if err != nil {
		return err
	}
	input := &openapi3filter.RequestValidationInput{
		Request: withBody(r, body), PathParams: params, Route: &rt.kin, Options: options(),
	}
	err = openapi3filter.ValidateRequest(r.Context(), input)
	return mismatch(rt, "request", err)
}

// CheckRequestBody checks a request body alone against the operation that
// method and path (a URL path, as the adapter sends it) are addressed to;
// for golden files, which hold bodies without headers.
func (s *Set) CheckRequestBody(method, path, contentType string, body []byte) error {
	u, err := url.Parse(path)
	if err != nil {
		return fmt.Errorf("%w: %q is not a URL path: %w", ErrUndocumented, path, err)
	}
	rt, params, err := s.find(method, u)
	if err != nil {
		return err
	}
	if rt.kin.Operation.RequestBody == nil || rt.kin.Operation.RequestBody.Value == nil {
		return &MismatchError{Operation: rt.operation(), Subject: "request", Problems: []Problem{
			{In: "body", Reason: "the operation documents no request body"}}}
	}
	r, err := http.NewRequest(method, u.String(), nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUndocumented, err)
	}
	r.Header.Set("Content-Type", contentType)
	input := &openapi3filter.RequestValidationInput{
		Request: withBody(r, body), PathParams: params, Route: &rt.kin, Options: options(),
	}
	err = openapi3filter.ValidateRequestBody(r.Context(), input, rt.kin.Operation.RequestBody.Value)
	return mismatch(rt, "request", err)
}

// CheckResponse checks an answer (status, headers, body) against what the
// operation r is addressed to documents for that status. A status the
// operation does not document (nor a "default") is a problem: a fake
// answering one is worth knowing about; callers skip the faults they inject.
func (s *Set) CheckResponse(r *http.Request, status int, header http.Header, body []byte) error {
	rt, params, err := s.find(r.Method, r.URL)
	if err != nil {
		return err
	}
	opts := options()
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: &rt.kin, Options: opts,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: opts,
	}
	err = openapi3filter.ValidateResponse(r.Context(), input)
	return mismatch(rt, "answer "+strconv.Itoa(status), err)
}

// withBody is a copy of r whose body is body, so validation reads neither
// r's body nor leaves it read.
func withBody(r *http.Request, body []byte) *http.Request {
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.ContentLength = int64(len(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return c
}

// mismatch turns a kin-openapi validation error into a *MismatchError.
func mismatch(rt *route, subject string, err error) error {
	if err == nil {
		return nil
	}
	var problems []Problem
	collect(&problems, Problem{}, err)
	problems = dedupe(problems)
	// kin-openapi's order depends on map iteration in places; a stable
	// order keeps messages and tests comparable.
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(placeRank(a.In), placeRank(b.In)),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Pointer, b.Pointer))
	})
	return &MismatchError{Operation: rt.operation(), Subject: subject, Problems: problems}
}

// placeRank orders problems the way a request reads: the path first, the
// body last; an answer's status before its headers.
func placeRank(in string) int {
	switch in {
	case "path":
		return 0
	case "query":
		return 1
	case "status":
		return 2
	case "header":
		return 3
	}
	return 4
}

// collect flattens err into problems; at says where err was found.
func collect(problems *[]Problem, at Problem, err error) {
	var (
		multi     openapi3.MultiError
		reqErr    *openapi3filter.RequestError
		respErr   *openapi3filter.ResponseError
		schemaErr *openapi3.SchemaError
		parseErr  *openapi3filter.ParseError
	)
	switch {
	case asDirect(err, &multi):
		for _, e := range multi {
			collect(problems, at, e)
		}
	case asDirect(err, &reqErr):
		if p := reqErr.Parameter; p != nil {
			at.In, at.Name = p.In, p.Name
		} else {
			at.In = "body"
		}
		if reqErr.Err == nil {
			*problems = append(*problems, with(at, reqErr.Reason))
			return
		}
		collect(problems, at, reqErr.Err)
	case asDirect(err, &respErr):
		switch {
		case strings.Contains(respErr.Reason, "status is not supported"):
			at.In = "status"
			*problems = append(*problems, with(at, "the status is not documented for this operation"))
			return
		case strings.Contains(respErr.Reason, "Content-Type"):
			at.In, at.Name = "header", "Content-Type"
		case strings.Contains(respErr.Reason, "header"):
			at.In = "header"
		default:
			at.In = "body"
		}
		if respErr.Err == nil {
			*problems = append(*problems, with(at, respErr.Reason))
			return
		}
		collect(problems, at, respErr.Err)
	case asDirect(err, &schemaErr):
		here := at
		if ptr := schemaErr.JSONPointer(); len(ptr) > 0 {
			here.Pointer += "/" + strings.Join(ptr, "/")
		}
		var alternatives openapi3.MultiError
		switch o := schemaErr.Origin; {
		case o != nil && isStructured(o):
			collect(problems, here, o)
			return
		// kin-openapi marks the errors of oneOf's alternatives and of
		// allOf's parts with the full path, as it marks the error itself:
		// they start from at, not here.
		case schemaErr.SchemaField == "oneOf" && errors.As(o, &alternatives):
			*problems = append(*problems, closest(at, alternatives)...)
			return
		case schemaErr.SchemaField == "allOf" && errors.As(o, &alternatives):
			collect(problems, at, alternatives)
			return
		}
		reason := schemaErr.Reason
		if reason == "" {
			reason = "does not match the schema's " + schemaErr.SchemaField
		}
		if o := schemaErr.Origin; o != nil {
			reason += ": " + o.Error()
		}
		if v := short(schemaErr.Value); v != "" {
			reason += " (got " + v + ")"
		}
		*problems = append(*problems, with(here, reason))
	case asDirect(err, &parseErr):
		if p := parseErr.Path(); len(p) > 0 {
			for _, k := range p {
				at.Pointer += "/" + fmt.Sprint(k)
			}
		}
		reason := parseErr.Reason
		if c := parseErr.RootCause(); c != nil {
			if reason != "" {
				reason += ": "
			}
			reason += c.Error()
		}
		*problems = append(*problems, with(at, reason))
	default:
		if at.In == "" {
			at.In = "body"
		}
		*problems = append(*problems, with(at, err.Error()))
	}
}

// closest returns the problems of the oneOf alternative the value came
// closest to matching, each reason saying so: listing every alternative's
// problems would mostly say the value is not the alternatives it was never
// meant to be. Closest is the alternative whose problems lie deepest in the
// value (it matched the most structure), then the one with fewest problems.
func closest(at Problem, alternatives openapi3.MultiError) []Problem {
	var best []Problem
	bestDepth := -1
	for _, alt := range alternatives {
		var ps []Problem
		collect(&ps, at, alt)
		depth := 0
		for _, p := range ps {
			depth = max(depth, strings.Count(p.Pointer, "/"))
		}
		if depth > bestDepth || (depth == bestDepth && len(ps) < len(best)) {
			best, bestDepth = ps, depth
		}
	}
	if len(alternatives) < 2 {
		return best
	}
	suffix := fmt.Sprintf(` (in the closest of %d "oneOf" alternatives)`, len(alternatives))
	for i := range best {
		best[i].Reason += suffix
	}
	return best
}

func with(at Problem, reason string) Problem {
	at.Reason = reason
	return at
}

// asDirect is errors.As for err itself, not what it wraps: a RequestError
// wraps SchemaErrors, and the outer one says where.
func asDirect[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
}

// isStructured reports whether err is one collect reads field by field.
func isStructured(err error) bool {
	switch err.(type) {
	case openapi3.MultiError, *openapi3.SchemaError:
		return true
	}
	return false
}

// short renders a scalar value for a problem's reason; objects and arrays
// are left out, their pointer already says where they are.
func short(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		if len(x) > 60 {
			x = x[:57] + "..."
		}
		return strconv.Quote(x)
	case bool, float64, int, int64, uint64:
		return fmt.Sprint(x)
	}
	return ""
}

func dedupe(problems []Problem) []Problem {
	seen := make(map[Problem]bool, len(problems))
	out := problems[:0]
	for _, p := range problems {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Exception excuses one problem a document reports where the document, not
// the adapter or the fake, is wrong. Tests list them, each with its reason.
type Exception struct {
	// Document and Path name the operation: the document's file name and
	// the path as documented.
	Document, Path string
	// In, Name and Pointer say where, as in Problem; a "*" segment of
	// Pointer stands for any array index.
	In, Name, Pointer string
	// Reason is how the problem's reason starts.
	Reason string
}

// Excuses reports whether e excuses problem p of operation op.
func (e Exception) Excuses(op Operation, p Problem) bool {
	return op.Document == e.Document && op.Path == e.Path && p.In == e.In && p.Name == e.Name &&
		pointerMatches(e.Pointer, p.Pointer) && strings.HasPrefix(p.Reason, e.Reason)
}

// Excusing returns, for Except, what excuses the problems any of
// exceptions excuses.
func Excusing(exceptions ...Exception) func(Operation, Problem) bool {
	return func(op Operation, p Problem) bool {
		for _, e := range exceptions {
			if e.Excuses(op, p) {
				return true
			}
		}
		return false
	}
}

// pointerMatches compares JSON pointers, a "*" segment of pattern matching
// any array index.
func pointerMatches(pattern, pointer string) bool {
	want, got := strings.Split(pattern, "/"), strings.Split(pointer, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] == got[i] {
			continue
		}
		if _, err := strconv.Atoi(got[i]); want[i] != "*" || err != nil {
			return false
		}
	}
	return true
}
