package contracttest

// The contract side of the harness: the document, its (operation, status)
// pairs, a router that finds a request's operation, and the check of one
// response against the contract.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/shipd-dev/shipd/openapi"
)

func init() {
	// kin-openapi decodes a body by its media type before validating it. The
	// contract has two media types it has no decoder for as the contract means
	// them: the label PDF (binary) and the YAML contract, whose schema is
	// `type: string` (the document's text), not the object the YAML decodes to.
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/yaml", openapi3filter.PlainBodyDecoder)
}

// loadContract parses the embedded openapi.yaml; with baseURL it replaces the
// servers with baseURL + /api/v1, so a router matches that deployment.
func loadContract(baseURL string) (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		return nil, fmt.Errorf("load openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml is not valid: %w", err)
	}
	if baseURL != "" {
		doc.Servers = openapi3.Servers{{URL: strings.TrimSuffix(baseURL, "/") + apiPrefix}}
	}
	return doc, nil
}

// apiPrefix is the contract's server path.
const apiPrefix = "/api/v1"

// opInfo is what the harness needs of one operation.
type opInfo struct {
	ID     string
	Method string
	Path   string // contract path, e.g. /labels/{id}
	Scope  string // x-required-scope; "" for public operations
	// RateGroup is x-rate-limit-group; "" when the operation is not rate limited.
	RateGroup string
	HasBody   bool
	Statuses  []int
}

// documents reports whether the operation lists status.
func (op *opInfo) documents(status int) bool { return slices.Contains(op.Statuses, status) }

// Pair is one documented (operation, status).
type Pair struct {
	Op     string
	Status int
}

func (p Pair) String() string { return fmt.Sprintf("%s %d", p.Op, p.Status) }

var methodOrder = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// operations lists the contract's operations by path, then method.
func operations(doc *openapi3.T) ([]opInfo, error) {
	var out []opInfo
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				return nil, fmt.Errorf("%s %s has no operationId", method, path)
			}
			info := opInfo{ID: op.OperationID, Method: method, Path: path, HasBody: op.RequestBody != nil}
			info.Scope, _ = op.Extensions["x-required-scope"].(string)
			info.RateGroup, _ = op.Extensions["x-rate-limit-group"].(string)
			for code := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil {
					return nil, fmt.Errorf("%s: response %q is not a status code the harness can provoke", op.OperationID, code)
				}
				info.Statuses = append(info.Statuses, n)
			}
			sort.Ints(info.Statuses)
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return slices.Index(methodOrder, out[i].Method) < slices.Index(methodOrder, out[j].Method)
	})
	return out, nil
}

// Contract is the loaded document with its operations indexed.
type Contract struct {
	Ops  []opInfo
	byID map[string]*opInfo
	// codes are the known error codes (ErrorCode's x-extensible-enum).
	codes map[string]bool
}

// KnownCode reports whether the contract lists code as an error code.
func (c *Contract) KnownCode(code string) bool { return c.codes[code] }

func newContract() (*Contract, error) {
	doc, err := loadContract("")
	if err != nil {
		return nil, err
	}
	ops, err := operations(doc)
	if err != nil {
		return nil, err
	}
	c := &Contract{Ops: ops, byID: map[string]*opInfo{}, codes: map[string]bool{}}
	for i := range c.Ops {
		c.byID[c.Ops[i].ID] = &c.Ops[i]
	}
	codes, _ := doc.Components.Schemas["ErrorCode"].Value.Extensions["x-extensible-enum"].([]any)
	for _, code := range codes {
		if s, ok := code.(string); ok {
			c.codes[s] = true
		}
	}
	if len(c.codes) == 0 {
		return nil, errors.New("the contract lists no error codes (ErrorCode's x-extensible-enum)")
	}
	return c, nil
}

// Op returns an operation by id.
func (c *Contract) Op(id string) (*opInfo, bool) {
	op, ok := c.byID[id]
	return op, ok
}

// Pairs lists every documented (operation, status) in matrix order.
func (c *Contract) Pairs() []Pair {
	var out []Pair
	for _, op := range c.Ops {
		for _, st := range op.Statuses {
			out = append(out, Pair{op.ID, st})
		}
	}
	return out
}

// Documented reports whether the contract lists status for op.
func (c *Contract) Documented(p Pair) bool {
	op, ok := c.byID[p.Op]
	return ok && op.documents(p.Status)
}

// checker validates exchanges with one deployment.
type checker struct {
	router routers.Router
}

func newChecker(baseURL string) (*checker, error) {
	doc, err := loadContract(baseURL)
	if err != nil {
		return nil, err
	}
	r, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router: %w", err)
	}
	return &checker{router: r}, nil
}

// check returns every way the exchange disagrees with the contract, given the
// operation it was meant to reach.
func (ck *checker) check(ctx context.Context, wantOp string, req *http.Request, status int, header http.Header, body []byte) []string {
	route, params, err := ck.router.FindRoute(req)
	if err != nil {
		return []string{fmt.Sprintf("%s %s matches no operation of the contract: %v", req.Method, req.URL.Path, err)}
	}
	var problems []string
	if route.Operation.OperationID != wantOp {
		problems = append(problems, fmt.Sprintf("the request reached operation %s, not %s", route.Operation.OperationID, wantOp))
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, input); err != nil {
		problems = append(problems, "response does not match the contract: "+describeValidation(err))
	}
	// kin-openapi skips the body when the contract declares no content; the
	// contract then promises none (204).
	if ref := route.Operation.Responses.Status(status); ref != nil && ref.Value != nil && len(ref.Value.Content) == 0 && len(body) > 0 {
		problems = append(problems, fmt.Sprintf("status %d has no content in the contract, but the response has a %d-byte body", status, len(body)))
	}
	return problems
}

// describeValidation flattens kin-openapi's error tree into one line per problem.
func describeValidation(err error) string {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		var me openapi3.MultiError
		if errors.As(err, &me) {
			for _, e := range me {
				walk(e)
			}
			return
		}
		var re *openapi3filter.ResponseError
		if errors.As(err, &re) && re.Err != nil {
			var inner openapi3.MultiError
			if errors.As(re.Err, &inner) {
				lines = append(lines, re.Reason+":")
				for _, e := range inner {
					walk(e)
				}
				return
			}
		}
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			path := strings.Join(se.JSONPointer(), ".")
			if path == "" {
				path = "(body)"
			}
			lines = append(lines, fmt.Sprintf("%s: %s", path, se.Reason))
			return
		}
		lines = append(lines, err.Error())
	}
	walk(err)
	return strings.Join(lines, "; ")
}

// errorBody is the part of the Error schema the harness checks itself.
type errorBody struct {
	Code          string `json:"code"`
	RequestID     string `json:"requestId"`
	RequiredScope string `json:"requiredScope"`
}

func decodeError(body []byte) (errorBody, error) {
	var e errorBody
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("the body is not a JSON error object: %v", err)
	}
	return e, nil
}
