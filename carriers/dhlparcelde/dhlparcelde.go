// Package dhlparcelde is DHL Parcel Germany (DHL Paket, Deutsche Post DHL's
// parcel service from Germany): its connector's description, its live
// connector and its sandbox twin.
//
// The live connector speaks four DHL APIs at one host (BaseURL, scheme and
// host only; each API's server path is appended):
//
//   - Parcel DE Shipping API v2 (/parcel/de/shipping/v2): a label is an
//     order of one shipment (POST /orders), voided by deleting it before
//     the day's closeout (DELETE /orders); the end of day is the closeout
//     and its manifest (POST and GET /manifests).
//   - Parcel DE Returns API v1 (/parcel/de/shipping/returns/v1): return
//     labels (DHL Retoure), paid when used (returns.go).
//   - Parcel DE Pickup API v3 (/parcel/de/transportation/pickup/v3):
//     pickups ordered and cancelled (pickups.go); it takes a bearer token
//     of DHL's authentication API only, which needs the app's API secret.
//   - DHL's unified Shipment Tracking API (/track/shipments).
//
// The Shipping and Returns APIs take the developer app's API key (header
// dhl-api-key) and the business customer portal user (HTTP Basic) with
// every call; tracking takes the API key alone. DHL Paket has no rating
// API: a shipper's prices are its contract's, so Rates answers the services
// a shipment can take, unpriced, and a rate sheet prices them
// (Descriptor.RatesFromSheet, carriers.WithRateSheet).
//
// Every field name, code and path comes from DHL's documents, vendored in
// carriers/dhlparcelde/spec (NOTICE says where each was copied from, and
// their defects); dhlparceldefake is a fake DHL built from the same
// documents, and spec_test.go holds every golden request and every
// exchange with the fake to them. The wire types are written by hand:
// only the fields the adapter sends and reads, where a generated client
// would bring the documents' 250-value country and currency enums as Go
// constants and their oneOf unions (a consignee is an address, a locker, a
// post office or a PO box) as opaque types to fill by hand anyway.
//
// No purchase lookup (carriers.CapFindPurchase): the Shipping API finds an
// order by its shipment number only (GET /orders?shipment=), never by the
// refNo shipd sends (its shipment id), and no other document offers a
// search. A purchase whose answer was lost is bought again by the purchase
// flow; the first order, never handed over, is not charged for the
// products billed on production data (DHL Paket, Kleinpaket: "billed based
// on production data", POST /manifests) and is dropped at the day's
// closeout, and it can be deleted in the business customer portal until
// then. One label is one shipment (no carriers.CapMultiPiece): DHL Paket
// has no multi-piece shipment, every parcel is a shipment of its own,
// tracked on its own, which shipd's multi-piece shipment (one tracker that
// follows the first piece) cannot follow.
package dhlparcelde

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
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DHLParcelDE"

// carrierName is what Name returns and every carriers.Error carries.
const carrierName = string(ID)

// maxGrams is DHL Paket's heaviest parcel, 31.5 kg (Weight.value maximum
// 31500 g).
const maxGrams = 31500

// Base URLs: the hosts of the documents' "servers" (Productive Server,
// Sandbox Server); each API's path below them is the adapter's.
const (
	// ProductionURL is the default BaseURL.
	ProductionURL = "https://api-eu.dhl.com"
	// SandboxURL is DHL's sandbox for business customers' tests
	// (developer.dhl.com's sandbox user and billing numbers).
	SandboxURL = "https://api-sandbox.dhl.com"
)

// The APIs' paths below the base URL: the path of each document's server.
const (
	shippingPath = "/parcel/de/shipping/v2"
	returnsPath  = "/parcel/de/shipping/returns/v1"
	pickupPath   = "/parcel/de/transportation/pickup/v3"
	trackPath    = "/track/shipments"
	// tokenPath is the token endpoint of DHL's authentication API for Post
	// & Parcel Germany (the documents' OAuth2 scheme, flow "password").
	tokenPath = "/parcel/de/account/auth/ropc/v1/token"
)

// profile is the user group profile every order, delete and closeout
// names: "Please use the standard user group profile
// 'STANDARD_GRUPPENPROFIL' if no dedicated user group profile is
// available" (ShipmentOrderRequest.profile). A user with a dedicated
// profile has the standard one too.
const profile = "STANDARD_GRUPPENPROFIL"

// capabilities are what the live connector does: no multi-piece and no
// purchase lookup (the package doc says why), no address verification, no
// landed cost (DHL quotes nothing).
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrack |
	carriers.CapReturns | carriers.CapManifests | carriers.CapPickups | carriers.CapCheckCredentials

// Descriptor is the DHL Parcel Germany connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DHL Paket", Slug: "dhlparcelde",
		CredentialsHelp: "developer.dhl.com: an app with Parcel DE Shipping (Post & Parcel Germany), Parcel DE Returns and Shipment Tracking - Unified (its API key; its API secret for pickups, with Parcel DE Pickup); " +
			"your business customer portal (Post & DHL Geschäftskundenportal) user and password, and your 14-character billing number (EKP, procedure, participation)",
		Credentials: []carriers.CredentialField{
			{Name: "apiKey", Label: "API key", Flag: "api-key", Usage: "DHL developer app API key", Secret: true, MaxLen: 100},
			{Name: "username", Label: "Username", Flag: "username", Usage: "DHL business customer portal user", MaxLen: 80},
			{Name: "password", Label: "Password", Flag: "password", Usage: "DHL business customer portal password", Secret: true, MaxLen: 200},
			{Name: "billingNumber", Label: "Billing number", Flag: "billing-number", Usage: "DHL billing number (EKP, procedure, participation: 14 characters)",
				Redact: true, MaxLen: 14, Check: billingNumberForm},
			{Name: "apiSecret", Label: "API secret (pickups)", Flag: "api-secret", Usage: "DHL developer app API secret: pickups only, through DHL's authentication API",
				Secret: true, Optional: true, MaxLen: 100},
		},
		// The user, not the API key: the identity is kept in clear (a
		// carrier account's clientId, masked when shown) and the API key is
		// a secret; and a business customer is its portal user, while an
		// app's API key may serve several of them (a platform's).
		IdentityField: "username", AccountField: "billingNumber",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: SandboxURL},
		// DHL Paket ships from Germany.
		Origins: []string{"DE"},
		// Parcels: 00 and 18 digits (an SSCC), JJD and 18 or more digits, an
		// S10 code (CX123456789DE); and 12 or 20 digits, which FedEx's and
		// USPS's numbers share, so that they never name DHL.
		TrackingNumbers:      []*regexp.Regexp{regexp.MustCompile(`^(00\d{18}|JJD\d{18,}|[A-Z]{2}\d{9}DE)$`)},
		OtherTrackingNumbers: []*regexp.Regexp{regexp.MustCompile(`^(\d{12}|\d{20})$`)},
		TrackingNumberHint:   "12 or 20 digits, JJD…",
		Requirements:         requirements(),
		// The unified Shipment Tracking API's initial service level: 250
		// calls a day (developer.dhl.com, Shipment Tracking - Unified, "Rate
		// limits"; an app asks DHL for more). The Parcel DE APIs publish no
		// budget: their 429 is honoured.
		Quotas: map[string]carriers.Quota{
			carriers.APITracking: {Calls: 250, Per: 24 * time.Hour},
		},
		// DHL delivers parcels Monday to Saturday.
		SaturdayDelivery: true,
		RatesFromSheet:   true,
		LabelFormats:     []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL},
		LabelSizes:       []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Capabilities:     capabilities,
		Sandbox:          sandboxTariff(),
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{APIKey: cr.Get("apiKey"), Username: cr.Get("username"), Password: cr.Get("password"),
				BillingNumber: cr.Get("billingNumber"), APISecret: cr.Get("apiSecret"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger, OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// billingNumberForm is the form of a billing number (Abrechnungsnummer):
// the 10-digit EKP (customer number), the 2-digit procedure (Verfahren: the
// product, 01 for DHL Paket) and the 2-character participation (Teilnahme,
// "in rare cases … letters"): Shipment.billingNumber's \w{10}\d{2}\w{2},
// the EKP digits as DHL issues them.
func billingNumberForm(v string) error {
	if len(v) != 14 || strings.Trim(v[:12], "0123456789") != "" ||
		strings.Trim(strings.ToUpper(v[12:]), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return errors.New("must be the 14-character DHL billing number: the 10-digit EKP, the 2-digit procedure and the 2-character participation")
	}
	return nil
}

// Config holds the credentials and wiring of the live connector.
type Config struct {
	// APIKey is the developer.dhl.com app's API key, sent as dhl-api-key.
	APIKey string
	// Username and Password are the business customer portal user's,
	// sent as HTTP Basic.
	Username, Password string
	// BillingNumber is the 14-character billing number the labels are
	// booked on: EKP, procedure and participation. A product is booked on
	// the EKP's number of its own procedure (services.go).
	BillingNumber string
	// APISecret is the app's API secret, for pickups only: the Pickup API
	// takes a token of DHL's authentication API, which asks for it. ""
	// leaves pickups out of the connector's capabilities.
	APISecret string
	// BaseURL is ProductionURL when empty: scheme and host (a fake's URL in
	// tests); each API's path is appended.
	BaseURL string
	// HTTPClient defaults to carriers.HTTPClient's (a timeout, no redirects).
	HTTPClient *http.Client
	// Now is the clock (ship dates, manifest dates); default time.Now.
	Now func() time.Time
	// Logger receives what API clients are not shown of a failed call,
	// secrets redacted; default slog.Default().
	Logger *slog.Logger
	// OnTokenRefresh is called after every new pickup token (metrics).
	OnTokenRefresh func()
}

// ErrConfig is wrapped by New when the configuration cannot work.
var ErrConfig = errors.New("dhlparcelde: invalid configuration")

// String never shows the secrets or the billing number, so that a Config
// can be logged or wrapped in an error safely.
func (c Config) String() string {
	return fmt.Sprintf("dhlparcelde.Config{Username: %q, APIKey: %s, Password: %s, BillingNumber: %s, APISecret: %s, BaseURL: %q}",
		c.Username, mask(c.APIKey), mask(c.Password), mask(c.BillingNumber), mask(c.APISecret), c.BaseURL)
}

// GoString keeps %#v from printing the fields one by one.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the secrets.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("username", c.Username),
		slog.String("api_key", mask(c.APIKey)),
		slog.String("password", mask(c.Password)),
		slog.String("billing_number", mask(c.BillingNumber)),
		slog.String("api_secret", mask(c.APISecret)),
		slog.String("base_url", c.BaseURL),
	)
}

func mask(s string) string {
	if s == "" {
		return "[unset]"
	}
	return carriers.Redacted
}

// Carrier is the live DHL Paket connector. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	cfg Config
	// ekp and participation are the billing number's first ten and last
	// two characters, which every product's billing number shares.
	ekp, participation string
	// redact hides the API key, the password and secret, their Basic
	// header and the billing number in whatever DHL's text repeats.
	redact *carriers.Redactor
	// tokens are the Pickup API's bearer tokens; nil without an API secret.
	tokens *oauth.Cache
}

var _ carriers.Carrier = (*Carrier)(nil)

// New checks the configuration and returns the connector. It calls no DHL
// API: CheckCredentials does.
func New(cfg Config) (*Carrier, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"APIKey", cfg.APIKey}, {"Username", cfg.Username}, {"Password", cfg.Password}, {"BillingNumber", cfg.BillingNumber},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrConfig, strings.Join(missing, ", "))
	}
	cfg.Username = strings.TrimSpace(cfg.Username)
	cfg.BillingNumber = strings.ToUpper(strings.TrimSpace(cfg.BillingNumber))
	if err := billingNumberForm(cfg.BillingNumber); err != nil {
		// The value itself stays out: it is an account number.
		return nil, fmt.Errorf("%w: BillingNumber %v (got %d characters)", ErrConfig, err, len(cfg.BillingNumber))
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = ProductionURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) scheme and host (each API's path is appended)", ErrConfig, base)
	}
	cfg.BaseURL = base
	// The kit's client: DHL never redirects an API call; following one
	// would send the credentials and the addresses elsewhere.
	cfg.HTTPClient = carriers.HTTPClient(cfg.HTTPClient)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &Carrier{
		cfg: cfg, ekp: cfg.BillingNumber[:10], participation: cfg.BillingNumber[12:],
		redact: carriers.NewRedactor(cfg.APIKey, cfg.Password, cfg.APISecret, cfg.BillingNumber,
			carriers.BasicCredentials(cfg.Username, cfg.Password)),
	}
	if strings.TrimSpace(cfg.APISecret) != "" {
		c.tokens = oauth.NewCache(c.fetchToken, oauth.Options{Now: cfg.Now, OnRefresh: cfg.OnTokenRefresh})
	}
	return c, nil
}

// Name is the carrier's name in rates and labels.
func (*Carrier) Name() string { return carrierName }

// Capabilities are what the connector does; pickups only with the API
// secret their token needs.
func (c *Carrier) Capabilities() carriers.Capabilities {
	if c.tokens == nil {
		return capabilities &^ carriers.CapPickups
	}
	return capabilities
}

// String keeps %v of a *Carrier from printing its fields, the secrets among them.
func (c *Carrier) String() string { return "dhlparcelde.Carrier{" + c.cfg.String() + "}" }

// GoString does the same for %#v.
func (c *Carrier) GoString() string { return c.String() }

// authKind is how a call authenticates.
type authKind int

const (
	// authBasic: the API key and the portal user (Shipping, Returns).
	authBasic authKind = iota
	// authKey: the API key alone (unified tracking).
	authKey
	// authBearer: a token of the authentication API (Pickup).
	authBearer
)

// apiRequest is one call of a DHL API.
type apiRequest struct {
	op     string
	method string
	// path is below the base URL: an API's path and the operation's.
	path  string
	query url.Values
	// body is sent as JSON when not nil.
	body any
	auth authKind
}

// apiAnswer is whatever HTTP answer DHL gave.
type apiAnswer struct {
	status int
	header http.Header
	body   []byte
	// redact is the call's redactor (with its bearer token, if any).
	redact *carriers.Redactor
}

func (a apiAnswer) ok() bool { return a.status >= 200 && a.status < 300 }

// do sends a request and reads its answer, bounded. Non-2xx answers come
// back as answers (the callers read DHL's bodies of refusals); the error
// is a *carriers.Error for a call that got no answer at all.
func (c *Carrier) do(ctx context.Context, r apiRequest) (apiAnswer, error) {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return apiAnswer{}, &carriers.Error{Carrier: carrierName, Operation: r.op, Kind: carriers.ErrFailed,
				Message: "could not encode the request: " + err.Error()}
		}
	}
	target := c.cfg.BaseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	build := func(ctx context.Context, token string) (*http.Request, error) {
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/json")
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		switch r.auth {
		case authBasic:
			req.Header.Set("dhl-api-key", c.cfg.APIKey)
			req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
		case authKey:
			req.Header.Set("DHL-API-Key", c.cfg.APIKey)
		case authBearer:
			req.Header.Set("Authorization", "Bearer "+token)
		}
		// English messages: "If not specified, the default is english";
		// said, so that an account's setting cannot change it.
		req.Header.Set("Accept-Language", "en-US")
		return req, nil
	}
	var (
		res  *http.Response
		err  error
		used string
	)
	if r.auth == authBearer {
		if c.tokens == nil {
			return apiAnswer{}, errNoAPISecret(r.op)
		}
		res, err = c.tokens.Do(ctx, c.cfg.HTTPClient, func(ctx context.Context, token string) (*http.Request, error) {
			used = token
			return build(ctx, token)
		})
	} else {
		var req *http.Request
		if req, err = build(ctx, ""); err == nil {
			res, err = c.cfg.HTTPClient.Do(req)
		}
	}
	red := c.redact.With(used)
	if err != nil {
		return apiAnswer{}, c.asCarrierError(r.op, err, red)
	}
	body, err := carriers.ReadAnswer(c.cfg.Logger, red, carrierName, r.op, res, 0)
	if err != nil {
		return apiAnswer{}, red.Err(err)
	}
	return apiAnswer{status: res.StatusCode, header: res.Header, body: body, redact: red}, nil
}

// errNoAPISecret is a pickup call of a connector configured without the
// API secret its token needs: the flows never make one (Capabilities).
func errNoAPISecret(op string) *carriers.Error {
	return &carriers.Error{Carrier: carrierName, Operation: op, Kind: carriers.ErrRejected,
		Message: "DHL's Pickup API takes a token of its authentication API, which needs the app's API secret (apiSecret), and none is set"}
}

// failure is the carriers.Error of an answer that is not a success.
func (c *Carrier) failure(op string, a apiAnswer) *carriers.Error {
	return answerError(c.cfg.Logger, op, a.status, a.header, a.body, c.cfg.Now(), a.redact)
}

// CheckCredentials proves the API key and the portal user with one call
// the Shipping API authenticates and that changes nothing: today's
// manifest as a link (GET /manifests?includeDocs=URL), whatever it holds.
// DHL's 401 or 403 is a refusal; its 400 or 404 (no manifest that day)
// still says the credentials were taken. With an API secret, a pickup
// token proves it too.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	a, err := c.do(ctx, apiRequest{op: opToken, method: http.MethodGet, path: shippingPath + "/manifests",
		query: url.Values{"date": {berlinDate(c.cfg.Now())}, "includeDocs": {"URL"}}})
	if err != nil {
		return err
	}
	if !a.ok() && a.status != http.StatusBadRequest && a.status != http.StatusNotFound {
		e := c.failure(opToken, a)
		if a.status == http.StatusUnauthorized || a.status == http.StatusForbidden {
			e.Kind = carriers.ErrFailed
		}
		return e
	}
	if c.tokens != nil {
		if _, err := c.tokens.Token(ctx); err != nil {
			return err
		}
	}
	return nil
}

// outbound are the services of the Shipping API (every one but Retoure).
func outbound() []string {
	names := make([]string, len(services))
	for i, s := range services {
		names[i] = s.name
	}
	return names
}

// requirements are what DHL's APIs require beyond shipd's contract, each
// from its document: a name1 for shipper and consignee (Shipper and
// ContactAddress require it); a house number in a German address, which
// DHL must encode to route the parcel (orders are sent with mustEncode,
// so that an address it cannot read is refused at purchase rather than
// printed and misrouted); a company for Europaket (Product: DHL's
// business-to-business product); and for a DHL Retoure label the
// customer's house number wherever the customer lives (the Returns API's
// ContactAddress requires addressHouse). DHL asks a consignee's phone or
// email only for a delivery to a droppoint (ContactAddress.phone), which
// shipd does not order.
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DHL requires the shipper's name or company (name1)", Met: carriers.HasNameOrCompany(from)},
		{Field: "toAddress.name", Rule: "DHL requires the consignee's name or company (name1)", Met: carriers.HasNameOrCompany(to)},
		{Field: "fromAddress.street1", Rule: "DHL requires a house number in the street of a German address (addressHouse)", Services: outbound(), Met: germanHouseNumber(from)},
		{Field: "toAddress.street1", Rule: "DHL requires a house number in the street of a German address (addressHouse)", Services: outbound(), Met: germanHouseNumber(to)},
		{Field: "toAddress.company", Rule: "DHL's Europaket is a business-to-business product: the consignee's company is required", Services: []string{"Europaket"},
			Met: func(s carriers.Shipment) bool { return strings.TrimSpace(s.To.Company) != "" }},
		{Field: "fromAddress.street1", Rule: "DHL's Returns API requires the house number of the customer's street (addressHouse)", Services: []string{returnService.name},
			Met: func(s carriers.Shipment) bool { return hasHouseNumber(s.From.Street1) }},
	}
}

// germanHouseNumber: a German address's street carries its house number
// ("Hauptstr. 5").
func germanHouseNumber(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
	return func(s carriers.Shipment) bool {
		a := side(s)
		return carriers.NormalizeCountry(a.Country) != "DE" || hasHouseNumber(a.Street1)
	}
}
