package server

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/shipd-dev/shipd/openapi"
)

// An operation is left unvalidated only where kin-openapi could find
// nothing wrong: whatever its path parameters hold, the validation passes.
// And the classification is the contract's: GET /labels/{id} has nothing to
// validate, an operation with a query parameter or a body has.
func TestNothingToValidateIsNothingKinWouldRefuse(t *testing.T) {
	ops := contractOperations(t)
	for key, want := range map[string]bool{
		"GET " + BasePath + "/labels/:id":     true,
		"GET " + BasePath + "/labels":         false,
		"POST " + BasePath + "/labels/create": false,
	} {
		if op := ops[key]; op == nil || op.nothingToValidate != want {
			t.Errorf("%s: nothingToValidate %v, want %v", key, op != nil && op.nothingToValidate, want)
		}
	}
	values := []string{"x", "shp_7d2e1f0a9b8c7d6e5f4a3b2c", "ünïcode", strings.Repeat("9", 300), "-1", "null", "true", "{}", "a b"}
	n := 0
	for key, op := range ops {
		if !op.nothingToValidate {
			continue
		}
		n++
		for _, v := range values {
			params := map[string]string{}
			path := op.route.Path
			for _, p := range append(op.route.PathItem.Parameters, op.route.Operation.Parameters...) {
				params[p.Value.Name] = v
				path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", "x")
			}
			req := httptest.NewRequest(op.route.Method, "http://shipd.test"+BasePath+path, nil)
			req.Header.Set("Authorization", "Bearer t")
			err := openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
				Request: req, PathParams: params, Route: op.route,
				Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
			})
			if err != nil {
				t.Errorf("%s with %q: kin-openapi refuses it (%v), so it has something to validate", key, v, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no operation has nothing to validate")
	}
}

func TestAnyPathString(t *testing.T) {
	param := func(in string, schema *openapi3.Schema) *openapi3.ParameterRef {
		return &openapi3.ParameterRef{Value: &openapi3.Parameter{Name: "id", In: in, Schema: &openapi3.SchemaRef{Value: schema}}}
	}
	maxLen := uint64(10)
	for name, c := range map[string]struct {
		p    *openapi3.ParameterRef
		want bool
	}{
		"any string":   {param("path", openapi3.NewStringSchema()), true},
		"pattern":      {param("path", openapi3.NewStringSchema().WithPattern("^shp_")), false},
		"enum":         {param("path", openapi3.NewStringSchema().WithEnum("a", "b")), false},
		"format":       {param("path", openapi3.NewStringSchema().WithFormat("uuid")), false},
		"max length":   {param("path", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, MaxLength: &maxLen}), false},
		"integer":      {param("path", openapi3.NewIntegerSchema()), false},
		"query string": {param("query", openapi3.NewStringSchema()), false},
		"header":       {param("header", openapi3.NewStringSchema()), false},
	} {
		if got := anyPathString(c.p); got != c.want {
			t.Errorf("%s: anyPathString %v, want %v", name, got, c.want)
		}
	}
}

// contractOperations are the contract's operations as the server indexes them.
func contractOperations(t *testing.T) operations {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := loadOperations(doc)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}
