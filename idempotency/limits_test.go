package idempotency_test

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/openapi"
)

// TestKeyLimitMatchesContract: the bound of a key is openapi.yaml's.
func TestKeyLimitMatchesContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	key := doc.Components.Schemas["IdempotencyKey"]
	if key == nil || key.Value.MaxLength == nil {
		t.Fatal("openapi.yaml has no IdempotencyKey with a maxLength")
	}
	if got := int(*key.Value.MaxLength); got != idempotency.MaxKeyLength {
		t.Errorf("IdempotencyKey maxLength %d, the domain's %d", got, idempotency.MaxKeyLength)
	}
}
