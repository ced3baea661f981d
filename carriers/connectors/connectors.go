// Package connectors is the registry of shipd's carrier connectors: the
// list every carrier-driven part of shipd reads (flags, carrier accounts,
// requirements, quotas, tracking-number recognition, the sandbox, the
// documents and the contract). Adding a carrier is its folder under
// carriers/ and one line in All (docs/adding-a-carrier.md).
package connectors

//go:generate go run ./gendocs -root ../..

import (
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde"
	"github.com/shipd-dev/shipd/carriers/dpd"
	"github.com/shipd-dev/shipd/carriers/fedex"
	"github.com/shipd-dev/shipd/carriers/gls"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/usps"
)

// All are the connectors' descriptors, in the order shipd lists them.
func All() []carriers.Descriptor {
	return []carriers.Descriptor{
		usps.Descriptor(),
		ups.Descriptor(),
		fedex.Descriptor(),
		dhlparcelde.Descriptor(),
		gls.Descriptor(),
		dpd.Descriptor(),
		dhlexpress.Descriptor(),
	}
}

// Catalog is the catalog of All. The list is fixed at build time, so a
// descriptor it refuses is a programming error, which TestCatalog catches.
func Catalog() *carriers.Catalog {
	c, err := carriers.NewCatalog(All()...)
	if err != nil {
		panic(err)
	}
	return c
}
