// Package contracttest replays every documented status of every operation of
// openapi/openapi.yaml against a running shipd, and checks each response
// against the contract. Everything lives in the _test.go files; run it with
// `make contract` (see README.md in this directory).
package contracttest
