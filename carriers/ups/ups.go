// Package ups is the live UPS carrier: rating, label purchase, void and
// tracking through the UPS REST APIs (OAuth 2.0 client credentials), and
// street-level address verification for US addresses.
//
// Every field name, unit, code and path comes from the UPS OpenAPI
// documents published at github.com/UPS-API/api-documentation (Rating.yaml,
// Shipping.yaml, Tracking.yaml, AddressValidation.yaml,
// OAuthClientCredentials.yaml); the comments name the element they follow.
// Package upsfake is a fake UPS built from the same documents for tests.
// The documents are vendored in carriers/ups/spec, and spec_test.go holds
// every golden request and every upsfake exchange to them.
//
// The wire types are written by hand, not generated. oapi-codegen v2.8.2
// (-generate types) copes with all six documents and its 10,800 lines
// compile, but cannot express what UPS sends: before v2403 an element that
// may repeat comes as a single object when there is one (the documents' own
// note; label recovery, called at v1, answers LabelResults so), and the
// generated `LabelResults []LabelRecoveryResponseLabelResults` and
// `Alert *[]ResponseAlert` refuse that object where oneOrMany reads both.
package ups

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// API versions in the request paths: the "version" defaults of the UPS
// OpenAPI documents.
const (
	ratingVersion     = "v2409"
	shippingVersion   = "v2409"
	validationVersion = "v2"
)

// transactionSrc identifies shipd to UPS in the transactionSrc header
// ("An identifier of the client/source application that is making the request").
const transactionSrc = "shipd"

// Carrier is the live UPS carrier. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	cfg   Config
	cache *oauth.Cache
	// redact hides the secret and the account number in anything UPS
	// answers that ends up in an error message or a log line.
	redact *carriers.Redactor
}

var (
	_ carriers.Carrier  = (*Carrier)(nil)
	_ verifier.Verifier = (*Carrier)(nil)
)

// capabilities are what the UPS connector does: UPS scans every package on
// pickup, so it has no manifest step, and it quotes no landed cost (its
// Landed Cost API is a product of its own).
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack |
	carriers.CapPickups | carriers.CapReturns | carriers.CapMultiPiece | carriers.CapPaperless |
	carriers.CapAddressValidation | carriers.CapFindPurchase | carriers.CapCheckCredentials | carriers.CapFindPickup

// Capabilities are what the UPS connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

// New returns a UPS carrier, or an error wrapping ErrConfig when the
// credentials are missing.
func New(cfg Config) (*Carrier, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Carrier{
		cfg: cfg,
		// The secret, the shipper number, and the two together as the token
		// request's Basic header, which an endpoint may echo.
		redact: carriers.NewRedactor(cfg.ClientSecret, cfg.AccountNumber, carriers.BasicCredentials(cfg.ClientID, cfg.ClientSecret)),
	}
	c.cache = oauth.NewCache(c.tokenSource().Fetch, oauth.Options{Now: cfg.Now, OnRefresh: cfg.OnTokenRefresh})
	return c, nil
}

// Name is the carrier's name in rates and labels.
func (*Carrier) Name() string { return carrierName }

// String keeps %v of a *Carrier from printing its fields, the secret among them.
func (c *Carrier) String() string { return "ups.Carrier{" + c.cfg.String() + "}" }

// GoString does the same for %#v.
func (c *Carrier) GoString() string { return c.String() }

// apiRequest is one authenticated call to a UPS API.
type apiRequest struct {
	op     string
	method string
	// path is below the base URL and starts with /api/.
	path  string
	query url.Values
	// body is sent as JSON when not nil.
	body any
	// transID is the transId header; a random one when empty. UPS
	// documents it as "An identifier unique to the request. Length 32".
	transID string
	// header holds further headers (the Pickup API's Prn).
	header map[string]string
}

// apiAnswer is whatever HTTP answer UPS gave.
type apiAnswer struct {
	status int
	header http.Header
	body   []byte
	// clean redacts the secret, the account number and the token used.
	clean func(string) string
	// redact is what clean uses.
	redact *carriers.Redactor
}

func (a apiAnswer) ok() bool { return a.status >= 200 && a.status < 300 }

// failure is the carriers.Error for an answer that is not a success.
func (c *Carrier) failure(op string, a apiAnswer) *carriers.Error {
	return answerError(c.cfg.Logger, op, a.status, a.header, a.body, c.cfg.Now(), a.redact)
}

// do sends an authenticated request through the token cache: on a 401 the
// token is refreshed once and the request sent once more. Non-2xx answers
// come back as answers; the error is a *carriers.Error for a failure to get
// any answer (transport, token, oversized body).
func (c *Carrier) do(ctx context.Context, r apiRequest) (apiAnswer, error) {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return apiAnswer{}, c.asCarrierError(r.op, fmt.Errorf("encoding the request: %w", err), c.redact)
		}
	}
	transID := r.transID
	if transID == "" {
		transID = randomTransID()
	}
	target := c.cfg.BaseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var usedToken string
	res, err := c.cache.Do(ctx, c.cfg.HTTPClient, func(ctx context.Context, token string) (*http.Request, error) {
		usedToken = token
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", "application/json")
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("transId", transID)
		req.Header.Set("transactionSrc", transactionSrc)
		for k, v := range r.header {
			req.Header.Set(k, v)
		}
		return req, nil
	})
	red := c.redact.With(usedToken)
	if err != nil {
		return apiAnswer{}, c.asCarrierError(r.op, err, red)
	}
	body, err := c.readBody(r.op, res, red)
	if err != nil {
		return apiAnswer{}, c.asCarrierError(r.op, err, red)
	}
	return apiAnswer{status: res.StatusCode, header: res.Header, body: body, clean: red.Redact, redact: red}, nil
}

// readBody reads at most carriers.MaxAnswerBytes of an answer and closes
// it (a UPS label answer, a base64 GIF of a few tens of KiB plus an HTML
// copy, is far below).
func (c *Carrier) readBody(op string, res *http.Response, red *carriers.Redactor) ([]byte, error) {
	return carriers.ReadAnswer(c.cfg.Logger, red, carrierName, op, res, 0)
}

func randomTransID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b[:])
}

// Descriptor is the UPS connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: carrierName, DisplayName: "UPS", Slug: "ups",
		CredentialsHelp: "developer.ups.com: create an app with Rating, Shipping, Tracking and Address Validation; your 6-character shipper number",
		Credentials: []carriers.CredentialField{
			{Name: "clientId", Label: "Client ID", Flag: "client-id", Usage: "UPS OAuth client id"},
			{Name: "clientSecret", Label: "Client secret", Flag: "client-secret", Usage: "UPS OAuth client secret", Secret: true, MaxLen: 500},
			{Name: "accountNumber", Label: "Shipper number", Flag: "account-number", Usage: "UPS shipper number", Redact: true, MaxLen: 40,
				Check: shipperNumber},
		},
		IdentityField: "clientId", AccountField: "accountNumber",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: CustomerIntegrationURL},
		// 1Z, a 6-character shipper number, a 2-digit service code, 8 digits.
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^1Z[0-9A-Z]{16}$`)},
		TrackingNumberHint: "1Z…",
		Requirements:       requirements(),
		// UPS publishes no call budgets: it answers 429, which is honoured.
		LabelFormats: []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		LabelSizes:   []carriers.LabelSize{carriers.Label4x6, carriers.LabelLetter},
		Capabilities: capabilities,
		Sandbox:      sandboxTariff(),
		VerifierRank: 2,
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{ClientID: cr.Get("clientId"), ClientSecret: cr.Get("clientSecret"), AccountNumber: cr.Get("accountNumber"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger, LabelMemory: cc.LabelMemory,
				OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// shipperNumber is the form of a UPS shipper number: 6 letters and digits.
func shipperNumber(v string) error {
	if len(v) != 6 || strings.Trim(strings.ToUpper(v), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return errors.New("must be the 6-character UPS shipper number (letters and digits)")
	}
	return nil
}

// requirements are the fields UPS needs that the API leaves optional
// (Shipping.yaml: Shipper/ShipTo Name always, AttentionName and
// Phone.Number for an international shipment and for Next Day Air Early).
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "UPS requires the sender's name or company", Met: carriers.HasNameOrCompany(from)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's name or company", Met: carriers.HasNameOrCompany(to)},
		{Field: "fromAddress.name", Rule: "UPS requires the sender's contact name (name, not only company) on an international shipment", When: carriers.International, Met: carriers.HasName(from)},
		{Field: "fromAddress.phone", Rule: "UPS requires the sender's phone number (at most 15 digits) on an international shipment", When: carriers.International, Met: phoneMet(from)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's contact name (name, not only company) on an international shipment", When: carriers.International, Met: carriers.HasName(to)},
		{Field: "toAddress.phone", Rule: "UPS requires the recipient's phone number (at most 15 digits) on an international shipment", When: carriers.International, Met: phoneMet(to)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's contact name (name, not only company) for Next Day Air Early", Services: []string{"NextDayAirEarly"}, Met: carriers.HasName(to)},
		{Field: "toAddress.phone", Rule: "UPS requires the recipient's phone number (at most 15 digits) for Next Day Air Early", Services: []string{"NextDayAirEarly"}, Met: phoneMet(to)},
	}
}

// phoneMet is UPS's rule for Phone.Number: 1 to 15 digits, a US number
// without its leading 1 (the adapter drops it).
func phoneMet(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
	return func(s carriers.Shipment) bool {
		a := side(s)
		d := carriers.PhoneDigits(a.Phone)
		if carriers.NormalizeCountry(a.Country) == "US" && len(d) == 11 && d[0] == '1' {
			d = d[1:]
		}
		return len(d) >= 1 && len(d) <= 15
	}
}

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

// CheckCredentials asks the token endpoint for a token, through the token
// cache, so that the token it gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.cache.Token(ctx)
	return err
}

// tokenPath is the OAuth Client Credentials endpoint
// (OAuthClientCredentials.yaml: POST /security/v1/oauth/token, HTTP Basic
// with the client id and secret, form body grant_type=client_credentials,
// optional x-merchant-id header with the 6-character account number).
const tokenPath = "/security/v1/oauth/token"

// tokenSource is the carrier kit's client-credentials grant as UPS takes
// it: the credentials in an HTTP Basic header, the shipper number in
// x-merchant-id, UPS's error body for a refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: carrierName, URL: c.cfg.BaseURL + tokenPath, ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret,
		Header: map[string]string{"x-merchant-id": c.cfg.AccountNumber},
		Client: c.cfg.HTTPClient, Now: c.cfg.Now, Redactor: c.redact, Logger: c.cfg.Logger,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return answerError(c.cfg.Logger, opToken, status, header, body, c.cfg.Now(), c.redact)
		},
	}
}
