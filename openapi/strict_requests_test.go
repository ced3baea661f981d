package openapi_test

// Request bodies are closed, responses open: every object a client sends says
// additionalProperties: false (shipd refuses an unknown field with 422
// invalid_field rather than dropping it in silence), and no object shipd
// sends says it (a client reading v1 must survive the fields v1 may add).
// Where a request and a response share a shape, the request has its own
// schema, a twin of the response's with the same fields and Go type.

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// objectsOf walks every schema reachable from ref and calls fn with the
// path that reached each object schema (its $ref, when it has one).
func objectsOf(ref *openapi3.SchemaRef, where string, seen map[*openapi3.Schema]bool, fn func(where string, s *openapi3.Schema)) {
	if ref == nil || ref.Value == nil {
		return
	}
	if ref.Ref != "" {
		where += " (" + strings.TrimPrefix(ref.Ref, "#/components/schemas/") + ")"
	}
	s := ref.Value
	if seen[s] {
		return
	}
	seen[s] = true
	if s.Type.Is(openapi3.TypeObject) || len(s.Properties) > 0 {
		fn(where, s)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.Properties {
			if !yield(k) {
				return
			}
		}
	}) {
		objectsOf(s.Properties[name], where+"."+name, seen, fn)
	}
	objectsOf(s.Items, where+"[]", seen, fn)
	objectsOf(s.AdditionalProperties.Schema, where+"{}", seen, fn)
	objectsOf(s.Not, where+"!", seen, fn)
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for i, sub := range group {
			objectsOf(sub, fmt.Sprintf("%s/%d", where, i), seen, fn)
		}
	}
}

func closed(s *openapi3.Schema) bool {
	return s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has && s.AdditionalProperties.Schema == nil
}

func TestRequestBodiesRefuseUnknownFields(t *testing.T) {
	t.Parallel()
	doc := load(t)
	var bodies, objects int
	for _, o := range operations(doc) {
		if o.RequestBody == nil || o.RequestBody.Value == nil {
			continue
		}
		for mediaType, mt := range o.RequestBody.Value.Content {
			bodies++
			objectsOf(mt.Schema, o.name+" "+mediaType+" body", map[*openapi3.Schema]bool{}, func(where string, s *openapi3.Schema) {
				objects++
				if !closed(s) {
					t.Errorf("%s: a request object without additionalProperties: false; an unknown field would be dropped in silence", where)
				}
			})
		}
	}
	// The seven bodies of v1 and the objects within them, so a walk that finds nothing fails.
	if bodies < 7 || objects < 15 {
		t.Errorf("walked %d request bodies and %d objects; the walk missed them", bodies, objects)
	}
}

func TestResponsesAcceptNewFields(t *testing.T) {
	t.Parallel()
	doc := load(t)
	objects := 0
	check := func(ref *openapi3.SchemaRef, where string) {
		objectsOf(ref, where, map[*openapi3.Schema]bool{}, func(where string, s *openapi3.Schema) {
			objects++
			if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
				t.Errorf("%s: a response object with additionalProperties: false; a client validating against it would refuse the fields v1 may add", where)
			}
		})
	}
	for _, o := range operations(doc) {
		for status, resp := range o.Responses.Map() {
			for mediaType, mt := range resp.Value.Content {
				check(mt.Schema, fmt.Sprintf("%s %s %s", o.name, status, mediaType))
			}
		}
		// What shipd sends to a webhook is a response in this sense: the receiver reads it.
		for name, cb := range o.Callbacks {
			for expr, item := range cb.Value.Map() {
				for method, cbOp := range item.Operations() {
					if cbOp.RequestBody == nil {
						continue
					}
					for mediaType, mt := range cbOp.RequestBody.Value.Content {
						check(mt.Schema, fmt.Sprintf("%s callback %s %s %s %s", o.name, name, method, expr, mediaType))
					}
				}
			}
		}
	}
	if objects < 30 {
		t.Errorf("walked %d response objects; the walk missed them", objects)
	}
}

// A request twin names its response schema in x-go-type, so both are one Go
// type: a field in one and not the other would be dropped by the server's
// decoding or refused by validation. Their fields must be the same, with
// the constraints listed in loosened the only differences, each looser in
// the request.
func TestRequestTwinsMatchTheirResponseSchemas(t *testing.T) {
	t.Parallel()
	doc := load(t)
	twinOf := map[string]string{} // request schema -> response schema
	for name, ref := range doc.Components.Schemas {
		if goType, ok := ref.Value.Extensions["x-go-type"].(string); ok {
			if doc.Components.Schemas[goType] == nil {
				t.Errorf("%s: x-go-type %q is not a schema of the contract", name, goType)
				continue
			}
			twinOf[name] = goType
		}
	}
	if len(twinOf) < 5 {
		t.Errorf("%d request twins, want the 5 of Address, Parcel, Options, Customs and CustomsItem: %v", len(twinOf), twinOf)
	}
	// loosened are what a request twin loosens on purpose, its response
	// schema keeping what a stored resource holds: a quick quote's address
	// needs only what a rate depends on (its required fields), and a
	// parcel may be heavier than any carrier takes, for the carriers to
	// refuse it naming their limits (those properties' maximum, and the
	// description saying so).
	loosened := map[string]struct {
		required bool
		maxima   []string
	}{
		"QuoteAddressInput": {required: true},
		"ParcelInput":       {maxima: []string{"weightOz", "weightG"}},
	}
	shape := func(name string) map[string]any {
		s := doc.Components.Schemas[name].Value
		raw, err := json.Marshal(map[string]any{"type": s.Type, "required": s.Required, "properties": s.Properties})
		if err != nil {
			t.Fatal(err)
		}
		out := string(raw)
		for twin, of := range twinOf {
			out = strings.ReplaceAll(out, `"#/components/schemas/`+twin+`"`, `"#/components/schemas/`+of+`"`)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	names := make([]string, 0, len(twinOf))
	for name := range twinOf {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		resp, req := shape(twinOf[name]), shape(name)
		l := loosened[name]
		if l.required {
			for _, f := range doc.Components.Schemas[name].Value.Required {
				if !slices.Contains(doc.Components.Schemas[twinOf[name]].Value.Required, f) {
					t.Errorf("%s requires %s, which %s does not: a twin may only require less", name, f, twinOf[name])
				}
			}
			delete(resp, "required")
			delete(req, "required")
		}
		for _, prop := range l.maxima {
			rp, qp := doc.Components.Schemas[twinOf[name]].Value.Properties[prop], doc.Components.Schemas[name].Value.Properties[prop]
			if rp == nil || qp == nil || rp.Value.Max == nil || qp.Value.Max != nil && *qp.Value.Max < *rp.Value.Max {
				t.Errorf("%s.%s: its maximum must be that of %s or larger", name, prop, twinOf[name])
			}
			for _, m := range []map[string]any{resp, req} {
				if p, ok := m["properties"].(map[string]any)[prop].(map[string]any); ok {
					delete(p, "maximum")
					delete(p, "description")
				}
			}
		}
		if diff := cmp.Diff(resp, req); diff != "" {
			t.Errorf("%s differs from %s (-%s +%s):\n%s", name, twinOf[name], twinOf[name], name, diff)
		}
		if !closed(doc.Components.Schemas[name].Value) {
			t.Errorf("%s: a request twin without additionalProperties: false", name)
		}
	}
}
