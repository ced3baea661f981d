package carriers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Carrier account environments: the carrier's production API or its test
// environment, at base URLs the operator configures (a tenant never names one).
const (
	EnvironmentProduction = "production"
	EnvironmentTest       = "test"
)

// Credentials are one carrier account's credentials in clear, as a
// connector's constructor takes them. String never prints a value.
type Credentials struct {
	// Carrier is the carrier's name (Descriptor.ID).
	Carrier string
	// Environment is EnvironmentProduction or EnvironmentTest.
	Environment string
	// Fields are the credentials by CredentialField.Name.
	Fields map[string]string
	// Identity is the value of the descriptor's IdentityField: what the
	// carrier grants call budgets by (Factory.Limited keys budgets by a
	// hash of it).
	Identity string
	// RateSheet is the account's own rate sheet, nil when it has none: the
	// Factory prices its client's rates from it (Descriptor.Priced).
	RateSheet *RateSheet
}

// NewCredentials are the credentials fields of d's carrier, trimmed of
// surrounding spaces, with their Identity.
func NewCredentials(d Descriptor, environment string, fields map[string]string) Credentials {
	clean := make(map[string]string, len(fields))
	for k, v := range fields {
		if f, ok := d.Field(k); ok && !f.Secret {
			v = strings.TrimSpace(v)
		}
		if v != "" {
			clean[k] = v
		}
	}
	return Credentials{Carrier: string(d.ID), Environment: environment, Fields: clean, Identity: clean[d.IdentityField]}
}

// Get is the value of field name, "" when not given.
func (c Credentials) Get(name string) string { return c.Fields[name] }

func (c Credentials) String() string {
	names := slices.Sorted(maps.Keys(c.Fields))
	return fmt.Sprintf("carriers.Credentials{Carrier: %q, Environment: %q, Fields: %s (values not shown)}", c.Carrier, c.Environment, strings.Join(names, ","))
}

// GoString keeps %#v from printing the values.
func (c Credentials) GoString() string { return c.String() }

// Factory builds a live carrier client, with a token cache of its own, from
// a carrier account's credentials.
type Factory func(Credentials) (Carrier, error)

// Observed returns f with every client it builds observed like the
// operator's carriers (Instrument): a carrier account's calls are counted and
// traced by carrier and operation too.
func (f Factory) Observed(observe Observe) Factory {
	if f == nil || observe == nil {
		return f
	}
	return func(c Credentials) (Carrier, error) {
		client, err := f(c)
		if err != nil {
			return nil, err
		}
		return Instrument(client, observe), nil
	}
}
