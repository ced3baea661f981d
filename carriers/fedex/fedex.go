// Package fedex is the live FedEx carrier: rates, labels, voids and tracking
// through FedEx's REST APIs (developer.fedex.com: Authorization v1, Rates and
// Transit Times v1, Ship v1, Track v1), authenticated with an OAuth
// client-credentials token kept by carriers/oauth.
//
// FedEx has no idempotency key: a purchase retried after a lost answer buys a
// second label. The shipd shipment id goes on the label as the customer
// reference and, prefixed, in the x-customer-transaction-id header (see
// transactionID), so that a duplicate can be found and voided by hand.
//
// FedEx's OpenAPI documents are vendored in carriers/fedex/spec, and
// spec_test.go holds every golden request and every fedexfake exchange to
// them. The wire types are written by hand, not generated: oapi-codegen
// v2.8.2 (-generate types) copes with the four documents and its 22,000
// lines compile, but rate-api.json types totalNetCharge and the other
// totals as the Money object ({"amount", "currency"}) while FedEx, and the
// document's own example answers, send plain numbers (445.54), which the
// generated `TotalNetCharge *Money1` refuses; amount reads either and keeps
// the decimal literal where the generated float64 would round cents; and
// the rate request body is a 23-way oneOf, generated as an opaque union
// (`Body struct{ union json.RawMessage }`) instead of a struct to fill.
// The OAuth token and the Ground end-of-day close have no document at all.
package fedex

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

const (
	// ProductionURL is FedEx's production API host.
	ProductionURL = "https://apis.fedex.com"
	// SandboxURL is FedEx's test environment, where labels are not billed.
	SandboxURL = "https://apis-sandbox.fedex.com"

	// Name is the carrier name shipd shows and looks carriers up by.
	Name = "FedEx"

	defaultTimeout = 20 * time.Second
)

// ErrInvalidConfig is wrapped by New for a configuration it cannot use.
var ErrInvalidConfig = errors.New("fedex: invalid configuration")

// Config is how to reach one FedEx account.
type Config struct {
	// ClientID is the FedEx project's API key.
	ClientID string
	// ClientSecret is the FedEx project's secret key.
	ClientSecret string
	// AccountNumber is the 9-digit FedEx account the labels are billed to.
	AccountNumber string
	// BaseURL defaults to ProductionURL; SandboxURL is FedEx's test environment.
	BaseURL string
	// HTTPClient defaults to a client with a 20 s timeout.
	HTTPClient *http.Client
	// Now is the clock (ship dates); default time.Now.
	Now func() time.Time
	// OnTokenRefresh is called after every new access token (metrics).
	OnTokenRefresh func()
	// Logger receives what API clients are not shown of a failed call (a
	// transport error's URL, a redirect's Location), credentials redacted;
	// default slog.Default().
	Logger *slog.Logger
}

// String describes the configuration without its credentials, so a Config
// can be logged or printed with %v and %+v.
func (c Config) String() string {
	return fmt.Sprintf("fedex.Config{BaseURL: %q, ClientID: %s, ClientSecret: %s, AccountNumber: %s}",
		c.BaseURL, redacted(c.ClientID), redacted(c.ClientSecret), redacted(c.AccountNumber))
}

// GoString keeps %#v from printing the credentials.
func (c Config) GoString() string { return c.String() }

// LogValue keeps log/slog from printing the credentials.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", c.BaseURL),
		slog.String("client_id", redacted(c.ClientID)),
		slog.String("client_secret", redacted(c.ClientSecret)),
		slog.String("account_number", redacted(c.AccountNumber)),
	)
}

func redacted(s string) string {
	if s == "" {
		return "unset"
	}
	return "set"
}

// Carrier is the live FedEx carrier. It is safe for concurrent use.
type Carrier struct {
	clientID     string
	clientSecret string
	account      string
	baseURL      string
	client       *http.Client
	now          func() time.Time
	tokens       *oauth.Cache
	log          *slog.Logger
	// redact hides the credentials in whatever FedEx's text repeats.
	redact *carriers.Redactor
}

var (
	_ carriers.Carrier = (*Carrier)(nil)
	_ carriers.Tracker = (*Carrier)(nil)
)

// New checks the configuration and returns the carrier. It does not call
// FedEx: the first token is fetched by the first request.
func New(cfg Config) (*Carrier, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"ClientID", cfg.ClientID}, {"ClientSecret", cfg.ClientSecret}, {"AccountNumber", cfg.AccountNumber},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrInvalidConfig, strings.Join(missing, ", "))
	}
	account := strings.TrimSpace(cfg.AccountNumber)
	if len(account) != 9 || strings.Trim(account, "0123456789") != "" {
		// The number itself stays out of the message: it is a credential.
		return nil, fmt.Errorf("%w: AccountNumber must be the 9-digit FedEx account number", ErrInvalidConfig)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = ProductionURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) URL", ErrInvalidConfig, base)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: defaultTimeout}
	}
	// FedEx never redirects an API call; following one would send the
	// client secret (token form) or the account and addresses elsewhere.
	client = carriers.NoRedirects(client)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Carrier{
		clientID:     strings.TrimSpace(cfg.ClientID),
		clientSecret: cfg.ClientSecret,
		account:      account,
		baseURL:      base,
		client:       client,
		now:          now,
		log:          log,
		// The API key too: FedEx's Config treats it as a credential.
		redact: carriers.NewRedactor(cfg.ClientID, cfg.ClientSecret, account),
	}
	c.tokens = oauth.NewCache(c.fetchToken, oauth.Options{Now: now, OnRefresh: cfg.OnTokenRefresh})
	return c, nil
}

// Name returns "FedEx".
func (c *Carrier) Name() string { return Name }

// String keeps the credentials out of a printed Carrier.
func (c *Carrier) String() string { return "fedex.Carrier{" + c.baseURL + "}" }

// GoString keeps the credentials out of %#v.
func (c *Carrier) GoString() string { return c.String() }
