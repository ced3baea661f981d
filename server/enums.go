package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Enum inputs are matched in any letter case, as carrier and service names
// are: "EXPRESS" selects the express tier. Rather than loosen the contract's
// validation, the request is rewritten to the contract's own spelling before
// it is validated, so the enum check stays kin-openapi's, the handlers see
// only canonical values and the contract says so in its descriptions. A
// value that matches no member in any case is left for validation to
// refuse with the list of allowed values.

// normalizeEnumQuery rewrites the query parameters whose schema is an enum.
func (op *operation) normalizeEnumQuery(req *http.Request) {
	if req.URL.RawQuery == "" {
		return
	}
	query := req.URL.Query()
	changed := false
	for _, p := range append(slices.Clone(op.route.PathItem.Parameters), op.route.Operation.Parameters...) {
		if p.Value == nil || p.Value.In != openapi3.ParameterInQuery || p.Value.Schema == nil {
			continue
		}
		members := enumMembers(p.Value.Schema.Value)
		for i, v := range query[p.Value.Name] {
			if c, ok := canonicalEnum(members, v); ok && c != v {
				query[p.Value.Name][i] = c
				changed = true
			}
		}
	}
	if changed {
		req.URL.RawQuery = query.Encode()
	}
}

// normalizeEnumBody rewrites the body's strings whose schema is an enum; a
// body with nothing to rewrite is returned as is.
func (op *operation) normalizeEnumBody(body []byte) []byte {
	mt := op.route.Operation.RequestBody.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || len(bytes.TrimSpace(body)) == 0 {
		return body
	}
	type span struct {
		start, end int
		value      string
	}
	var spans []span
	var walk func(schema *openapi3.Schema, raw []byte, depth int)
	walk = func(schema *openapi3.Schema, raw []byte, depth int) {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if schema == nil || len(raw) == 0 || depth > 16 {
			return
		}
		switch raw[0] {
		case '{':
			eachMember(raw, func(name string, value []byte) bool {
				if prop := property(schema, name); prop != nil {
					walk(prop, value, depth+1)
				}
				return true
			})
		case '[':
			if schema.Items != nil {
				eachElement(raw, func(item []byte) bool { walk(schema.Items.Value, item, depth+1); return true })
			}
		case '"':
			members := enumMembers(schema)
			if len(members) == 0 {
				return
			}
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return
			}
			if c, ok := canonicalEnum(members, v); ok && c != v {
				start := cap(body) - cap(raw) // raw is a slice of body
				spans = append(spans, span{start, start + len(raw), c})
			}
		}
	}
	walk(mt.Schema.Value, body, 0)
	if len(spans) == 0 {
		return body
	}
	out := make([]byte, 0, len(body))
	last := 0
	for _, sp := range spans {
		quoted, _ := json.Marshal(sp.value)
		out = append(append(out, body[last:sp.start]...), quoted...)
		last = sp.end
	}
	return append(out, body[last:]...)
}

// property is the schema of an object's member, looking into allOf.
func property(schema *openapi3.Schema, name string) *openapi3.Schema {
	if prop := schema.Properties[name]; prop != nil {
		return prop.Value
	}
	for _, s := range schema.AllOf {
		if s != nil && s.Value != nil {
			if p := property(s.Value, name); p != nil {
				return p
			}
		}
	}
	return nil
}

// enumMembers are the string members of a schema's enum (or of its allOf's).
func enumMembers(schema *openapi3.Schema) []string {
	if schema == nil {
		return nil
	}
	var out []string
	for _, e := range schema.Enum {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	for _, s := range schema.AllOf {
		if s != nil {
			out = append(out, enumMembers(s.Value)...)
		}
	}
	return out
}

// canonicalEnum is the member v names in another letter case. An exact
// member is returned as is, so a contract whose members differ only in case
// would still be matched exactly.
func canonicalEnum(members []string, v string) (string, bool) {
	for _, m := range members {
		if m == v {
			return m, true
		}
	}
	for _, m := range members {
		if strings.EqualFold(m, v) {
			return m, true
		}
	}
	return "", false
}
