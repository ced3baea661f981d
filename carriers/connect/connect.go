// Package connect builds the live carrier clients of tenants' carrier
// accounts: each with its own credentials and token cache, at the base URL
// the operator configured for the carrier and environment, never one the
// tenant names (that would let any account point shipd's requests at any
// host).
package connect

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/usps"
)

// URLs are the operator's base URLs per carrier and environment; an empty
// one is the carrier's published URL.
type URLs struct {
	UPS, UPSTest     string
	FedEx, FedExTest string
	USPS, USPSTest   string
}

// Options are what every client built shares.
type Options struct {
	URLs URLs
	// HTTPClient is each carrier's default when nil.
	HTTPClient *http.Client
	// OnTokenRefresh, when set, gives each client's token-refresh hook
	// (metrics), by carrier name.
	OnTokenRefresh func(carrier string) func()
	Logger         *slog.Logger
	// LabelMemory bounds the label conversions of every client together.
	LabelMemory *carriers.LabelMemory
}

// New returns the Factory of carrier accounts' clients.
func New(o Options) carriers.Factory {
	if o.LabelMemory == nil {
		o.LabelMemory = carriers.NewLabelMemory(0)
	}
	pick := func(env, prod, test, defProd, defTest string) string {
		if env == carriers.EnvironmentTest {
			return or(test, defTest)
		}
		return or(prod, defProd)
	}
	hook := func(name string) func() {
		if o.OnTokenRefresh == nil {
			return nil
		}
		return o.OnTokenRefresh(name)
	}
	return func(c carriers.Credentials) (carriers.Carrier, error) {
		switch c.Carrier {
		case "UPS":
			return ups.New(ups.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccountNumber: c.AccountNumber,
				BaseURL:    pick(c.Environment, o.URLs.UPS, o.URLs.UPSTest, ups.ProductionURL, ups.CustomerIntegrationURL),
				HTTPClient: o.HTTPClient, Logger: o.Logger, LabelMemory: o.LabelMemory, OnTokenRefresh: hook("UPS")})
		case fedex.Name:
			return fedex.New(fedex.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccountNumber: c.AccountNumber,
				BaseURL:    pick(c.Environment, o.URLs.FedEx, o.URLs.FedExTest, fedex.ProductionURL, fedex.SandboxURL),
				HTTPClient: o.HTTPClient, Logger: o.Logger, OnTokenRefresh: hook(fedex.Name)})
		case usps.CarrierName:
			return usps.New(usps.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccountNumber: c.AccountNumber,
				CRID: c.CRID, MID: c.MID,
				BaseURL:    pick(c.Environment, o.URLs.USPS, o.URLs.USPSTest, usps.ProductionURL, usps.TestingURL),
				HTTPClient: o.HTTPClient, Logger: o.Logger, LabelMemory: o.LabelMemory, OnTokenRefresh: hook(usps.CarrierName)})
		}
		return nil, fmt.Errorf("carrier %q: %w", c.Carrier, carriers.ErrUnknownCarrier)
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
