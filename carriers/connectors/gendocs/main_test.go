package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// contractExcerpt has each marked place gendocs writes in openapi.yaml.
const contractExcerpt = `components:
  schemas:
    Rate:
      properties:
        carrier:
          type: string
          x-extensible-enum: [] # registry: all carriers (make generate)
    Tracker:
      properties:
        carrier:
          type: string
          x-extensible-enum: [Old] # registry: all carriers (make generate)
    CarrierAccount:
      properties:
        carrier:
          type: string
          enum: [Old] # registry: carriers (make generate)
    Credentials: # registry: credentials
      type: object

    Next:
      type: string
`

func TestGenerateWritesEveryCarrierName(t *testing.T) {
	root := t.TempDir()
	for path, text := range map[string]string{
		"openapi/openapi.yaml": contractExcerpt,
		"docs/going-live.md":   "# Going live\n<!-- registry: carriers -->\n<!-- /registry -->\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	liveOne := carriers.Descriptor{ID: "Live", DisplayName: "Live Carrier",
		New:         func(carriers.ConnectorConfig) (carriers.Carrier, error) { return nil, nil },
		Credentials: []carriers.CredentialField{{Name: "clientId", Label: "Client ID", Flag: "client-id"}}}
	twin := carriers.Descriptor{ID: "Twin", DisplayName: "Sandbox Twin"}

	stale, err := Generate(root, []carriers.Descriptor{liveOne, twin}, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"openapi/openapi.yaml", "docs/going-live.md"}, stale); diff != "" {
		t.Errorf("files written (-want +got):\n%s", diff)
	}
	text, err := os.ReadFile(filepath.Join(root, "openapi/openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(text)
	for _, want := range []string{
		"x-extensible-enum: [Live, Twin] # registry: all carriers",
		"enum: [Live] # registry: carriers", // carrier accounts: live connectors only
	} {
		if n := strings.Count(got, want); n == 0 {
			t.Errorf("the contract has no %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "x-extensible-enum: [Live, Twin]"); n != 2 {
		t.Errorf("%d x-extensible-enum lines rewritten, want every marked one (2):\n%s", n, got)
	}

	again, err := Generate(root, []carriers.Descriptor{liveOne, twin}, false)
	if err != nil || len(again) != 0 {
		t.Errorf("a second run finds %v stale (%v), want nothing", again, err)
	}
}

func TestGenerateNeedsTheMarks(t *testing.T) {
	text := strings.ReplaceAll(contractExcerpt, "# registry: all carriers", "")
	if _, err := contract([]byte(text), nil); err == nil || !strings.Contains(err.Error(), "all carriers") {
		t.Errorf("a contract without the names' mark: %v, want an error naming it", err)
	}
}
