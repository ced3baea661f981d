// Package usps is the live USPS carrier. It speaks the USPS v3 REST APIs
// (developers.usps.com):
//
//   - Shipping Options 3.0 (POST /shipments/v3/options/search) for rates: one
//     call prices every mail class and carries the delivery commitment, which
//     the Domestic Prices API does not;
//   - Payments 3.0 (POST /payments/v3/payment-authorization) for the payment
//     authorization token that every label purchase and refund carries;
//   - Domestic Labels 3.0 (/labels/v3) and International Labels 3.0
//     (/international-labels/v3) to buy labels and cancel or refund them;
//   - Tracking 3.0 (POST /tracking/v3r2/tracking);
//   - Addresses 3.0 (GET /addresses/v3/address) for address verification;
//
// all authenticated with OAuth 2.0 client credentials (POST /oauth2/v3/token)
// through carriers/oauth.
//
// The documents of these APIs are vendored in carriers/usps/spec, and
// spec_test.go holds every golden request and every uspsfake exchange to
// them. The wire types are written by hand, not generated: oapi-codegen
// v2.8.2 (-generate types) copes with the seven documents and its 31,700
// lines compile, but USPS publishes no document for the token nor for
// Tracking's POST /tracking/v3r2/tracking, so those would stay hand-written
// anyway; Shipping Options prices come as `*float64` where json.Number
// keeps exact cents; and codes USPS sends as numbers or strings (an extra
// service, an error's code and status) are generated as strings, which
// refuse the numbers flexString reads.
package usps

import (
	"bytes"
	"context"
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

// Base URLs from the servers lists of the USPS OpenAPI documents. The testing
// environment (TEM, "Testing Environment for Mailers") takes test
// credentials and never charges the EPS account.
const (
	ProductionURL = "https://apis.usps.com"
	TestingURL    = "https://apis-tem.usps.com"
)

// CarrierName is what Name returns and what rates carry in Rate.Carrier.
const CarrierName = "USPS"

// AccountTypeEPS is the Enterprise Payment System account, the only account
// type Config supports: a PERMIT account also needs its permit ZIP Code in
// the payment authorization, which Config does not carry.
const AccountTypeEPS = "EPS"

// Config is everything the adapter needs to reach USPS for one shipd
// installation. The zero values of BaseURL, HTTPClient, Now and AccountType
// are replaced by defaults in New.
type Config struct {
	// ClientID and ClientSecret are the Consumer Key and Consumer Secret of
	// the app registered in the USPS developer portal.
	ClientID     string
	ClientSecret string
	// CRID is the Customer Registration ID and MID the Mailer ID of the
	// business that owns the labels.
	CRID string
	MID  string
	// AccountNumber is the EPS account that pays for labels; AccountType is
	// its type, "EPS" when empty.
	AccountNumber string
	AccountType   string
	// BaseURL is ProductionURL when empty; TestingURL points at USPS's test
	// environment, and tests point it at uspsfake.
	BaseURL string
	// HTTPClient defaults to a client with a 20 s timeout.
	HTTPClient *http.Client
	// Now is the clock (mailing dates, token expiry); default time.Now.
	Now func() time.Time
	// LabelMemory bounds the memory the label conversions (a TIFF to a PNG
	// or a letter PDF) hold at once; carriers.DefaultLabelMemory when nil.
	LabelMemory *carriers.LabelMemory
	// OnTokenRefresh is called after every OAuth token fetch (metrics).
	OnTokenRefresh func()
	// Logger receives what API clients are not shown of a failed call (a
	// transport error's URL, a redirect's Location), secrets redacted;
	// default slog.Default().
	Logger *slog.Logger
}

const redacted = "[redacted]"

// String prints the configuration without the client secret or the account
// number, so a Config can be logged or wrapped into an error safely.
func (c Config) String() string {
	return fmt.Sprintf("usps.Config{ClientID:%q ClientSecret:%s CRID:%q MID:%q AccountNumber:%s AccountType:%q BaseURL:%q}",
		c.ClientID, redactedIfSet(c.ClientSecret), c.CRID, c.MID, redactedIfSet(c.AccountNumber), c.AccountType, c.BaseURL)
}

// GoString is String, so %#v cannot print the secret either.
func (c Config) GoString() string { return c.String() }

// LogValue keeps the secret and the account number out of slog output.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("client_id", c.ClientID),
		slog.String("client_secret", redactedIfSet(c.ClientSecret)),
		slog.String("crid", c.CRID),
		slog.String("mid", c.MID),
		slog.String("account_number", redactedIfSet(c.AccountNumber)),
		slog.String("account_type", c.AccountType),
		slog.String("base_url", c.BaseURL),
	)
}

func redactedIfSet(s string) string {
	if s == "" {
		return `""`
	}
	return redacted
}

// ErrConfig is wrapped by New when the configuration is unusable.
var ErrConfig = errors.New("usps: invalid configuration")

// Carrier is the live USPS carrier. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	cfg    Config
	base   string
	client *http.Client
	now    func() time.Time
	// tokens holds the OAuth access token, payments the payment
	// authorization token; both are refreshed once on a 401.
	tokens   *oauth.Cache
	payments *oauth.Cache
	log      *slog.Logger
	// redact hides the client secret and the EPS account number in
	// whatever USPS's text repeats. The CRID and MID are not secrets (the
	// MID is printed in every IMpb tracking number), so they stay.
	redact *carriers.Redactor
}

var (
	_ carriers.Carrier  = (*Carrier)(nil)
	_ verifier.Verifier = (*Carrier)(nil)
)

// capabilities are what the USPS connector does. Its purchases carry an
// idempotency key, so it needs no lookup by reference; it ships one piece
// per label.
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack |
	carriers.CapPickups | carriers.CapManifests | carriers.CapReturns | carriers.CapAddressValidation |
	carriers.CapCheckCredentials

// Capabilities are what the USPS connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

// New checks cfg and returns the carrier. Every credential is required
// because a USPS connection that can quote but not buy would fail each
// purchase only after the customer chose it.
func New(cfg Config) (*Carrier, error) {
	cfg.ClientID = strings.TrimSpace(cfg.ClientID)
	cfg.CRID = strings.TrimSpace(cfg.CRID)
	cfg.MID = strings.TrimSpace(cfg.MID)
	cfg.AccountNumber = strings.TrimSpace(cfg.AccountNumber)
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"ClientID", cfg.ClientID}, {"ClientSecret", cfg.ClientSecret}, {"CRID", cfg.CRID},
		{"MID", cfg.MID}, {"AccountNumber", cfg.AccountNumber},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: missing %s", ErrConfig, strings.Join(missing, ", "))
	}
	cfg.AccountType = strings.ToUpper(strings.TrimSpace(cfg.AccountType))
	if cfg.AccountType == "" {
		cfg.AccountType = AccountTypeEPS
	}
	if cfg.AccountType != AccountTypeEPS {
		return nil, fmt.Errorf("%w: AccountType %q is not supported, only %s (a permit account needs a permit ZIP Code that Config does not carry)",
			ErrConfig, cfg.AccountType, AccountTypeEPS)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = ProductionURL
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) URL", ErrConfig, cfg.BaseURL)
	}
	if cfg.LabelMemory == nil {
		cfg.LabelMemory = carriers.NewLabelMemory(0)
	}
	// The kit's client: USPS never redirects an API call; following one
	// would send the client secret (token form), the payment account or the
	// addresses elsewhere.
	cfg.HTTPClient = carriers.HTTPClient(cfg.HTTPClient)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &Carrier{cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), client: cfg.HTTPClient, now: cfg.Now,
		log: cfg.Logger, redact: carriers.NewRedactor(cfg.ClientSecret, cfg.AccountNumber)}
	c.tokens = oauth.NewCache(c.tokenSource().Fetch, oauth.Options{Now: cfg.Now, OnRefresh: cfg.OnTokenRefresh})
	c.payments = oauth.NewCache(c.fetchPaymentToken, oauth.Options{Now: cfg.Now})
	return c, nil
}

// Name is the carrier name shipd shows and looks carriers up by.
func (c *Carrier) Name() string { return CarrierName }

// mailingDate is the date the package is handed to USPS: today. The UTC date
// is never earlier than the date anywhere in the US, and USPS accepts
// mailing dates from today up to 7 days ahead, so it is always valid.
func (c *Carrier) mailingDate() string {
	return c.now().UTC().Format(time.DateOnly)
}

// Descriptor is the USPS connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: CarrierName, DisplayName: "USPS", Slug: "usps",
		CredentialsHelp: "developers.usps.com: an app with Labels, Prices, Tracking, Addresses and Payments; your CRID, MID and EPS account",
		Credentials: []carriers.CredentialField{
			{Name: "clientId", Label: "Consumer key", Flag: "client-id", Usage: "USPS OAuth client id (consumer key)"},
			{Name: "clientSecret", Label: "Consumer secret", Flag: "client-secret", Usage: "USPS OAuth client secret", Secret: true, MaxLen: 500},
			{Name: "accountNumber", Label: "EPS account number", Flag: "account-number", Usage: "USPS EPS account number paying for labels", Redact: true, MaxLen: 40,
				Check: digits("the EPS account number: digits only", 1, 20)},
			// The CRID and MID are not secrets (the MID is printed in every
			// IMpb tracking number).
			{Name: "crid", Label: "CRID (Customer Registration ID)", Flag: "crid", Usage: "USPS Customer Registration ID", MaxLen: 40,
				Check: digits("a Customer Registration ID: 1 to 15 digits", 1, 15)},
			{Name: "mid", Label: "MID (Mailer ID)", Flag: "mid", Usage: "USPS Mailer ID", MaxLen: 40,
				Check: func(v string) error {
					if (len(v) == 6 || len(v) == 9) && strings.Trim(v, "0123456789") == "" {
						return nil
					}
					return errors.New("must be a Mailer ID: 6 or 9 digits")
				}},
		},
		IdentityField: "clientId", AccountField: "accountNumber",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: TestingURL},
		// USPS mails from the US and the territories with US ZIP codes.
		Origins: []string{"US", "PR", "VI", "GU", "AS", "MP", "FM", "MH", "PW"},
		// IMpb and Certified Mail: 20 to 22 digits; with the routing code in front (420 and a
		// 5- or 9-digit ZIP code) 30 or 34 digits ending in a 9x-led IMpb; and
		// 26-digit 9x numbers (Certified Mail and the like).
		// None starts with 0 (an SSCC, DHL's 00…, does).
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^([1-9]\d{19,21}|9\d{25}|420\d{5}9\d{21}|420\d{9}9\d{21})$`)},
		TrackingNumberHint: "20 to 22 digits",
		Requirements:       requirements(),
		// USPS grants 60 calls an hour per API (developers.usps.com, until a
		// higher quota is granted).
		Quotas: map[string]carriers.Quota{
			carriers.APIRates:     {Calls: 60, Per: time.Hour},
			carriers.APILabels:    {Calls: 60, Per: time.Hour},
			carriers.APITracking:  {Calls: 60, Per: time.Hour},
			carriers.APIManifests: {Calls: 60, Per: time.Hour},
			carriers.APIPickups:   {Calls: 60, Per: time.Hour},
		},
		// USPS delivers on Saturdays for every mail class.
		SaturdayDelivery: true,
		LabelFormats:     []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		LabelSizes:       []carriers.LabelSize{carriers.Label4x6, carriers.LabelLetter},
		Capabilities:     capabilities,
		Sandbox:          sandboxTariff(),
		VerifierRank:     1,
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{ClientID: cr.Get("clientId"), ClientSecret: cr.Get("clientSecret"), AccountNumber: cr.Get("accountNumber"),
				CRID: cr.Get("crid"), MID: cr.Get("mid"), BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger,
				LabelMemory: cc.LabelMemory, OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// requirements are the fields USPS needs that the API leaves optional
// (Labels API: "The First and Last Name or Firm Name are always required").
func requirements() []carriers.Requirement {
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "USPS requires the sender's name or company", Met: carriers.HasNameOrCompany(carriers.From)},
		{Field: "toAddress.name", Rule: "USPS requires the recipient's name or company", Met: carriers.HasNameOrCompany(carriers.To)},
	}
}

// Operations, as carriers.Error.Operation reports them.
const (
	opToken   = "token"
	opPayment = "payment"
	opRate    = "rate"
	opBuy     = "buy"
	opVoid    = "void"
	opTrack   = "track"
	opVerify  = "verify"
)

// request describes one authenticated call.
type request struct {
	op     string
	method string
	path   string
	query  url.Values
	// body is sent as JSON when not nil.
	body   any
	accept string
	header map[string]string
	// payment adds the X-Payment-Authorization-Token header.
	payment bool
}

// answer is what USPS said, the body already read.
type answer struct {
	status int
	header http.Header
	body   []byte
	// redact hides the secrets and the tokens of the call in USPS's text;
	// log gets what API clients are not shown.
	redact *carriers.Redactor
	log    *slog.Logger
}

func (a answer) ok() bool { return a.status >= 200 && a.status <= 299 }

// send makes an authenticated call and reads the answer, whatever its status.
// Only a call that got no complete answer is an error here; statuses are the
// caller's to interpret. On a 401 the OAuth token is refreshed and the call
// sent once more (oauth.Cache.Do); a call that also carries the payment
// authorization token drops that token before the retry as well, because a
// 401 cannot tell which of the two USPS refused.
func (c *Carrier) send(ctx context.Context, r request) (answer, error) {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return answer{}, fmt.Errorf("usps %s: encode request: %w", r.op, err)
		}
	}
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	attempt, paymentToken, accessToken := 0, "", ""
	build := func(ctx context.Context, token string) (*http.Request, error) {
		attempt++
		accessToken = token
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		accept := r.accept
		if accept == "" {
			accept = "application/json"
		}
		req.Header.Set("Accept", accept)
		for k, v := range r.header {
			req.Header.Set(k, v)
		}
		if r.payment {
			if attempt > 1 {
				c.payments.Invalidate(paymentToken)
			}
			if paymentToken, err = c.payments.Token(ctx); err != nil {
				return nil, err
			}
			req.Header.Set("X-Payment-Authorization-Token", paymentToken)
		}
		return req, nil
	}
	res, err := c.tokens.Do(ctx, c.client, build)
	red := c.redact.With(accessToken, paymentToken)
	if err != nil {
		var cerr *carriers.Error
		if errors.As(err, &cerr) {
			// The token or payment authorization fetch failed; it already
			// says what USPS answered.
			return answer{}, err
		}
		return answer{}, c.transportError(r.op, err, red)
	}
	return c.readAnswer(r.op, res, red)
}

// readAnswer reads at most carriers.MaxAnswerBytes of an answer (a label
// PDF is tens of KiB, base64 or raw) and closes it.
func (c *Carrier) readAnswer(op string, res *http.Response, red *carriers.Redactor) (answer, error) {
	body, err := carriers.ReadAnswer(c.log, red, CarrierName, op, res, 0)
	if err != nil {
		return answer{}, err
	}
	return answer{status: res.StatusCode, header: res.Header, body: body, redact: red, log: c.log}, nil
}

const (
	tokenPath   = "/oauth2/v3/token"
	paymentPath = "/payments/v3/payment-authorization"
	// paymentTokenLifetime is documented by Payments 3.0: "Tokens are valid
	// for eight hours after issuance." The answer carries no expiry.
	paymentTokenLifetime = 8 * time.Hour
)

// tokenSource is the carrier kit's client-credentials grant as USPS takes
// it (OAuth 2.0 3.0 API): the credentials in a form body (its first
// documented content type, and RFC 6749's), USPS's error body for a refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: CarrierName, URL: c.base + tokenPath, ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, InBody: true,
		Client: c.client, Now: c.now, Redactor: c.redact, Logger: c.log,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return statusError(opToken, answer{status: status, header: header, body: body, redact: c.redact, log: c.log}, c.now())
		},
	}
}

// paymentRole is one role of a Payments 3.0 authorization. The PAYER pays
// from the EPS account; the LABEL_OWNER's MID and manifest MID number the
// labels. Both carry the same business, as in USPS's own example.
type paymentRole struct {
	RoleName      string `json:"roleName"`
	CRID          string `json:"CRID"`
	MID           string `json:"MID"`
	ManifestMID   string `json:"manifestMID"`
	AccountType   string `json:"accountType"`
	AccountNumber string `json:"accountNumber"`
}

type paymentRequest struct {
	Roles []paymentRole `json:"roles"`
}

func (c *Carrier) paymentRequest() paymentRequest {
	role := func(name string) paymentRole {
		return paymentRole{RoleName: name, CRID: c.cfg.CRID, MID: c.cfg.MID, ManifestMID: c.cfg.MID,
			AccountType: c.cfg.AccountType, AccountNumber: c.cfg.AccountNumber}
	}
	return paymentRequest{Roles: []paymentRole{role("PAYER"), role("LABEL_OWNER")}}
}

// fetchPaymentToken asks Payments 3.0 for the payment authorization token
// that label purchases and refunds send in X-Payment-Authorization-Token.
// It is called through the payments cache, so one token serves every
// purchase for its eight hours.
func (c *Carrier) fetchPaymentToken(ctx context.Context) (oauth.Token, error) {
	a, err := c.send(ctx, request{op: opPayment, method: http.MethodPost, path: paymentPath, body: c.paymentRequest()})
	if err != nil {
		return oauth.Token{}, err
	}
	if !a.ok() {
		e := statusError(opPayment, a, c.now())
		if e.Kind == carriers.ErrRejected {
			// USPS refused the CRID, MID or account: a configuration
			// problem, not something wrong with the shipment being bought.
			e.Kind = carriers.ErrFailed
			e.Message = "USPS refused the payment account: " + e.Message
		}
		return oauth.Token{}, e
	}
	return parsePaymentToken(a.body, c.now())
}

func parsePaymentToken(body []byte, now time.Time) (oauth.Token, error) {
	var p struct {
		PaymentAuthorizationToken string `json:"paymentAuthorizationToken"`
	}
	if err := decodeJSON(body, &p); err != nil {
		return oauth.Token{}, failed(opPayment, http.StatusOK, "the payment authorization answer is not JSON: %v", err)
	}
	if strings.TrimSpace(p.PaymentAuthorizationToken) == "" {
		return oauth.Token{}, failed(opPayment, http.StatusOK, "the payment authorization answer has no paymentAuthorizationToken")
	}
	return oauth.Token{AccessToken: p.PaymentAuthorizationToken, ExpiresAt: now.Add(paymentTokenLifetime)}, nil
}

// CheckCredentials asks the token endpoint for a token, through the token
// cache, so that the token it gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.tokens.Token(ctx)
	return err
}

// digits is a credential check: between min and max digits, nothing else;
// what is expected completes "must be …".
func digits(expected string, min, max int) func(string) error {
	return func(v string) error {
		if len(v) >= min && len(v) <= max && strings.Trim(v, "0123456789") == "" {
			return nil
		}
		return errors.New("must be " + expected)
	}
}
