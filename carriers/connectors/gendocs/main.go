// Command gendocs writes what the contract and the documents say of each
// carrier from the registry (carriers/connectors), so that adding a carrier
// is its folder and its line in the registry: `make generate` (go generate)
// runs it before oapi-codegen, and `make check-generate` fails when what it
// writes is not committed.
//
// It rewrites marked places only:
//   - in openapi/openapi.yaml, an `enum:` (or, in a response, `x-extensible-enum:`) line ending in `# registry: carriers`
//     (the names of the carriers with a live connector, which carrier
//     accounts take), every `x-extensible-enum:` line ending in
//     `# registry: all carriers` (the names of every carrier, sandbox twins
//     included: test mode quotes them, so rates, shipments and trackers may
//     name any), and the schema whose key line ends in
//     `# registry: credentials` (every live connector's credential fields);
//   - in docs/going-live.md, the lines between `<!-- registry: carriers -->`
//     and `<!-- /registry -->` (the table of credentials and variables).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	check := flag.Bool("check", false, "write nothing; fail when a file is not what would be written")
	flag.Parse()
	stale, err := Generate(*root, connectors.All(), !*check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	if *check && len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "gendocs: %s not what the registry says: run make generate\n", strings.Join(stale, ", "))
		os.Exit(1)
	}
}

// Generate rewrites the marked places of the files under root from the
// registry's descriptors ds and returns the files whose content changed
// (written when write is set).
func Generate(root string, ds []carriers.Descriptor, write bool) ([]string, error) {
	var stale []string
	for _, f := range []struct {
		path string
		gen  func([]byte, []carriers.Descriptor) ([]byte, error)
	}{
		{"openapi/openapi.yaml", contract},
		{"docs/going-live.md", func(text []byte, ds []carriers.Descriptor) ([]byte, error) { return goingLive(text, live(ds)) }},
	} {
		path := filepath.Join(root, f.path)
		old, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		updated, err := f.gen(old, ds)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		if bytes.Equal(old, updated) {
			continue
		}
		stale = append(stale, f.path)
		if write {
			if err := os.WriteFile(path, updated, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}

var (
	enumLine       = regexp.MustCompile(`(?m)^(\s*(?:x-extensible-)?enum: )\[[^\]\n]*\](\s*# registry: carriers.*)$`)
	knownNamesLine = regexp.MustCompile(`(?m)^(\s*x-extensible-enum: )\[[^\]\n]*\](\s*# registry: all carriers.*)$`)
	credentialsKey = regexp.MustCompile(`(?m)^( *)(\w+): # registry: credentials.*$`)
)

// live are the descriptors of ds with a live connector: a sandbox twin only
// has no credentials and no carrier accounts.
func live(ds []carriers.Descriptor) []carriers.Descriptor {
	var out []carriers.Descriptor
	for _, d := range ds {
		if d.Live() {
			out = append(out, d)
		}
	}
	return out
}

func names(ds []carriers.Descriptor) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d.ID)
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// contract writes the carriers' names and the live ones' credential fields
// into the contract.
func contract(text []byte, all []carriers.Descriptor) ([]byte, error) {
	if !enumLine.Match(text) {
		return nil, fmt.Errorf("no enum line marked `# registry: carriers`")
	}
	if !knownNamesLine.Match(text) {
		return nil, fmt.Errorf("no x-extensible-enum line marked `# registry: all carriers`")
	}
	ds := live(all)
	text = enumLine.ReplaceAll(text, []byte("${1}"+names(ds)+"${2}"))
	text = knownNamesLine.ReplaceAll(text, []byte("${1}"+names(all)+"${2}"))
	loc := credentialsKey.FindSubmatchIndex(text)
	if loc == nil {
		return nil, fmt.Errorf("no schema marked `# registry: credentials`")
	}
	indent := string(text[loc[2]:loc[3]])
	start := loc[1] + 1 // after the key line
	end := blockEnd(text, start, len(indent))
	return slices.Concat(text[:start], []byte(credentialsSchema(indent+"  ", ds)), text[end:]), nil
}

// blockEnd is where the block of lines from start, indented deeper than
// indent, ends: after its last non-blank line, before the first non-blank
// line indented no deeper (the blank lines between stay).
func blockEnd(text []byte, start, indent int) int {
	end := start
	for i := start; i < len(text); {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			j = len(text) - i
		}
		line := text[i : i+j]
		trimmed := bytes.TrimLeft(line, " ")
		if len(trimmed) > 0 {
			if len(line)-len(trimmed) <= indent {
				break
			}
			end = min(i+j+1, len(text))
		}
		i += j + 1
	}
	return end
}

// field is a credential field as the contract lists it: every carrier that
// takes it.
type field struct {
	name   string
	maxLen int
	secret bool
	uses   []string // "UPS: Shipper number"
	takers int
}

func credentialsSchema(in string, ds []carriers.Descriptor) string {
	var order []string
	fields := map[string]*field{}
	required := map[string]int{}
	for _, d := range ds {
		for _, f := range d.Credentials {
			x, ok := fields[f.Name]
			if !ok {
				x = &field{name: f.Name}
				fields[f.Name] = x
				order = append(order, f.Name)
			}
			x.maxLen = max(x.maxLen, cmpOr(f.MaxLen, carriers.DefaultCredentialMaxLen))
			x.secret = x.secret || f.Secret
			x.uses = append(x.uses, string(d.ID)+": "+f.Label)
			x.takers++
			if !f.Optional {
				required[f.Name]++
			}
		}
	}
	var b strings.Builder
	w := func(format string, args ...any) {
		if format == "" {
			b.WriteString("\n")
			return
		}
		fmt.Fprintf(&b, in+format+"\n", args...)
	}
	w("type: object")
	w("additionalProperties: false")
	w("description: |")
	w("  A carrier's API credentials, by field: each carrier takes its own fields, and")
	w("  refuses another's with 422 `invalid_field`; a field it requires and lacks is 422")
	w("  `missing_field`. Written from the registry of carrier connectors (`make generate`).")
	w("")
	for _, d := range ds {
		var parts []string
		for _, f := range d.Credentials {
			p := "`" + f.Name + "` (" + f.Label
			if f.Optional {
				p += ", optional"
			}
			parts = append(parts, p+")")
		}
		w("  - %s: %s.", d.ID, strings.Join(parts, ", "))
	}
	var req []string
	for _, name := range order {
		if required[name] == len(ds) {
			req = append(req, name)
		}
	}
	if len(req) > 0 {
		w("required: [%s]", strings.Join(req, ", "))
	}
	w("properties:")
	for _, name := range order {
		f := fields[name]
		w("  %s:", name)
		w("    type: string")
		if slices.Contains(req, name) {
			w("    minLength: 1")
		}
		w("    maxLength: %d", f.maxLen)
		desc := strings.Join(f.uses, "; ") + "."
		if f.secret {
			desc = "Never returned, logged or stored in clear. " + desc
		}
		w("    description: %s", yamlString(desc))
	}
	return b.String()
}

// yamlString quotes s when a plain scalar could not hold it.
func yamlString(s string) string {
	if strings.ContainsAny(s, ":#'\"") || strings.HasPrefix(s, "`") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

var liveTable = regexp.MustCompile(`(?s)(<!-- registry: carriers -->\n).*?(<!-- /registry -->)`)

// goingLive writes the table of each carrier's credentials and variables.
func goingLive(text []byte, ds []carriers.Descriptor) ([]byte, error) {
	if !liveTable.Match(text) {
		return nil, fmt.Errorf("no table between <!-- registry: carriers --> and <!-- /registry -->")
	}
	var b strings.Builder
	b.WriteString("| Carrier | Get credentials | Environment |\n|---|---|---|\n")
	for _, d := range ds {
		var vars []string
		for _, f := range d.Credentials {
			vars = append(vars, "`"+d.Env(f.Flag)+"`")
		}
		vars = append(vars, "`"+d.Env("base-url")+"`")
		fmt.Fprintf(&b, "| %s | %s | %s |\n", d.DisplayName, d.CredentialsHelp, strings.Join(vars, ", "))
	}
	return liveTable.ReplaceAll(text, []byte("${1}"+strings.ReplaceAll(b.String(), "$", "$$")+"${2}")), nil
}
