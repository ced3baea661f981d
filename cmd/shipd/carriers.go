package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// liveFlags are the live carriers' credentials and base URLs, from flags
// or (better, since flags show in the process list) the environment, one
// set per connector of the catalog: --<slug>-<field> and
// $SHIPD_<SLUG>_<FIELD> for each credential field, --<slug>-base-url and
// --<slug>-test-base-url. A carrier whose credentials are absent is not
// offered.
type liveFlags struct {
	catalog *carriers.Catalog
	// values are the credential fields given, by carrier and field name.
	values map[carriers.ID]map[string]*string
	// urls are the operator's base URLs: production for the operator's own
	// carriers and for carrier accounts connected to production, test for
	// those connected with environment test.
	urls map[carriers.ID]*carriers.Endpoints
	// platformCarriers: accounts without a carrier account of their own
	// ship on the carriers above in live mode.
	platformCarriers bool
	// sheets are the operator's rate sheets' paths by carrier:
	// --<slug>-rate-sheet, $SHIPD_<SLUG>_RATE_SHEET or --rate-sheet ID=FILE.
	sheets map[carriers.ID]*string
}

func (l *liveFlags) register(fs *flag.FlagSet, catalog *carriers.Catalog) {
	l.catalog = catalog
	l.values = map[carriers.ID]map[string]*string{}
	l.urls = map[carriers.ID]*carriers.Endpoints{}
	l.sheets = map[carriers.ID]*string{}
	for _, d := range catalog.Descriptors() {
		if !d.Live() {
			continue // a sandbox twin only: nothing to configure
		}
		values := map[string]*string{}
		for _, f := range d.Credentials {
			p, name, env := new(string), d.Slug+"-"+f.Flag, d.Env(f.Flag)
			if f.Secret || f.Redact {
				secretFlag(fs, p, name, env, f.Usage)
			} else {
				fs.StringVar(p, name, envOr(env, ""), f.Usage+" ($"+env+")")
			}
			values[f.Name] = p
		}
		l.values[d.ID] = values
		u := &carriers.Endpoints{}
		fs.StringVar(&u.Production, d.Slug+"-base-url", envOr(d.Env("base-url"), ""),
			fmt.Sprintf("%s API base URL (default %s; test: %s) ($%s)", d.DisplayName, d.URLs.Production, d.URLs.Test, d.Env("base-url")))
		fs.StringVar(&u.Test, d.Slug+"-test-base-url", envOr(d.Env("test-base-url"), ""),
			fmt.Sprintf("%s test environment base URL for carrier accounts connected with environment test (default %s) ($%s)",
				d.DisplayName, d.URLs.Test, d.Env("test-base-url")))
		l.urls[d.ID] = u
		sheetUsage := d.DisplayName + " prices negotiated in your contract, as a rate sheet (CSV service,destination,maxWeightG,price,currency), over the API's where it has rows"
		if d.RatesFromSheet {
			sheetUsage = d.DisplayName + " has no rating API: your contract's prices, as a rate sheet (CSV service,destination,maxWeightG,price,currency)"
		}
		l.sheets[d.ID] = fs.String(d.Slug+"-rate-sheet", envOr(d.Env("rate-sheet"), ""), sheetUsage+" ($"+d.Env("rate-sheet")+")")
	}
	fs.Func("rate-sheet", "CARRIER=FILE: a carrier's rate sheet, as --<carrier>-rate-sheet (repeatable)", func(v string) error {
		name, path, ok := strings.Cut(v, "=")
		d, known := catalog.Lookup(strings.TrimSpace(name))
		switch {
		case !ok || strings.TrimSpace(path) == "":
			return fmt.Errorf("want CARRIER=FILE, e.g. DHLParcelDE=/etc/shipd/dhl.csv")
		case !known || !d.Live():
			return fmt.Errorf("%q is not a live carrier", name)
		}
		*l.sheets[d.ID] = strings.TrimSpace(path)
		return nil
	})
	fs.BoolVar(&l.platformCarriers, "platform-carriers", envOr("SHIPD_PLATFORM_CARRIERS", "true") != "false",
		"live mode of an account without an enabled carrier account of its own uses the carriers configured here; false: its live quotes answer 422 no_carrier_accounts ($SHIPD_PLATFORM_CARRIERS)")
}

// accountCarriers builds the clients of tenants' carrier accounts at the
// operator's base URLs: the production ones of the flags above (the
// carrier's own by default) and the test environments'.
func (l *liveFlags) accountCarriers(onRefresh func(carrier string) func()) carriers.Factory {
	urls := map[carriers.ID]carriers.Endpoints{}
	for id, u := range l.urls {
		urls[id] = *u
	}
	return l.catalog.Factory(carriers.FactoryOptions{URLs: urls, OnTokenRefresh: onRefresh})
}

// configured reports whether the operator gave d's carrier credentials:
// its identity (the client id) or one of its secrets.
func (l *liveFlags) configured(d carriers.Descriptor) bool {
	for _, f := range d.Credentials {
		if v := *l.values[d.ID][f.Name]; v != "" && (f.Secret || f.Name == d.IdentityField) {
			return true
		}
	}
	return false
}

// carriers builds the configured live carriers, each with the token-refresh
// hook onRefresh gives it, and the live address verifier: the configured
// connectors that verify addresses, by VerifierRank, each asked in turn
// until one covers the address's country (verifier.Chain: USPS, else UPS,
// for US addresses; DHL Express for the others); none otherwise.
func (l *liveFlags) carriers(onRefresh func(carrier string) func()) ([]carriers.Carrier, verifier.Verifier, error) {
	type ranked struct {
		v    verifier.Verifier
		rank int
	}
	var (
		live      []carriers.Carrier
		verifiers []ranked
	)
	for _, d := range l.catalog.Descriptors() {
		if !d.Live() || !l.configured(d) {
			continue
		}
		fields := map[string]string{}
		for name, p := range l.values[d.ID] {
			fields[name] = *p
		}
		c, err := d.New(carriers.ConnectorConfig{Credentials: carriers.NewCredentials(d, carriers.EnvironmentProduction, fields),
			BaseURL: cmp.Or(l.urls[d.ID].Production, d.URLs.Production), OnTokenRefresh: onRefresh(string(d.ID))})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", d.ID, err)
		}
		if v, ok := c.(verifier.Verifier); ok && d.Capabilities.Has(carriers.CapAddressValidation) {
			verifiers = append(verifiers, ranked{v, d.VerifierRank})
		}
		sheet, err := l.rateSheet(d)
		if err != nil {
			return nil, nil, err
		}
		live = append(live, d.Priced(c, sheet, fmt.Sprintf("set %s or --rate-sheet %s=FILE", d.Env("rate-sheet"), d.ID)))
	}
	slices.SortStableFunc(verifiers, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	switch len(verifiers) {
	case 0:
		return live, nil, nil
	case 1:
		return live, verifiers[0].v, nil
	}
	chain := make(verifier.Chain, len(verifiers))
	for i, r := range verifiers {
		chain[i] = r.v
	}
	return live, chain, nil
}

// rateSheet reads the operator's rate sheet of d's carrier; nil when none
// is set. An error names the file and the line and column of the first
// mistake.
func (l *liveFlags) rateSheet(d carriers.Descriptor) (*carriers.RateSheet, error) {
	path := *l.sheets[d.ID]
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError(fmt.Sprintf("serve: %s's rate sheet: %v", d.ID, err))
	}
	defer f.Close()
	sheet, err := carriers.ParseRateSheet(f)
	if err != nil {
		return nil, usageError(fmt.Sprintf("serve: %s's rate sheet %s: %v", d.ID, path, err))
	}
	return sheet, nil
}

// credentialVariables are the environment variables of the carriers'
// identities, for the message that live mode has no carrier.
func (l *liveFlags) credentialVariables() string {
	var names []string
	for _, d := range l.catalog.Descriptors() {
		if f, ok := d.Field(d.IdentityField); ok && d.Live() {
			names = append(names, d.Env(f.Flag))
		}
	}
	return strings.Join(slices.Compact(names), ", ")
}
