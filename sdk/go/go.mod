// The Go client of make sdk-test: a module of its own, apart from shipd's,
// as a user's program would be; its package shipd is generated from
// openapi/openapi.yaml by oapi-codegen (pinned by shipd's go.mod).
module shipdsdk

go 1.26.0

require (
	github.com/oapi-codegen/runtime v1.8.0
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
)
