// Package apidoc holds a carrier adapter to its carrier's published OpenAPI
// documents. Load reads the documents an adapter vendors under
// carriers/<carrier>/spec; the Set it returns checks a request the adapter
// sends, or an answer a fake gives, against the operation the request is
// addressed to, with kin-openapi's openapi3filter.
//
// Routing. The adapters' base URLs are hosts only (https://onlinetools.ups.com,
// a fake's http://127.0.0.1:port) while a document's paths sit below its
// servers' path (UPS's "https://onlinetools.ups.com/api", USPS's
// "https://apis.usps.com/labels/v3"). A request matches an operation when its
// path is one of the document's server paths followed by the operation's path
// template; the host is never compared, so the same Set serves production
// URLs, test environments and fakes. The Set routes itself instead of using
// kin-openapi's routers because the carriers' documents defeat both: UPS
// publishes every operation twice, "/rating/{version}/..." and a deprecated
// "/rating/{deprecatedVersion}/...", which legacy.NewRouter refuses as
// conflicting paths, and gorillamux matches the path before the method, so
// UPS's DELETE "/shipments/{version}/pickup/{CancelBy}" is found as the POST
// "/shipments/{version}/pickup/{pickuptype}" and refused. Here the method is
// part of the match, the template with the most literal text wins, and a
// deprecated operation loses to the current one it duplicates.
//
// Published documents are not always valid OpenAPI: UPS's have no
// info.version, declare patterns Go's regexp cannot compile and an array
// without items; FedEx's keep Swagger 2.0's "schemes" and examples that
// contradict their own schemas. Load therefore requires that a document
// parses as OpenAPI 3.x and resolves its references, and does not require it
// to pass kin-openapi's document validation, which validates none of what
// CheckRequest and CheckResponse compare. Swagger 2.0 documents are refused:
// none of the vendored documents is one.
//
// Two defects are repaired in memory, the files left as published:
//
//   - A "oneOf" alternative that says nothing but, at most, "type: object"
//     matches every object, so no object can match exactly one alternative
//     and the "oneOf" refuses every object. FedEx's rate-api.json has its
//     request body as a oneOf of the full schema and 22 such empty sample
//     payloads. Load drops those alternatives from a "oneOf" that has
//     others, so the body is held to the schema that has properties.
//   - "additionalProperties: false" beside "allOf", or in one of its parts,
//     refuses in JSON Schema every property the other parts declare (even
//     the ones that part itself requires), where the document means the
//     composed object is closed. USPS's international-labels.yaml
//     (InternationalPackageDescription, InternationalCustomsForm, ...) and
//     carrier-pickup.yaml (PickupAddress) are written so. Load closes the
//     composed schema over the union of the parts' properties instead, so
//     a property no part declares is still refused.
package apidoc

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// ErrDocument is wrapped by Load when a document cannot be read as OpenAPI 3.
var ErrDocument = errors.New("apidoc: unusable OpenAPI document")

// ErrUndocumented is wrapped when a request matches no documented operation.
var ErrUndocumented = errors.New("apidoc: no documented operation")

// Set is a set of loaded OpenAPI documents and their operations. It is safe
// for concurrent use: checks only read it.
type Set struct {
	routes []route
}

// route is one operation of one document at one server path.
type route struct {
	// doc is the document's file name, as given to Load.
	doc string
	// template is the path as the document writes it, below its server.
	template string
	// match matches an escaped request path: the server path and the
	// template, each {parameter} a group.
	match *regexp.Regexp
	// params are the template's parameter names, in group order.
	params []string
	// literal is the number of characters of the server path and the
	// template outside parameters: the more, the more specific the route.
	literal int
	kin     routers.Route
}

// operation names a route in errors: the document, the method, the path as
// documented and the operationId.
func (r *route) operation() Operation {
	return Operation{Document: r.doc, Method: r.kin.Method, Path: r.template, ID: r.kin.Operation.OperationID}
}

// Operation names a documented operation.
type Operation struct {
	// Document is the document's file name.
	Document string
	// Method and Path are as documented: the path is a template below the
	// document's server path.
	Method, Path string
	// ID is the operationId, empty when the document gives none.
	ID string
}

func (o Operation) String() string {
	s := o.Document + " " + o.Method + " " + o.Path
	if o.ID != "" {
		s += " (" + o.ID + ")"
	}
	return s
}

// Load reads the named OpenAPI 3.x documents (YAML or JSON) from fsys.
func Load(fsys fs.FS, names ...string) (*Set, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: no document named", ErrDocument)
	}
	s := &Set{}
	for _, name := range names {
		doc, err := loadDocument(fsys, name)
		if err != nil {
			return nil, err
		}
		routes, err := documentRoutes(name, doc)
		if err != nil {
			return nil, err
		}
		s.routes = append(s.routes, routes...)
	}
	return s, nil
}

func loadDocument(fsys fs.FS, name string) (*openapi3.T, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	loader := openapi3.NewLoader()
	// The vendored documents are self-contained; a reference elsewhere
	// would be a document changed upstream, worth failing on.
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDocument, name, err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		return nil, fmt.Errorf("%w: %s declares OpenAPI %q; only 3.x documents are read", ErrDocument, name, doc.OpenAPI)
	}
	if doc.Paths == nil || doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("%w: %s documents no paths", ErrDocument, name)
	}
	dropEmptyAlternatives(doc)
	closeComposedObjects(doc)
	return doc, nil
}

// visitSchemas calls f on every schema of doc once, children before their
// parent.
func visitSchemas(doc *openapi3.T, f func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(ref *openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		for _, group := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf, s.AllOf} {
			for _, sub := range group {
				visit(sub)
			}
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		visit(s.Not)
		visit(s.AdditionalProperties.Schema)
		f(s)
	}
	if doc.Components != nil {
		for _, s := range doc.Components.Schemas {
			visit(s)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				for _, mt := range rb.Value.Content {
					visit(mt.Schema)
				}
			}
			if op.Responses == nil {
				continue
			}
			for _, res := range op.Responses.Map() {
				if res.Value != nil {
					for _, mt := range res.Value.Content {
						visit(mt.Schema)
					}
				}
			}
		}
	}
}

// closeComposedObjects repairs "additionalProperties: false" beside or
// inside "allOf" (see the package doc): the parts are replaced by copies
// that allow any property, and the composed schema declares the union of
// their properties and refuses others.
func closeComposedObjects(doc *openapi3.T) {
	visitSchemas(doc, func(s *openapi3.Schema) {
		if len(s.AllOf) == 0 {
			return
		}
		closed := closedObject(s)
		for _, part := range s.AllOf {
			closed = closed || (part.Value != nil && closedObject(part.Value))
		}
		if !closed {
			return
		}
		union := openapi3.Schemas{}
		collectProperties(s, union)
		for i, part := range s.AllOf {
			if part.Value == nil || !closedObject(part.Value) {
				continue
			}
			open := *part.Value
			open.AdditionalProperties = openapi3.AdditionalProperties{}
			s.AllOf[i] = &openapi3.SchemaRef{Ref: part.Ref, Value: &open}
		}
		if s.Properties == nil {
			s.Properties = openapi3.Schemas{}
		}
		for name, p := range union {
			if _, ok := s.Properties[name]; !ok {
				s.Properties[name] = p
			}
		}
		no := false
		s.AdditionalProperties = openapi3.AdditionalProperties{Has: &no}
	})
}

func closedObject(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
}

// collectProperties adds the properties s and its allOf parts declare.
func collectProperties(s *openapi3.Schema, into openapi3.Schemas) {
	for name, p := range s.Properties {
		into[name] = p
	}
	for _, part := range s.AllOf {
		if part.Value != nil {
			collectProperties(part.Value, into)
		}
	}
}

// dropEmptyAlternatives removes, from every "oneOf" that has alternatives
// with constraints, the alternatives that have none (see the package doc).
func dropEmptyAlternatives(doc *openapi3.T) {
	visitSchemas(doc, func(s *openapi3.Schema) {
		if kept := slices.DeleteFunc(slices.Clone(s.OneOf), func(alt *openapi3.SchemaRef) bool {
			return alt == nil || alt.Value == nil || unconstrained(alt.Value)
		}); len(kept) > 0 && len(kept) < len(s.OneOf) {
			s.OneOf = kept
		}
	})
}

// unconstrained reports whether s accepts every value (an object type
// alone, with nothing else said, accepts every object).
func unconstrained(s *openapi3.Schema) bool {
	return (s.Type == nil || len(*s.Type) == 0 || s.Type.Is("object")) &&
		len(s.Properties) == 0 && s.Items == nil && len(s.OneOf) == 0 && len(s.AnyOf) == 0 &&
		len(s.AllOf) == 0 && s.Not == nil && len(s.Enum) == 0 && len(s.Required) == 0 &&
		s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil &&
		s.MinProps == 0 && s.MaxProps == nil
}

// documentRoutes lists every operation of doc at every server path.
func documentRoutes(name string, doc *openapi3.T) ([]route, error) {
	docPrefixes, err := serverPaths(name, doc.Servers)
	if err != nil {
		return nil, err
	}
	var routes []route
	for _, template := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(template)
		prefixes := docPrefixes
		if len(item.Servers) > 0 {
			if prefixes, err = serverPaths(name, item.Servers); err != nil {
				return nil, err
			}
		}
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		for _, method := range methods {
			op := ops[method]
			opPrefixes := prefixes
			if op.Servers != nil && len(*op.Servers) > 0 {
				if opPrefixes, err = serverPaths(name, *op.Servers); err != nil {
					return nil, err
				}
			}
			for _, prefix := range opPrefixes {
				match, params, literal, err := compileTemplate(prefix + template)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: path %q: %w", ErrDocument, name, template, err)
				}
				routes = append(routes, route{
					doc: name, template: template, match: match, params: params, literal: literal,
					kin: routers.Route{Spec: doc, Path: template, PathItem: item, Method: method, Operation: op},
				})
			}
		}
	}
	return routes, nil
}

// serverPaths returns the distinct path parts of servers' URLs (variables
// replaced by their defaults), without a trailing slash; [""] when there are
// no servers, as OpenAPI then means "/".
func serverPaths(name string, servers openapi3.Servers) ([]string, error) {
	var paths []string
	for _, srv := range servers {
		raw := srv.URL
		for v, def := range srv.Variables {
			raw = strings.ReplaceAll(raw, "{"+v+"}", def.Default)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: server %q: %w", ErrDocument, name, srv.URL, err)
		}
		p := strings.TrimRight(u.EscapedPath(), "/")
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		paths = []string{""}
	}
	return paths, nil
}

var templateParam = regexp.MustCompile(`\{([^{}/]+)\}`)

// compileTemplate turns "/api/rating/{version}/{requestoption}" into a
// regexp over escaped paths, its parameter names and its literal length.
func compileTemplate(path string) (*regexp.Regexp, []string, int, error) {
	var expr strings.Builder
	expr.WriteString("^")
	var params []string
	literal, last := 0, 0
	for _, m := range templateParam.FindAllStringSubmatchIndex(path, -1) {
		expr.WriteString(regexp.QuoteMeta(path[last:m[0]]))
		literal += m[0] - last
		// A parameter is one path segment, however it is serialised.
		expr.WriteString("([^/]+)")
		params = append(params, path[m[2]:m[3]])
		last = m[1]
	}
	expr.WriteString(regexp.QuoteMeta(path[last:]))
	literal += len(path) - last
	expr.WriteString("$")
	re, err := regexp.Compile(expr.String())
	return re, params, literal, err
}

// find returns the documented operation for method and u and the values of
// its path parameters.
func (s *Set) find(method string, u *url.URL) (*route, map[string]string, error) {
	escaped := u.EscapedPath()
	var found []*route
	var otherMethods []string
	var values [][]string
	for i := range s.routes {
		r := &s.routes[i]
		m := r.match.FindStringSubmatch(escaped)
		if m == nil {
			continue
		}
		if r.kin.Method != method {
			if !slices.Contains(otherMethods, r.kin.Method) {
				otherMethods = append(otherMethods, r.kin.Method)
			}
			continue
		}
		found = append(found, r)
		values = append(values, m[1:])
	}
	if len(found) == 0 {
		if len(otherMethods) > 0 {
			slices.Sort(otherMethods)
			return nil, nil, fmt.Errorf("%w: %s %s: the path is documented for %s only", ErrUndocumented, method, escaped, strings.Join(otherMethods, ", "))
		}
		return nil, nil, fmt.Errorf("%w: %s %s matches no documented path", ErrUndocumented, method, escaped)
	}
	order := make([]int, len(found))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return compareRoutes(found[a], found[b])
	})
	best := order[0]
	if len(order) > 1 && compareRoutes(found[best], found[order[1]]) == 0 && found[best].kin.Operation != found[order[1]].kin.Operation {
		return nil, nil, fmt.Errorf("%w: %s %s matches both %s and %s", ErrUndocumented, method, escaped,
			found[best].operation(), found[order[1]].operation())
	}
	r := found[best]
	params := make(map[string]string, len(r.params))
	for i, name := range r.params {
		v, err := url.PathUnescape(values[best][i])
		if err != nil {
			v = values[best][i]
		}
		params[name] = v
	}
	return r, params, nil
}

// compareRoutes orders the more specific route first, then the current one
// before a deprecated duplicate.
func compareRoutes(a, b *route) int {
	if c := cmp.Compare(b.literal, a.literal); c != 0 {
		return c
	}
	ad, bd := a.kin.Operation.Deprecated, b.kin.Operation.Deprecated
	switch {
	case ad == bd:
		return 0
	case bd:
		return -1
	default:
		return 1
	}
}
