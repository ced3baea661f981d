// Package gen holds the code generated from openapi/openapi.yaml by oapi-codegen:
// the models, the Echo strict server interface and the embedded contract.
// Never edit api.gen.go by hand; change the contract and run `go generate ./...`.
package gen

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config config.yaml ../openapi/openapi.yaml
