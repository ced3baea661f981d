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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
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
	carriers.Unsupported
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

var _ carriers.Carrier = (*Carrier)(nil)

// capabilities are what the FedEx connector does.
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack |
	carriers.CapTrackMany | carriers.CapPickups | carriers.CapManifests | carriers.CapReturns |
	carriers.CapMultiPiece | carriers.CapPaperless | carriers.CapLandedCost | carriers.CapFindPurchase |
	carriers.CapCheckCredentials

// Capabilities are what the FedEx connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

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
	// The kit's client: FedEx never redirects an API call; following one
	// would send the client secret (token form) or the account and
	// addresses elsewhere.
	client := carriers.HTTPClient(cfg.HTTPClient)
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
	c.tokens = oauth.NewCache(c.tokenSource().Fetch, oauth.Options{Now: now, OnRefresh: cfg.OnTokenRefresh})
	return c, nil
}

// Name returns "FedEx".
func (c *Carrier) Name() string { return Name }

// String keeps the credentials out of a printed Carrier.
func (c *Carrier) String() string { return "fedex.Carrier{" + c.baseURL + "}" }

// GoString keeps the credentials out of %#v.
func (c *Carrier) GoString() string { return c.String() }

// Descriptor is the FedEx connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: Name, DisplayName: "FedEx", Slug: "fedex",
		CredentialsHelp: "developer.fedex.com: a project with Rate, Ship and Track; your 9-digit account number",
		Credentials: []carriers.CredentialField{
			// The API key too is redacted: FedEx's Config treats it as a credential.
			{Name: "clientId", Label: "API key", Flag: "client-id", Usage: "FedEx API key", Redact: true},
			{Name: "clientSecret", Label: "Secret key", Flag: "client-secret", Usage: "FedEx secret key", Secret: true, MaxLen: 500},
			{Name: "accountNumber", Label: "Account number", Flag: "account-number", Usage: "FedEx account number", Redact: true, MaxLen: 40,
				Check: accountNumberForm},
		},
		IdentityField: "clientId", AccountField: "accountNumber",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: SandboxURL},
		// Express and Ground: 12 or 15 digits; Ground's 22-digit 96 barcode,
		// which has the form of a USPS number too (so needs its carrier named).
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^(\d{12}|\d{15}|96\d{20})$`)},
		TrackingNumberHint: "12 or 15 digits",
		Requirements:       requirements(),
		// 1,400 calls per 10 s per project across its APIs and 100,000 Track
		// calls a day (developer.fedex.com, "Quotas & rate limits").
		Quotas: map[string]carriers.Quota{
			carriers.APIAll:      {Calls: 1400, Per: 10 * time.Second},
			carriers.APITracking: {Calls: 100000, Per: 24 * time.Hour},
		},
		LabelFormats: []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		LabelSizes:   []carriers.LabelSize{carriers.Label4x6, carriers.LabelLetter},
		Capabilities: capabilities,
		Sandbox:      sandboxTariff(),
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{ClientID: cr.Get("clientId"), ClientSecret: cr.Get("clientSecret"), AccountNumber: cr.Get("accountNumber"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger, OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// accountNumberForm is the form of a FedEx account number: 9 digits.
func accountNumberForm(v string) error {
	if len(v) != 9 || strings.Trim(v, "0123456789") != "" {
		return errors.New("must be the 9-digit FedEx account number")
	}
	return nil
}

// requirements are the fields FedEx needs that the API leaves optional
// (Ship API: a contact with personName or companyName and a phoneNumber,
// 10 digits for the US and Canada, for shipper and recipient).
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "FedEx requires the sender's name or company", Met: carriers.HasNameOrCompany(from)},
		{Field: "fromAddress.phone", Rule: "FedEx requires the sender's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere", Met: phoneMet(from)},
		{Field: "toAddress.name", Rule: "FedEx requires the recipient's name or company", Met: carriers.HasNameOrCompany(to)},
		{Field: "toAddress.phone", Rule: "FedEx requires the recipient's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere", Met: phoneMet(to)},
	}
}

// phoneMet is FedEx's rule for a contact's phone number, counted in digits
// (the adapter sends only the digits).
func phoneMet(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
	return func(s carriers.Shipment) bool {
		a := side(s)
		d := carriers.PhoneDigits(a.Phone)
		switch carriers.NormalizeCountry(a.Country) {
		case "US", "CA":
			return len(d) == 10 || len(d) == 11 && d[0] == '1'
		default:
			return len(d) >= 10 && len(d) <= 15
		}
	}
}

// Operations, as carriers.Error.Operation names them.
const (
	opToken = "token"
	opRate  = "rate"
	opBuy   = "buy"
	opVoid  = "void"
	opTrack = "track"
)

// request is one authenticated JSON call.
type request struct {
	op     string
	method string
	path   string
	body   any
	// transactionID goes in x-customer-transaction-id, FedEx's field for
	// matching a request with its reply ("" for none).
	transactionID string
}

// do sends an authenticated JSON request and returns the body of a 2xx
// answer. Every failure is a *carriers.Error.
func (c *Carrier) do(ctx context.Context, r request) ([]byte, error) {
	payload, err := json.Marshal(r.body)
	if err != nil {
		return nil, &carriers.Error{Carrier: Name, Operation: r.op, Kind: carriers.ErrFailed,
			Message: "could not encode the request: " + err.Error()}
	}
	build := func(ctx context.Context, token string) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, r.method, c.baseURL+r.path, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-locale", "en_US")
		if r.transactionID != "" {
			req.Header.Set("x-customer-transaction-id", r.transactionID)
		}
		return req, nil
	}
	var used string
	res, err := c.tokens.Do(ctx, c.client, func(ctx context.Context, token string) (*http.Request, error) {
		used = token
		return build(ctx, token)
	})
	red := c.redact.With(used)
	if err != nil {
		var ce *carriers.Error
		if errors.As(err, &ce) {
			return nil, ce // the token endpoint's own answer
		}
		return nil, c.transportError(r.op, err, red)
	}
	body, err := carriers.ReadAnswer(c.log, red, Name, r.op, res, 0)
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, c.statusError(r.op, res, body, red)
	}
	return body, nil
}

// CheckCredentials asks the token endpoint for a token, through the token
// cache, so that the token it gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.tokens.Token(ctx)
	return err
}

// tokenPath is the Authorization API v1 endpoint.
const tokenPath = "/oauth/token"

// tokenSource is the carrier kit's client-credentials grant as FedEx takes
// it (Authorization API v1, APIAuthorization-Resource.json): grant_type,
// client_id and client_secret in a form body, FedEx's error body for a
// refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: Name, URL: c.baseURL + tokenPath, ClientID: c.clientID, ClientSecret: c.clientSecret, InBody: true,
		Client: c.client, Now: c.now, Redactor: c.redact, Logger: c.log,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return c.statusError(opToken, &http.Response{StatusCode: status, Header: header}, body, c.redact)
		},
	}
}
