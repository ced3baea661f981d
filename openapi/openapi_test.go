package openapi_test

// Static checks of the contract: it is a valid OpenAPI document, and it keeps
// the conventions the server relies on (operation ids, x-required-scope, one
// error schema).

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/openapi"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	return doc
}

type op struct {
	name string // "GET /labels"
	*openapi3.Operation
}

func operations(doc *openapi3.T) []op {
	var out []op
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, o := range doc.Paths.Value(path).Operations() {
			out = append(out, op{method + " " + path, o})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func TestContractIsValid(t *testing.T) {
	t.Parallel()
	doc := load(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml does not validate: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/api/v1" {
		t.Errorf("servers = %v, want /api/v1", doc.Servers)
	}
	// bearer auth is the default for every operation
	if len(doc.Security) != 1 || doc.Security[0]["bearerAuth"] == nil {
		t.Errorf("top-level security = %v, want bearerAuth", doc.Security)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("bearerAuth scheme = %+v", s)
	}
	if len(operations(doc)) < 20 {
		t.Errorf("only %d operations", len(operations(doc)))
	}
}

func TestContractOperationIDs(t *testing.T) {
	t.Parallel()
	doc := load(t)
	seen := map[string]string{}
	valid := regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
	for _, o := range operations(doc) {
		if o.OperationID == "" {
			t.Errorf("%s: no operationId", o.name)
			continue
		}
		if !valid.MatchString(o.OperationID) {
			t.Errorf("%s: operationId %q is not lowerCamelCase", o.name, o.OperationID)
		}
		if other, dup := seen[o.OperationID]; dup {
			t.Errorf("operationId %q used by %s and %s", o.OperationID, other, o.name)
		}
		seen[o.OperationID] = o.name
	}
}

func TestContractRequiredScopes(t *testing.T) {
	t.Parallel()
	doc := load(t)
	known := []string{"read:shipments", "write:shipments", "read:addresses", "write:addresses", "read:webhooks", "write:webhooks", "read:carriers", "write:carriers"}
	var public []string
	for _, o := range operations(doc) {
		scope, has := o.Extensions["x-required-scope"]
		if o.Security != nil && len(*o.Security) == 0 {
			public = append(public, o.name)
			if has {
				t.Errorf("%s: public but names x-required-scope %v", o.name, scope)
			}
			continue
		}
		s, ok := scope.(string)
		if !has || !ok || !slices.Contains(known, s) {
			t.Errorf("%s: x-required-scope = %#v, want one of %v", o.name, scope, known)
			continue
		}
		// reads need read:, writes write:
		wantPrefix := "write:"
		if strings.HasPrefix(o.name, "GET ") {
			wantPrefix = "read:"
		}
		if !strings.HasPrefix(s, wantPrefix) {
			t.Errorf("%s: x-required-scope %s, want a %s scope", o.name, s, wantPrefix)
		}
		// an authenticated operation can answer 401 and 403
		for _, code := range []int{401, 403} {
			if o.Responses.Status(code) == nil {
				t.Errorf("%s: no %d response", o.name, code)
			}
		}
	}
	if diff := cmp.Diff([]string{"GET /openapi.json", "GET /openapi.yaml"}, public); diff != "" {
		t.Errorf("public operations (-want +got):\n%s", diff)
	}
}

func TestContractErrorResponsesUseErrorSchema(t *testing.T) {
	t.Parallel()
	doc := load(t)
	errSchema := doc.Components.Schemas["Error"]
	if errSchema == nil || errSchema.Value == nil {
		t.Fatal("no Error schema")
	}
	if diff := cmp.Diff([]string{"code", "error"}, errSchema.Value.Required); diff != "" {
		t.Errorf("Error.required (-want +got):\n%s", diff)
	}
	for _, prop := range []string{"code", "error", "requestId", "field", "issues", "requiredScope", "knownEvents", "availableServices"} {
		if errSchema.Value.Properties[prop] == nil {
			t.Errorf("Error has no %s", prop)
		}
	}
	checked := 0
	for _, o := range operations(doc) {
		for codeStr, ref := range o.Responses.Map() {
			code, err := strconv.Atoi(codeStr)
			if err != nil {
				t.Errorf("%s: response %q is not a status code", o.name, codeStr)
				continue
			}
			if code < 400 {
				continue
			}
			where := fmt.Sprintf("%s %d", o.name, code)
			if ref == nil || ref.Value == nil {
				t.Errorf("%s: unresolved response", where)
				continue
			}
			if len(ref.Value.Content) != 1 || ref.Value.Content["application/json"] == nil {
				t.Errorf("%s: content %v, want application/json only", where, keys(ref.Value.Content))
				continue
			}
			schema := ref.Value.Content["application/json"].Schema
			if schema == nil || (schema.Ref != "#/components/schemas/Error" && schema.Value != errSchema.Value) {
				t.Errorf("%s: schema is not Error (%v)", where, schema)
			}
			if h := ref.Value.Headers["X-Request-Id"]; h == nil || h.Value == nil || !h.Value.Required {
				t.Errorf("%s: X-Request-Id header not declared as required", where)
			}
			checked++
		}
	}
	t.Logf("%d error responses checked", checked)
	if checked < 100 {
		t.Errorf("only %d error responses checked", checked)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
