package contracttest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/oasdiff/yaml"

	"github.com/shipd-dev/shipd/openapi"
)

func getPublished(t *testing.T, path string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), "GET", suite.target.BaseURL+apiPrefix+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := suite.target.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.StatusCode, truncate(body, 200))
	}
	return body
}

// The contract is served at /api/v1/openapi.yaml byte for byte, and at
// /api/v1/openapi.json as the same document.
func TestPublishedContract(t *testing.T) {
	t.Parallel()
	served := getPublished(t, "/openapi.yaml")
	if !bytes.Equal(served, openapi.YAML) {
		t.Errorf("GET /api/v1/openapi.yaml (%d bytes) differs from openapi/openapi.yaml (%d bytes)", len(served), len(openapi.YAML))
	}

	servedJSON := getPublished(t, "/openapi.json")
	var got, want any
	if err := json.Unmarshal(servedJSON, &got); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	raw, err := yaml.YAMLToJSON(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("openapi.json is not openapi.yaml (-yaml +json):\n%s", diff)
	}
	// And kin-openapi reads both as the same document.
	fromYAML, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := openapi3.NewLoader().LoadFromData(servedJSON)
	if err != nil {
		t.Fatalf("kin-openapi cannot load openapi.json: %v", err)
	}
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Error("kin-openapi loads openapi.json and openapi.yaml as different documents")
	}
}
