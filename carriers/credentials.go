package carriers

import "fmt"

// Carrier account environments: the carrier's production API or its test
// environment, at base URLs the operator configures (a tenant never names one).
const (
	EnvironmentProduction = "production"
	EnvironmentTest       = "test"
)

// Credentials are one carrier account's credentials in clear, as a Factory
// takes them. String never prints the secret.
type Credentials struct {
	// Carrier is the carrier's name: "UPS", "FedEx" or "USPS".
	Carrier string
	// Environment is EnvironmentProduction or EnvironmentTest.
	Environment                           string
	ClientID, ClientSecret, AccountNumber string
	// CRID and MID are USPS's Customer Registration ID and Mailer ID.
	CRID, MID string
}

func (c Credentials) String() string {
	return fmt.Sprintf("carriers.Credentials{Carrier: %q, Environment: %q, ClientID: %q, ClientSecret: [redacted]}", c.Carrier, c.Environment, c.ClientID)
}

// GoString keeps %#v from printing the secret.
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
