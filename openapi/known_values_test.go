package openapi_test

// Strings a client wants as constants, kept strings so that a new value
// breaks no client: the error codes (ErrorCode) and the carriers' names.
// Their known values are listed in x-extensible-enum (with x-enum-varnames
// and x-enum-descriptions for the codes); these tests keep the lists whole.

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/connectors"
)

// stringList is an extension's list of strings.
func stringList(t *testing.T, s *openapi3.Schema, name string) []string {
	t.Helper()
	raw, ok := s.Extensions[name].([]any)
	if !ok {
		t.Fatalf("no %s list (%T)", name, s.Extensions[name])
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		if out[i], ok = v.(string); !ok {
			t.Fatalf("%s[%d] = %v, not a string", name, i, v)
		}
	}
	return out
}

func TestErrorCodesListed(t *testing.T) {
	t.Parallel()
	doc := load(t)
	ref := doc.Components.Schemas["Error"].Value.Properties["code"]
	if ref.Ref != "#/components/schemas/ErrorCode" {
		t.Fatalf("Error.code is %q, want the ErrorCode schema", ref.Ref)
	}
	s := doc.Components.Schemas["ErrorCode"].Value
	if !s.Type.Is(openapi3.TypeString) || len(s.Enum) > 0 {
		t.Errorf("ErrorCode is %v with enum %v, want a string without enum (a new code must not break clients)", s.Type, s.Enum)
	}
	codes := stringList(t, s, "x-extensible-enum")
	names := stringList(t, s, "x-enum-varnames")
	descriptions := stringList(t, s, "x-enum-descriptions")
	if len(names) != len(codes) || len(descriptions) != len(codes) {
		t.Fatalf("%d codes, %d varnames, %d descriptions: one each", len(codes), len(names), len(descriptions))
	}
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[string]bool{}
	for i, code := range codes {
		if !snake.MatchString(code) || seen[code] {
			t.Errorf("code %q is not snake_case or listed twice", code)
		}
		seen[code] = true
		if want := upperCamel(code); names[i] != want {
			t.Errorf("x-enum-varnames[%d] = %q, want %q (for %s)", i, names[i], want, code)
		}
		if descriptions[i] == "" {
			t.Errorf("%s has no description", code)
		}
	}

	// Every code the shared responses name is a known one.
	for name, resp := range doc.Components.Responses {
		for _, m := range regexp.MustCompile("`([a-z]+(?:_[a-z]+)+)`").FindAllStringSubmatch(*resp.Value.Description, -1) {
			if !seen[m[1]] {
				t.Errorf("response %s names %s, which ErrorCode does not list", name, m[1])
			}
		}
	}
}

func upperCamel(snake string) string {
	var b strings.Builder
	for w := range strings.SplitSeq(snake, "_") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// TestCarrierNamesListed: every carrier property lists the registry's
// names, all of them (test mode quotes the sandbox twins too), as
// x-extensible-enum; carrier accounts exist for the live connectors alone,
// which a request's carrier names from a closed enum and a response's
// lists as x-extensible-enum (more may come). make generate writes them.
func TestCarrierNamesListed(t *testing.T) {
	t.Parallel()
	doc := load(t)
	var all, live []string
	for _, d := range connectors.All() {
		all = append(all, string(d.ID))
		if d.Live() {
			live = append(live, string(d.ID))
		}
	}
	closedAccounts := []string{"CreateCarrierAccountRequest.carrier"}
	const openAccounts = "CarrierAccount.carrier"
	var listed, closed []string
	for _, name := range sortedKeys(doc.Components.Schemas) {
		walkProperties(doc.Components.Schemas[name].Value, name, func(path string, s *openapi3.Schema) {
			if !strings.HasSuffix(path, ".carrier") {
				return
			}
			if len(s.Enum) > 0 {
				closed = append(closed, path)
				var got []string
				for _, v := range s.Enum {
					got = append(got, v.(string))
				}
				if diff := cmp.Diff(live, got); diff != "" {
					t.Errorf("%s enum (-live connectors +got):\n%s", path, diff)
				}
				return
			}
			listed = append(listed, path)
			want := all
			if path == openAccounts {
				want = live
			}
			if diff := cmp.Diff(want, stringList(t, s, "x-extensible-enum")); diff != "" {
				t.Errorf("%s x-extensible-enum (-registry +got):\n%s", path, diff)
			}
		})
	}
	if diff := cmp.Diff(closedAccounts, closed); diff != "" {
		t.Errorf("carrier properties with an enum (-want +got):\n%s", diff)
	}
	if !slices.Contains(listed, openAccounts) {
		t.Errorf("%s does not list the live connectors as x-extensible-enum", openAccounts)
	}
	if len(listed) < 10 {
		t.Errorf("only %d carrier properties list the known names: %v", len(listed), listed)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// walkProperties calls fn with every property of s, through objects and
// arrays (not through $refs, which are walked as schemas of their own).
func walkProperties(s *openapi3.Schema, path string, fn func(path string, s *openapi3.Schema)) {
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		if p.Ref != "" || p.Value == nil {
			continue
		}
		fn(path+"."+name, p.Value)
		walkProperties(p.Value, path+"."+name, fn)
		if items := p.Value.Items; items != nil && items.Ref == "" && items.Value != nil {
			walkProperties(p.Value.Items.Value, path+"."+name+"[]", fn)
		}
	}
}
