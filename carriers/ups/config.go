package ups

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Base URLs of the UPS APIs, from the "servers" of the UPS OpenAPI documents
// (github.com/UPS-API/api-documentation: Rating.yaml, Shipping.yaml,
// Tracking.yaml, AddressValidation.yaml and OAuthClientCredentials.yaml).
// The API paths all start with /api; the token endpoint does not, so the
// base URL is the host only.
const (
	// ProductionURL is the default BaseURL.
	ProductionURL = "https://onlinetools.ups.com"
	// CustomerIntegrationURL is the UPS test environment ("CIE"). Street
	// level address validation there only answers for NY and CA addresses.
	CustomerIntegrationURL = "https://wwwcie.ups.com"
)

// Config holds the credentials and wiring of the live UPS carrier.
type Config struct {
	// ClientID and ClientSecret are the OAuth client credentials of the
	// UPS developer app.
	ClientID     string
	ClientSecret string
	// AccountNumber is the 6-character UPS shipper number that pays for the
	// labels and whose negotiated rates are quoted.
	AccountNumber string
	// BaseURL is ProductionURL when empty; CustomerIntegrationURL for UPS's
	// test environment, or a fake's URL in tests.
	BaseURL string
	// HTTPClient defaults to a client with carriers.DefaultTimeout.
	HTTPClient *http.Client
	// Now is the clock (token expiry, ship and invoice dates); default time.Now.
	Now func() time.Time
	// OnTokenRefresh is called after every successful token fetch (metrics).
	OnTokenRefresh func()
	// Logger receives what API clients are not shown of a failed call (a
	// transport error's URL, a redirect's Location), secrets redacted;
	// default slog.Default().
	Logger *slog.Logger
	// LabelMemory bounds the memory the purchases' label conversions hold
	// at once; a budget of carriers.DefaultLabelMemory when nil.
	LabelMemory *carriers.LabelMemory
}

// ErrConfig is wrapped by New when the configuration cannot work.
var ErrConfig = errors.New("ups: invalid configuration")

// redacted stands in for a secret wherever a Config or a carrier answer is printed.
const redacted = "[redacted]"

// String never shows the client secret or the account number, so a Config
// can be logged or wrapped in an error safely.
func (c Config) String() string {
	return fmt.Sprintf("ups.Config{ClientID: %q, ClientSecret: %s, AccountNumber: %s, BaseURL: %q}",
		c.ClientID, mask(c.ClientSecret), mask(c.AccountNumber), c.BaseURL)
}

// GoString keeps %#v from printing the fields one by one.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the secret.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("client_id", c.ClientID),
		slog.String("client_secret", mask(c.ClientSecret)),
		slog.String("account_number", mask(c.AccountNumber)),
		slog.String("base_url", c.BaseURL),
	)
}

func mask(s string) string {
	if s == "" {
		return "[unset]"
	}
	return redacted
}

// withDefaults validates the credentials and fills the optional fields.
func (c Config) withDefaults() (Config, error) {
	var missing []string
	if strings.TrimSpace(c.ClientID) == "" {
		missing = append(missing, "ClientID")
	}
	if strings.TrimSpace(c.ClientSecret) == "" {
		missing = append(missing, "ClientSecret")
	}
	if strings.TrimSpace(c.AccountNumber) == "" {
		missing = append(missing, "AccountNumber")
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("%w: %s required", ErrConfig, strings.Join(missing, ", "))
	}
	if n := len(strings.TrimSpace(c.AccountNumber)); n != 6 {
		// The value itself is not printed: it is an account number.
		return Config{}, fmt.Errorf("%w: AccountNumber must be the 6-character UPS shipper number (got %d characters)", ErrConfig, n)
	}
	c.AccountNumber = strings.ToUpper(strings.TrimSpace(c.AccountNumber))
	if c.BaseURL == "" {
		c.BaseURL = ProductionURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, fmt.Errorf("%w: BaseURL %q is not an http(s) URL", ErrConfig, c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	// The kit's client: UPS never redirects an API call; following one would
	// send the credentials and the shipment elsewhere.
	c.HTTPClient = carriers.HTTPClient(c.HTTPClient)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.LabelMemory == nil {
		c.LabelMemory = carriers.NewLabelMemory(0)
	}
	return c, nil
}
