package openapi_test

// Every JSON request body and every JSON success response of the contract
// (the webhook callback's body included) has a realistic example, and every
// example is valid against its schema, read as a request or as a response.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// jsonBody is one JSON request body or success response of the contract.
type jsonBody struct {
	where   string // "POST /labels/quote request", "GET /labels 200"
	request bool
	media   *openapi3.MediaType
}

func jsonBodies(doc *openapi3.T) []jsonBody {
	var out []jsonBody
	var visit func(prefix string, o op)
	visit = func(prefix string, o op) {
		if rb := o.RequestBody; rb != nil && rb.Value != nil {
			if mt := rb.Value.Content.Get("application/json"); mt != nil {
				out = append(out, jsonBody{where: prefix + o.name + " request", request: true, media: mt})
			}
		}
		for status, ref := range o.Responses.Map() {
			if !strings.HasPrefix(status, "2") || ref.Value == nil {
				continue
			}
			if mt := ref.Value.Content.Get("application/json"); mt != nil {
				out = append(out, jsonBody{where: prefix + o.name + " " + status, media: mt})
			}
		}
		for name, cb := range o.Callbacks {
			for expr, item := range cb.Value.Map() {
				for method, cbOp := range item.Operations() {
					visit(fmt.Sprintf("%s%s callback %s %s %s: ", prefix, o.name, name, method, expr), op{"", cbOp})
				}
			}
		}
	}
	for _, o := range operations(doc) {
		visit("", o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

// examplesOf are a media type's example values by name ("example" for the single one).
func examplesOf(mt *openapi3.MediaType) map[string]any {
	out := map[string]any{}
	if mt.Example != nil {
		out["example"] = mt.Example
	}
	for name, ex := range mt.Examples {
		if ex != nil && ex.Value != nil {
			out[name] = ex.Value.Value
		}
	}
	return out
}

func TestEveryJSONBodyHasAValidExample(t *testing.T) {
	t.Parallel()
	doc := load(t)
	bodies := jsonBodies(doc)
	if len(bodies) < 55 {
		t.Fatalf("only %d JSON bodies found", len(bodies))
	}
	for _, b := range bodies {
		examples := examplesOf(b.media)
		if len(examples) == 0 {
			t.Errorf("%s: no example", b.where)
			continue
		}
		for name, value := range examples {
			if err := validateExample(b.media.Schema.Value, value, b.request); err != nil {
				t.Errorf("%s: example %s does not match its schema: %v", b.where, name, err)
			}
		}
	}
	// The shared responses' examples (errors) are checked the same way.
	for name, resp := range doc.Components.Responses {
		if mt := resp.Value.Content.Get("application/json"); mt != nil {
			for exName, value := range examplesOf(mt) {
				if err := validateExample(mt.Schema.Value, value, false); err != nil {
					t.Errorf("response %s: example %s does not match its schema: %v", name, exName, err)
				}
			}
		}
	}
}

// TestEveryNamedExampleIsUsed: components/examples holds no example that
// no body shows.
func TestEveryNamedExampleIsUsed(t *testing.T) {
	t.Parallel()
	doc := load(t)
	used := map[string]bool{}
	for _, b := range jsonBodies(doc) {
		for _, ex := range b.media.Examples {
			used[strings.TrimPrefix(ex.Ref, "#/components/examples/")] = true
		}
	}
	for name := range doc.Components.Examples {
		if !used[name] {
			t.Errorf("components/examples/%s is shown by no body", name)
		}
	}
}

// validateExample checks value against schema as the server checks a
// request (unknown fields refused) or a client reads a response.
func validateExample(schema *openapi3.Schema, value any, request bool) error {
	// Through JSON, so numbers and objects are what a decoder gives.
	raw, err := json.Marshal(value)
	if err != nil {
		return err
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return err
	}
	opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.EnableFormatValidation()}
	if request {
		opts = append(opts, openapi3.VisitAsRequest())
	} else {
		opts = append(opts, openapi3.VisitAsResponse())
	}
	return schema.VisitJSON(decoded, opts...)
}
