package openapi_test

// The breaking-change gate's own test: modified copies of the contract run
// through scripts/check-api.sh BASE NEW, the very comparison `make check-api`
// makes against the contract's history (same oasdiff, flags, levels file and
// ignore file), must fail for each kind of break and pass an addition.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/shipd-dev/shipd/openapi"
)

func TestCheckAPIGate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("the gate is a bash script: %v", err)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(base, openapi.YAML, 0o600); err != nil {
		t.Fatal(err)
	}
	shipmentProps := []string{"components", "schemas", "Shipment", "properties"}
	cases := []struct {
		name string
		edit func(t *testing.T, doc *yaml.Node)
		// check is the oasdiff check id the gate must fail on; "" means it must pass.
		check string
	}{
		{
			name: "unchanged",
			edit: func(*testing.T, *yaml.Node) {},
		},
		{
			name: "optional response property added",
			edit: func(t *testing.T, doc *yaml.Node) {
				props := at(t, doc, shipmentProps...)
				var prop yaml.Node
				if err := prop.Encode(map[string]any{"type": "string", "description": "A new optional field."}); err != nil {
					t.Fatal(err)
				}
				props.Content = append(props.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "addedField"}, &prop)
			},
		},
		{
			name: "response property renamed",
			edit: func(t *testing.T, doc *yaml.Node) {
				key(t, at(t, doc, shipmentProps...), "trackingNumber").Value = "trackingNumberRenamed"
			},
			check: "response-optional-property-removed",
		},
		{
			name: "response property removed",
			edit: func(t *testing.T, doc *yaml.Node) {
				props := at(t, doc, shipmentProps...)
				k := key(t, props, "labelUrl")
				i := slices.Index(props.Content, k)
				props.Content = slices.Delete(props.Content, i, i+2)
			},
			check: "response-optional-property-removed",
		},
		{
			// TrackerStatus appears only in responses; a request enum losing
			// a value already fails by oasdiff's defaults.
			name: "response enum value removed",
			edit: func(t *testing.T, doc *yaml.Node) {
				enum := at(t, doc, "components", "schemas", "TrackerStatus", "enum")
				i := slices.IndexFunc(enum.Content, func(n *yaml.Node) bool { return n.Value == "cancelled" })
				if i < 0 {
					t.Fatal("TrackerStatus has no cancelled")
				}
				enum.Content = slices.Delete(enum.Content, i, i+1)
			},
			check: "response-property-enum-value-removed",
		},
		{
			// int64 to int32 narrows what a response sends, so oasdiff calls it
			// info; a generated client's int64 field becomes an int32.
			name: "response property format changed",
			edit: func(t *testing.T, doc *yaml.Node) {
				f := at(t, doc, append(shipmentProps, "chargeAmountCents", "format")...)
				if f.Value != "int64" {
					t.Fatalf("chargeAmountCents format %q, want int64", f.Value)
				}
				f.Value = "int32"
			},
			check: "response-property-type-specialized",
		},
		{
			// Error codes and carrier names are strings whose known values
			// are listed (x-extensible-enum): a new one is additive.
			name: "known error code added",
			edit: func(t *testing.T, doc *yaml.Node) {
				codes := at(t, doc, "components", "schemas", "ErrorCode", "x-extensible-enum")
				codes.Content = append(codes.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "a_new_code"})
				names := at(t, doc, "components", "schemas", "ErrorCode", "x-enum-varnames")
				names.Content = append(names.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "ANewCode"})
			},
		},
		{
			name: "known carrier name added",
			edit: func(t *testing.T, doc *yaml.Node) {
				names := at(t, doc, append(shipmentProps, "carrier", "x-extensible-enum")...)
				names.Content = append(names.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "NewCarrier"})
			},
		},
		{
			// Making the list a closed enum would refuse every code a later
			// version adds in a client that checks enums (a generated Python
			// client's Enum raises on an unknown value).
			name: "error code made a closed enum",
			edit: func(t *testing.T, doc *yaml.Node) {
				schema := at(t, doc, "components", "schemas", "ErrorCode")
				key(t, schema, "x-extensible-enum").Value = "enum"
			},
			check: "response-property-became-enum",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var doc yaml.Node
			if err := yaml.Unmarshal(openapi.YAML, &doc); err != nil {
				t.Fatal(err)
			}
			tc.edit(t, &doc)
			out, err := yaml.Marshal(&doc)
			if err != nil {
				t.Fatal(err)
			}
			changed := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(changed, out, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(t.Context(), "bash", "../scripts/check-api.sh", base, changed)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			err = cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("the gate did not run: %v\n%s", err, output.String())
			}
			switch {
			case tc.check == "" && err != nil:
				t.Errorf("the gate fails an additive change: %v\n%s", err, output.String())
			case tc.check != "" && err == nil:
				t.Errorf("the gate passes a breaking change (want %s)\n%s", tc.check, output.String())
			case tc.check != "" && exit.ExitCode() != 1:
				t.Errorf("the gate exits %d, want 1 (breaking changes)\n%s", exit.ExitCode(), output.String())
			case tc.check != "" && !strings.Contains(output.String(), "["+tc.check+"]"):
				t.Errorf("the gate fails, but not on %s\n%s", tc.check, output.String())
			}
		})
	}
}

// at walks a YAML document's mappings by keys and returns the value node.
func at(t *testing.T, doc *yaml.Node, keys ...string) *yaml.Node {
	t.Helper()
	n := doc
	if n.Kind == yaml.DocumentNode {
		n = n.Content[0]
	}
	for _, k := range keys {
		kn := key(t, n, k)
		n = n.Content[slices.Index(n.Content, kn)+1]
	}
	return n
}

// key returns the key node named name of mapping m.
func key(t *testing.T, m *yaml.Node, name string) *yaml.Node {
	t.Helper()
	if m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == name {
				return m.Content[i]
			}
		}
	}
	t.Fatalf("the contract has no %q at line %d", name, m.Line)
	return nil
}
