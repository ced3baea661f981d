package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/oasdiff/yaml"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/openapi"
)

// GetOpenAPIYAML serves the contract exactly as published.
func (s *Server) GetOpenAPIYAML(ctx context.Context, _ gen.GetOpenAPIYAMLRequestObject) (gen.GetOpenAPIYAMLResponseObject, error) {
	return gen.GetOpenAPIYAML200ApplicationyamlResponse{Body: bytes.NewReader(openapi.YAML), ContentLength: int64(len(openapi.YAML))}, nil
}

// GetOpenAPIJSON serves the contract converted to JSON.
func (s *Server) GetOpenAPIJSON(ctx context.Context, _ gen.GetOpenAPIJSONRequestObject) (gen.GetOpenAPIJSONResponseObject, error) {
	raw, err := yaml.YAMLToJSON(openapi.YAML)
	if err != nil {
		return nil, fmt.Errorf("contract to JSON: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	return gen.GetOpenAPIJSON200JSONResponse(doc), nil
}
