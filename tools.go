//go:build tools

// Package tools pins the code generators so `go generate ./...` needs nothing
// installed by hand.
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
