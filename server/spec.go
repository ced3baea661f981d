package server

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// BasePath is where the contract's operations are served.
const BasePath = "/api/v1"

// operation is what the middleware needs to know of a route: the contract's
// operation (for validation) and the scope it requires (from x-required-scope,
// so the contract stays the only table of scopes).
type operation struct {
	route         *routers.Route
	requiredScope string // "" for operations without security
	rateLimit     Group  // from x-rate-limit-group; "" for operations without security
	public        bool
	hasBody       bool
	// csvBody: the body is text/csv (a rate sheet), not JSON; the domain
	// reads and judges it.
	csvBody bool
	// maxBody caps the request body (x-max-body-bytes; 0: the server's MaxBodyBytes).
	maxBody int64
	// idempotent: the request body takes an idempotencyKey (read from the
	// contract's schema, the only list of such operations).
	idempotent bool
	// onceQuery names the query parameters the contract gives one value
	// (not arrays): ?limit=1&limit=100 is refused rather than guessed at.
	onceQuery []string
	// nothingToValidate: the contract leaves nothing that a request routed
	// here could get wrong: no body, and only path parameters that are any
	// string (the router matched a non-empty one). kin-openapi's validation
	// could not fail, and was a twentieth of a GET /labels/{id}'s CPU.
	nothingToValidate bool
}

// anyPathString reports whether p is a path parameter whose schema takes
// any string.
func anyPathString(p *openapi3.ParameterRef) bool {
	if p == nil || p.Value == nil || p.Value.In != openapi3.ParameterInPath || p.Value.Schema == nil || p.Value.Schema.Value == nil {
		return false
	}
	v := p.Value.Schema.Value
	return v.Type.Is(openapi3.TypeString) && v.Pattern == "" && v.Format == "" && len(v.Enum) == 0 &&
		v.MinLength <= 1 && v.MaxLength == nil && v.Not == nil && len(v.AllOf)+len(v.AnyOf)+len(v.OneOf) == 0 && p.Value.Content == nil
}

// operations indexes the contract by Echo route ("GET /api/v1/labels/:id").
type operations map[string]*operation

func loadOperations(doc *openapi3.T) (operations, error) {
	doc.SetStringFormatValidators(timeFormats())
	ops := operations{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := &operation{
				route:   &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op},
				public:  op.Security != nil && len(*op.Security) == 0,
				hasBody: op.RequestBody != nil,
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
					_, o.idempotent = mt.Schema.Value.Properties["idempotencyKey"]
				}
				_, csv := rb.Value.Content["text/csv"]
				o.csvBody = csv && rb.Value.Content.Get("application/json") == nil
			}
			o.nothingToValidate = !o.hasBody
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if !anyPathString(p) {
					o.nothingToValidate = false
				}
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery && p.Value.Schema != nil && p.Value.Schema.Value != nil && !p.Value.Schema.Value.Type.Is(openapi3.TypeArray) {
					o.onceQuery = append(o.onceQuery, p.Value.Name)
				}
			}
			if v, ok := op.Extensions["x-max-body-bytes"]; ok {
				n, ok := v.(float64) // JSON numbers decode as float64
				if !ok || n <= 0 || n != float64(int64(n)) {
					return nil, fmt.Errorf("%s %s: x-max-body-bytes %v is not a positive integer", method, path, v)
				}
				o.maxBody = int64(n)
			}
			group, hasGroup := op.Extensions["x-rate-limit-group"].(string)
			if o.public {
				if hasGroup {
					return nil, fmt.Errorf("%s %s: an operation without security has an x-rate-limit-group", method, path)
				}
			} else {
				scope, ok := op.Extensions["x-required-scope"].(string)
				if !ok || scope == "" {
					return nil, fmt.Errorf("%s %s: no x-required-scope in the contract", method, path)
				}
				o.requiredScope = scope
				if !slices.Contains(Groups, Group(group)) {
					return nil, fmt.Errorf("%s %s: x-rate-limit-group %q is not one of %v", method, path, group, Groups)
				}
				o.rateLimit = Group(group)
			}
			ops[routeKey(method, BasePath+echoPath(path))] = o
		}
	}
	return ops, nil
}

func routeKey(method, echoRoute string) string { return strings.ToUpper(method) + " " + echoRoute }

// echoPath turns /labels/{id} into /labels/:id, as Echo registers it.
func echoPath(p string) string {
	var b strings.Builder
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			b.WriteString(":" + seg[1:len(seg)-1])
			continue
		}
		if i := strings.Index(seg, "}"); strings.HasPrefix(seg, "{") && i > 0 {
			b.WriteString(":" + seg[1:i] + seg[i+1:])
			continue
		}
		b.WriteString(seg)
	}
	return b.String()
}

// timeFormats validates the contract's dates and times by parsing them, as
// the handlers' binding does: the regular expressions kin-openapi checks by
// default let 2026-02-30 through, which binding then refuses with Go's
// parse error and no field. Both are refused where they stand instead, with
// the words of schemaMessage.
func timeFormats() map[string]openapi3.StringFormatValidator {
	parses := func(layout string) openapi3.StringFormatValidator {
		return openapi3.NewCallbackValidator(func(s string) error {
			_, err := time.Parse(layout, s)
			return err
		})
	}
	return map[string]openapi3.StringFormatValidator{
		"date":      parses(time.DateOnly),
		"date-time": parses(time.RFC3339),
	}
}
