package main

import (
	"flag"
	"fmt"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connect"
	"github.com/shipd-dev/shipd/carriers/fedex"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/usps"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// liveFlags are the live carriers' credentials, from flags or (better, since
// flags show in the process list) the environment. A carrier whose
// credentials are absent is not offered.
type liveFlags struct {
	ups   ups.Config
	fedex fedex.Config
	usps  usps.Config
	// testURLs are the carriers' test environments, for the carrier
	// accounts that tenants connect with environment "test"; the
	// production URLs are the BaseURLs above.
	upsTestURL, fedexTestURL, uspsTestURL string
	// platformCarriers: accounts without a carrier account of their own
	// ship on the carriers above in live mode.
	platformCarriers bool
}

func (l *liveFlags) register(fs *flag.FlagSet) {
	str := func(p *string, name, env, usage string) { fs.StringVar(p, name, envOr(env, ""), usage+" ($"+env+")") }
	secret := func(p *string, name, env, usage string) { secretFlag(fs, p, name, env, usage) }
	str(&l.ups.ClientID, "ups-client-id", "SHIPD_UPS_CLIENT_ID", "UPS OAuth client id")
	secret(&l.ups.ClientSecret, "ups-client-secret", "SHIPD_UPS_CLIENT_SECRET", "UPS OAuth client secret")
	secret(&l.ups.AccountNumber, "ups-account-number", "SHIPD_UPS_ACCOUNT_NUMBER", "UPS shipper number")
	str(&l.ups.BaseURL, "ups-base-url", "SHIPD_UPS_BASE_URL", "UPS API base URL (default "+ups.ProductionURL+"; test: "+ups.CustomerIntegrationURL+")")
	str(&l.fedex.ClientID, "fedex-client-id", "SHIPD_FEDEX_CLIENT_ID", "FedEx API key")
	secret(&l.fedex.ClientSecret, "fedex-client-secret", "SHIPD_FEDEX_CLIENT_SECRET", "FedEx secret key")
	secret(&l.fedex.AccountNumber, "fedex-account-number", "SHIPD_FEDEX_ACCOUNT_NUMBER", "FedEx account number")
	str(&l.fedex.BaseURL, "fedex-base-url", "SHIPD_FEDEX_BASE_URL", "FedEx API base URL (default "+fedex.ProductionURL+"; test: "+fedex.SandboxURL+")")
	str(&l.usps.ClientID, "usps-client-id", "SHIPD_USPS_CLIENT_ID", "USPS OAuth client id (consumer key)")
	secret(&l.usps.ClientSecret, "usps-client-secret", "SHIPD_USPS_CLIENT_SECRET", "USPS OAuth client secret")
	str(&l.usps.CRID, "usps-crid", "SHIPD_USPS_CRID", "USPS Customer Registration ID")
	str(&l.usps.MID, "usps-mid", "SHIPD_USPS_MID", "USPS Mailer ID")
	secret(&l.usps.AccountNumber, "usps-account-number", "SHIPD_USPS_ACCOUNT_NUMBER", "USPS EPS account number paying for labels")
	str(&l.usps.BaseURL, "usps-base-url", "SHIPD_USPS_BASE_URL", "USPS API base URL (default "+usps.ProductionURL+"; test: "+usps.TestingURL+")")
	str(&l.upsTestURL, "ups-test-base-url", "SHIPD_UPS_TEST_BASE_URL", "UPS test environment base URL for carrier accounts connected with environment test (default "+ups.CustomerIntegrationURL+")")
	str(&l.fedexTestURL, "fedex-test-base-url", "SHIPD_FEDEX_TEST_BASE_URL", "FedEx test environment base URL for carrier accounts connected with environment test (default "+fedex.SandboxURL+")")
	str(&l.uspsTestURL, "usps-test-base-url", "SHIPD_USPS_TEST_BASE_URL", "USPS test environment base URL for carrier accounts connected with environment test (default "+usps.TestingURL+")")
	fs.BoolVar(&l.platformCarriers, "platform-carriers", envOr("SHIPD_PLATFORM_CARRIERS", "true") != "false",
		"live mode of an account without an enabled carrier account of its own uses the carriers configured here; false: its live quotes answer 422 no_carrier_accounts ($SHIPD_PLATFORM_CARRIERS)")
}

// accountCarriers builds the clients of tenants' carrier accounts at the
// operator's base URLs: the production ones of the flags above (the
// carrier's own by default) and the test environments'.
func (l *liveFlags) accountCarriers(onRefresh func(carrier string) func()) carriers.Factory {
	return connect.New(connect.Options{URLs: connect.URLs{
		UPS: l.ups.BaseURL, UPSTest: l.upsTestURL, FedEx: l.fedex.BaseURL, FedExTest: l.fedexTestURL,
		USPS: l.usps.BaseURL, USPSTest: l.uspsTestURL,
	}, OnTokenRefresh: onRefresh})
}

// carriers builds the configured live carriers and the live address
// verifier (USPS when configured, else UPS; none otherwise).
func (l *liveFlags) carriers() ([]carriers.Carrier, verifier.Verifier, error) {
	var (
		live  []carriers.Carrier
		verif verifier.Verifier
		upsC  *ups.Carrier
	)
	if l.ups.ClientID != "" || l.ups.ClientSecret != "" {
		c, err := ups.New(l.ups)
		if err != nil {
			return nil, nil, fmt.Errorf("UPS: %w", err)
		}
		live, upsC = append(live, c), c
	}
	if l.fedex.ClientID != "" || l.fedex.ClientSecret != "" {
		c, err := fedex.New(l.fedex)
		if err != nil {
			return nil, nil, fmt.Errorf("FedEx: %w", err)
		}
		live = append(live, c)
	}
	if l.usps.ClientID != "" || l.usps.ClientSecret != "" {
		c, err := usps.New(l.usps)
		if err != nil {
			return nil, nil, fmt.Errorf("USPS: %w", err)
		}
		live, verif = append(live, c), c
	}
	if verif == nil && upsC != nil {
		verif = upsC
	}
	return live, verif, nil
}
