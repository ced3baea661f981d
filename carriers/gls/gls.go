// Package gls is GLS (General Logistics Systems), the parcel network of
// much of Europe: its live connector on GLS's published APIs, and its
// sandbox twin.
//
// The APIs, and the documents the adapter is held to (vendored in spec/,
// byte for byte as karrio vendors them; NOTICE says where from):
//
//   - Authentication API v2 (authentification-service-v2.yaml): OAuth 2.0
//     client credentials at /oauth2/v2/token, the client id and secret in
//     an HTTP Basic header; tokens live up to four hours.
//   - ShipIT (shipit-farm.yaml, below /shipit-farm/v1/backend): the
//     products a route allows (rates), parcels created with their labels
//     (PDF, ZPL or PNG; several parcels under one shipment), cancelled by
//     TrackID (GLS refuses once a parcel is scanned), found again by the
//     shipment's reference and reprinted (crash rescue), the end-of-day
//     report (manifests) and sporadic collections (pickups, which ShipIT
//     cannot cancel).
//   - Track And Trace V1 (ecitrackandtrace.yaml, below
//     /track-and-trace-v1): a parcel's status and events by parcel number,
//     ten numbers a call, 500 calls a day by default.
//
// GLS has no rating API: prices are the shipper's contract, from a rate
// sheet (Descriptor.RatesFromSheet); Rates answers the products ShipIT
// allows for the route, unpriced. ShipIT takes no customs lines: GLS's
// electronic customs data is its Customs API, which no vendored document
// covers, so a shipment that needs a declaration travels with the
// commercial invoice shipd renders.
//
// The wire types are written by hand, as the adapters of the other
// carriers: the documents are small and their answers are read
// defensively (every ShipIT answer is documented only as "default").
package gls

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

// ID is the carrier's name in the API.
const ID carriers.ID = "GLS"

// carrierName is ID as a string: what Name returns and every
// carriers.Error carries.
const carrierName = string(ID)

// Base URLs: scheme and host, below which each document's server path
// lies. The documents name the sandbox ("api-sandbox.gls-group.net": no
// data transmission) beside production.
const (
	ProductionURL = "https://api.gls-group.net"
	SandboxURL    = "https://api-sandbox.gls-group.net"
)

// Paths of the APIs below the base URL: the documents' server paths.
const (
	tokenPath  = "/oauth2/v2/token"
	shipitPath = "/shipit-farm/v1/backend/rs"
	trackPath  = "/track-and-trace-v1/tracking/simple/trackids/"
)

// mediaType is ShipIT's request and answer media type.
const mediaType = "application/glsVersion1+json"

// capabilities are what the GLS connector does. No CapReturns (ShipIT's
// return services ride on an outbound parcel), no CapFindPickup (a
// collection has no reference to find it by).
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack |
	carriers.CapTrackMany | carriers.CapManifests | carriers.CapPickups | carriers.CapMultiPiece |
	carriers.CapFindPurchase | carriers.CapCheckCredentials

// Descriptor is the GLS connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "GLS", Slug: "gls",
		CredentialsHelp: "dev-portal.gls-group.net: an app with the Authentication, ShipIT and Track And Trace APIs (its client id and secret); " +
			"your GLS contact id (ShipIT's ContactID) from your GLS account manager",
		Credentials: []carriers.CredentialField{
			{Name: "clientId", Label: "Client ID", Flag: "client-id", Usage: "GLS developer portal app's client id"},
			{Name: "clientSecret", Label: "Client secret", Flag: "client-secret", Usage: "GLS developer portal app's client secret", Secret: true, MaxLen: 500},
			{Name: "contactId", Label: "Contact ID", Flag: "contact-id", Usage: "GLS contact id of the shipper (ShipIT ContactID)", Redact: true, MaxLen: 40,
				Check: contactIDForm},
		},
		IdentityField: "clientId", AccountField: "contactId",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: SandboxURL},
		// The countries GLS's own national companies ship from.
		Origins: []string{"AT", "BE", "BG", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
			"IT", "LT", "LU", "LV", "NL", "PL", "PT", "RO", "SE", "SI", "SK"},
		// Parcel numbers: 11 or 12 digits (the 12 FedEx's too, so they never
		// name GLS); TrackIDs: 8 letters and digits (Track And Trace V1).
		TrackingNumbers:      []*regexp.Regexp{regexp.MustCompile(`^(\d{11}|[A-Z0-9]{8})$`)},
		OtherTrackingNumbers: []*regexp.Regexp{regexp.MustCompile(`^\d{12}$`)},
		TrackingNumberHint:   "11 or 12 digits, 8-character TrackID",
		Requirements:         requirements(),
		// Track And Trace V1: "By default, clients are limited to 500
		// requests per day." The token endpoint allows 100,000 a day; the
		// token is cached, so it is far from that. ShipIT publishes none.
		Quotas:         map[string]carriers.Quota{carriers.APITracking: {Calls: 500, Per: 24 * time.Hour}},
		RatesFromSheet: true,
		LabelFormats:   []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelPNG, carriers.LabelZPL},
		// GLS prints its label A6, which 4x6 stock takes; no page of its own.
		LabelSizes:   []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6},
		Capabilities: capabilities,
		Sandbox:      sandboxTariff(),
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{ClientID: cr.Get("clientId"), ClientSecret: cr.Get("clientSecret"), ContactID: cr.Get("contactId"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger, OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// contactIDForm is the form of a ShipIT ContactID: letters and digits (GLS
// Germany's are ten, the country's numeric code first: 276a45fkqM). The
// documents type it as a string; the form only keeps out what cannot be one.
func contactIDForm(v string) error {
	if len(v) < 4 || len(v) > 20 || strings.Trim(strings.ToUpper(v), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return errors.New("must be your GLS contact id: 4 to 20 letters and digits (276a45fkqM)")
	}
	return nil
}

// requirements are the fields GLS needs that the API's schema leaves
// optional: ShipIT's Address requires Name1 (the name or the company) of
// the consignee and of the shipper.
func requirements() []carriers.Requirement {
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "GLS requires the shipper's name or company (Name1)", Met: carriers.HasNameOrCompany(carriers.From)},
		{Field: "toAddress.name", Rule: "GLS requires the consignee's name or company (Name1)", Met: carriers.HasNameOrCompany(carriers.To)},
	}
}

// Config holds the credentials and wiring of the live GLS carrier.
type Config struct {
	// ClientID and ClientSecret are the developer portal app's.
	ClientID, ClientSecret string
	// ContactID is the shipper's GLS contact id (ShipIT's ContactID): it
	// names the account the parcels are created for and billed to.
	ContactID string
	// BaseURL is ProductionURL when empty: scheme and host only.
	BaseURL string
	// HTTPClient defaults to carriers.HTTPClient's.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnTokenRefresh is called after every new token (metrics).
	OnTokenRefresh func()
	// Logger receives what API clients are not shown of a failed call,
	// secrets redacted; slog.Default() when nil.
	Logger *slog.Logger
}

// ErrConfig is wrapped by New when the configuration cannot work.
var ErrConfig = errors.New("gls: invalid configuration")

// String never shows the secret or the contact id.
func (c Config) String() string {
	return fmt.Sprintf("gls.Config{ClientID: %q, ClientSecret: %s, ContactID: %s, BaseURL: %q}",
		c.ClientID, mask(c.ClientSecret), mask(c.ContactID), c.BaseURL)
}

// GoString keeps %#v from printing the fields one by one.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the secret.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("client_id", c.ClientID), slog.String("client_secret", mask(c.ClientSecret)),
		slog.String("contact_id", mask(c.ContactID)), slog.String("base_url", c.BaseURL))
}

func mask(s string) string {
	if s == "" {
		return "[unset]"
	}
	return carriers.Redacted
}

// Carrier is the live GLS carrier. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	clientID, clientSecret, contactID string
	baseURL                           string
	client                            *http.Client
	now                               func() time.Time
	log                               *slog.Logger
	tokens                            *oauth.Cache
	// redact hides the secret, the contact id and the Basic header of the
	// two in whatever GLS answers.
	redact *carriers.Redactor
}

var _ carriers.Carrier = (*Carrier)(nil)

// New checks the configuration and returns the carrier. It does not call
// GLS: the first token is fetched by the first request.
func New(cfg Config) (*Carrier, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"ClientID", cfg.ClientID}, {"ClientSecret", cfg.ClientSecret}, {"ContactID", cfg.ContactID},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrConfig, strings.Join(missing, ", "))
	}
	contact := strings.TrimSpace(cfg.ContactID)
	if err := contactIDForm(contact); err != nil {
		// The value stays out of the message: it names the account.
		return nil, fmt.Errorf("%w: ContactID %v", ErrConfig, err)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = ProductionURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) scheme and host", ErrConfig, base)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	id := strings.TrimSpace(cfg.ClientID)
	c := &Carrier{
		clientID: id, clientSecret: cfg.ClientSecret, contactID: contact, baseURL: base,
		// GLS never redirects an API call; following one would send the
		// credentials and the addresses elsewhere.
		client: carriers.HTTPClient(cfg.HTTPClient), now: now, log: log,
		redact: carriers.NewRedactor(cfg.ClientSecret, contact, carriers.BasicCredentials(id, cfg.ClientSecret)),
	}
	c.tokens = oauth.NewCache(c.tokenSource().Fetch, oauth.Options{Now: now, OnRefresh: cfg.OnTokenRefresh})
	return c, nil
}

// Name is the carrier's name in rates and labels.
func (*Carrier) Name() string { return carrierName }

// Capabilities are what the GLS connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

// String keeps %v of a *Carrier from printing its secrets.
func (c *Carrier) String() string { return "gls.Carrier{" + c.baseURL + "}" }

// GoString does the same for %#v.
func (c *Carrier) GoString() string { return c.String() }

// tokenSource is the kit's client-credentials grant as GLS's
// Authentication API v2 takes it: the credentials in an HTTP Basic header
// (the document's first way), grant_type in a form body.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: carrierName, URL: c.baseURL + tokenPath, ClientID: c.clientID, ClientSecret: c.clientSecret,
		Client: c.client, Now: c.now, Redactor: c.redact, Logger: c.log,
		// "Tokens are valid for up to four hours since issueing."
		MaxLifetime: 4 * time.Hour,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return answerError(c.log, opToken, status, header, body, c.now(), c.redact)
		},
	}
}

// CheckCredentials asks for a token through the cache, so that the token
// it gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.tokens.Token(ctx)
	return err
}

// request is one authenticated call to a GLS API.
type request struct {
	op, method string
	// path is below the base URL.
	path  string
	query url.Values
	// body is sent as JSON when not nil, in ShipIT's media type unless
	// plainJSON.
	body      any
	plainJSON bool
}

// answer is GLS's answer to a call that got one.
type answer struct {
	status int
	header http.Header
	body   []byte
	// redact hides the credentials and the token the call carried.
	redact *carriers.Redactor
}

func (a answer) ok() bool { return a.status >= 200 && a.status < 300 }

// do sends an authenticated request through the token cache (a 401
// refreshes the token once and sends the request once more) and reads its
// answer, bounded. A non-2xx answer is the error answerError makes of it;
// the error of a call that got no answer is a *carriers.Error too.
func (c *Carrier) do(ctx context.Context, r request) (answer, error) {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return answer{}, &carriers.Error{Carrier: carrierName, Operation: r.op, Kind: carriers.ErrFailed,
				Message: "could not encode the request: " + err.Error()}
		}
	}
	target := c.baseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	accept := mediaType
	if r.plainJSON {
		accept = "application/json"
	}
	var used string
	res, err := c.tokens.Do(ctx, c.client, func(ctx context.Context, token string) (*http.Request, error) {
		used = token
		req, err := http.NewRequestWithContext(ctx, r.method, target, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		if payload == nil {
			req.Body, req.ContentLength = http.NoBody, 0
		} else {
			req.Header.Set("Content-Type", accept)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept", accept)
		return req, nil
	})
	red := c.redact.With(used)
	if err != nil {
		return answer{}, c.callError(r.op, err, red)
	}
	body, err := carriers.ReadAnswer(c.log, red, carrierName, r.op, res, 0)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: res.StatusCode, header: res.Header, body: body, redact: red}
	if !a.ok() {
		return a, answerError(c.log, r.op, a.status, a.header, a.body, c.now(), red)
	}
	return a, nil
}

// callError is the *carriers.Error of a call that got no answer: the
// token's own error, the context's, or the transport's.
func (c *Carrier) callError(op string, err error, red *carriers.Redactor) error {
	var ce *carriers.Error
	if errors.As(err, &ce) {
		return red.Err(err)
	}
	return carriers.TransportError(c.log, red, carrierName, op, err)
}
