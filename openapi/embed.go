// Package openapi publishes the contract, openapi.yaml, to the server (which
// serves it and validates requests against it) and to the contract tests.
package openapi

import _ "embed"

// YAML is openapi.yaml, byte for byte.
//
//go:embed openapi.yaml
var YAML []byte
