// Package dhlexpress is DHL Express, worldwide express from any country, on
// the MyDHL API 3.1.1 (developer.dhl.com, "DHL Express - MyDHL API"): rates
// with delivery dates (POST /rates) and, for a DDP shipment, the landed cost
// of its duties and taxes (POST /landed-cost); labels in PDF or ZPL with the
// commercial invoice DHL draws, sent to customs as paperless trade (POST
// /shipments); tracking of one waybill or many at once (GET
// /shipments/{n}/tracking, GET /tracking); pickups (POST /pickups, DELETE
// /pickups/{n}); address verification of postal codes and cities (GET
// /address-validate). Its sandbox twin (sandbox.go) is test mode's DHL
// Express, with the same services, product codes and label sizes.
//
// MyDHL authenticates every call with HTTP Basic (the API username and
// password); there is no token. The account number goes in each request
// body. DHL's API cannot cancel a shipment once created (only a pickup):
// Void says so (void.go). DHL has no idempotency key either: the shipd
// shipment id goes in the shipment's customerReferences, and a purchase
// whose answer was lost finds the shipment by that reference (recover.go).
//
// The MyDHL API document is vendored in carriers/dhlexpress/spec, and
// spec_test.go holds every golden request and every exchange with
// dhlexpressfake to it. The wire types are written by hand, not generated:
// the document's schemas are one 9,000-line components section whose
// request bodies nest a dozen optional party roles shipd never sends, and
// its amounts are JSON numbers that the adapter reads from their decimal
// text (amount in wire.go) rather than through a float64.
package dhlexpress

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
	"unicode/utf8"

	"github.com/shipd-dev/shipd/carriers"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DHLExpress"

// Name is ID as a string: the carrier name shipd shows and looks carriers
// up by.
const Name = string(ID)

const (
	// ProductionURL is the MyDHL API root in production; the document's
	// paths are appended to it.
	ProductionURL = "https://express.api.dhl.com/mydhlapi"
	// TestURL is DHL's test environment, where nothing is billed and only
	// DHL's listed waybills can be tracked.
	TestURL = "https://express.api.dhl.com/mydhlapi/test"

	// apiVersion is the x-version header every operation requires: the
	// document's default, "do not change this field value".
	apiVersion = "3.1.0"
)

// ErrInvalidConfig is wrapped by New for a configuration it cannot use.
var ErrInvalidConfig = errors.New("dhlexpress: invalid configuration")

// Config is how to reach one DHL Express account.
type Config struct {
	// Username and Password are the MyDHL API credentials (HTTP Basic).
	Username, Password string
	// AccountNumber is the 9-digit DHL Express account the shipments are
	// billed to.
	AccountNumber string
	// BaseURL is the API root (ProductionURL by default, TestURL for DHL's
	// test environment): the document's paths are appended to it.
	BaseURL string
	// HTTPClient defaults to the kit's (a timeout, no redirects).
	HTTPClient *http.Client
	// Now is the clock (ship dates, tracking windows); default time.Now.
	Now func() time.Time
	// Logger receives what API clients are not shown of a failed call,
	// credentials redacted; default slog.Default().
	Logger *slog.Logger
}

// String describes the configuration without its credentials, so that a
// Config can be logged or printed with %v and %+v.
func (c Config) String() string {
	return fmt.Sprintf("dhlexpress.Config{BaseURL: %q, Username: %s, Password: %s, AccountNumber: %s}",
		c.BaseURL, redacted(c.Username), redacted(c.Password), redacted(c.AccountNumber))
}

// GoString keeps %#v from printing the credentials.
func (c Config) GoString() string { return c.String() }

// LogValue keeps log/slog from printing the credentials.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", c.BaseURL),
		slog.String("username", redacted(c.Username)),
		slog.String("password", redacted(c.Password)),
		slog.String("account_number", redacted(c.AccountNumber)),
	)
}

func redacted(s string) string {
	if s == "" {
		return "unset"
	}
	return "set"
}

// Carrier is the live DHL Express carrier. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	username, password string
	account            string
	baseURL            string
	client             *http.Client
	now                func() time.Time
	log                *slog.Logger
	// redact hides the credentials, and their Basic header, in whatever
	// DHL's text repeats.
	redact *carriers.Redactor
}

var _ carriers.Carrier = (*Carrier)(nil)

// capabilities are what the DHL Express connector does. Not CapVoid: DHL's
// API cannot cancel a shipment (void.go). Not CapManifests: DHL Express
// scans every piece at pickup. Not CapFindPickup: DHL has no search of
// pickups.
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapTrack | carriers.CapTrackMany |
	carriers.CapPickups | carriers.CapReturns | carriers.CapMultiPiece | carriers.CapPaperless |
	carriers.CapAddressValidation | carriers.CapLandedCost | carriers.CapFindPurchase | carriers.CapCheckCredentials

// Capabilities are what the DHL Express connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

// New checks the configuration and returns the carrier. It does not call
// DHL: CheckCredentials does.
func New(cfg Config) (*Carrier, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"Username", cfg.Username}, {"Password", cfg.Password}, {"AccountNumber", cfg.AccountNumber},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrInvalidConfig, strings.Join(missing, ", "))
	}
	account := strings.TrimSpace(cfg.AccountNumber)
	if accountNumberForm(account) != nil {
		// The number itself stays out of the message: it is a credential.
		return nil, fmt.Errorf("%w: AccountNumber must be the 9-digit DHL Express account number", ErrInvalidConfig)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = ProductionURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: BaseURL %q is not an http(s) API root", ErrInvalidConfig, base)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	username := strings.TrimSpace(cfg.Username)
	return &Carrier{
		username: username,
		password: cfg.Password,
		account:  account,
		baseURL:  base,
		// The kit's client: DHL never redirects an API call; following one
		// would send the Basic credentials, the account and the addresses
		// elsewhere.
		client: carriers.HTTPClient(cfg.HTTPClient),
		now:    now,
		log:    log,
		redact: carriers.NewRedactor(username, cfg.Password, account, carriers.BasicCredentials(username, cfg.Password)),
	}, nil
}

// Name returns "DHLExpress".
func (c *Carrier) Name() string { return Name }

// String keeps the credentials out of a printed Carrier.
func (c *Carrier) String() string { return "dhlexpress.Carrier{" + c.baseURL + "}" }

// GoString keeps the credentials out of %#v.
func (c *Carrier) GoString() string { return c.String() }

// Descriptor is the DHL Express connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DHL Express", Slug: "dhlexpress",
		CredentialsHelp: "developer.dhl.com: request access to \"DHL Express - MyDHL API\" (your DHL Express account manager approves it); DHL sends the API username and password, for production and for its test environment; and your 9-digit DHL Express account number",
		// The API's credentials object names the username and password
		// clientId and clientSecret, the fields every live connector's
		// carrier account has (their labels say what DHL calls them); the
		// operator's variables are SHIPD_DHLEXPRESS_USERNAME and _PASSWORD.
		Credentials: []carriers.CredentialField{
			// The username too is redacted: DHL's error texts may repeat it,
			// and with the password it is the Basic header.
			{Name: "clientId", Label: "API username", Flag: "username", Usage: "MyDHL API username", Redact: true, MaxLen: 100},
			{Name: "clientSecret", Label: "API password", Flag: "password", Usage: "MyDHL API password", Secret: true, MaxLen: 200},
			{Name: "accountNumber", Label: "Account number", Flag: "account-number", Usage: "DHL Express account number (9 digits)", Redact: true, MaxLen: 9,
				Check: accountNumberForm},
		},
		IdentityField: "clientId", AccountField: "accountNumber",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: TestURL},
		// No Origins: DHL Express picks up in every country it serves.
		// Waybills: 10 digits; pieces JD and 18 digits (the licence plate
		// of each piece, packages[].trackingNumber).
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^(\d{10}|JD\d{18})$`)},
		TrackingNumberHint: "10 digits, JD…",
		Requirements:       requirements(),
		// DHL Express's regular products deliver Monday to Friday;
		// Saturday is a paid option (AA) shipd does not sell.
		SaturdayDelivery: false,
		LabelFormats:     []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL},
		LabelSizes:       []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Capabilities:     capabilities,
		// After USPS (1) and UPS (2), which keep US addresses: DHL Express
		// verifies the postal code and city of the others (verify.go).
		VerifierRank: 3,
		Sandbox:      sandboxTariff(),
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{Username: cr.Get("clientId"), Password: cr.Get("clientSecret"), AccountNumber: cr.Get("accountNumber"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger})
		},
	}
}

// accountNumberForm is the form of a DHL Express account number: 9 digits.
func accountNumberForm(v string) error {
	if len(v) != 9 || strings.Trim(v, "0123456789") != "" {
		return errors.New("must be the 9-digit DHL Express account number")
	}
	return nil
}

// Lengths the MyDHL API takes (postalAddress, contactInformation).
const (
	maxLine   = 45 // addressLine1-3, cityName
	maxPostal = 12 // postalCode
	maxState  = 35 // provinceCode
	maxEmail  = 70 // email
)

// requirements are what the MyDHL API requires of the parties that the
// contract leaves optional or allows longer (supermodelIoLogisticsExpress
// shipperDetails and receiverDetails): a contact name (fullName) and a
// phone for both, a street, and the document's lengths where the contract
// allows longer (a street of 100 characters, a city of 60), which shipd
// would otherwise have to cut: an address cut short is one DHL cannot
// deliver to.
func requirements() []carriers.Requirement {
	from, to := carriers.From, carriers.To
	phone := func(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
		return func(s carriers.Shipment) bool {
			return len(carriers.PhoneDigits(side(s).Phone)) >= 4
		}
	}
	within := func(side func(carriers.Shipment) carriers.Address, field func(carriers.Address) string, max int) func(carriers.Shipment) bool {
		return func(s carriers.Shipment) bool {
			return utf8.RuneCountInString(strings.TrimSpace(field(side(s)))) <= max
		}
	}
	street1 := func(a carriers.Address) string { return a.Street1 }
	street2 := func(a carriers.Address) string { return a.Street2 }
	city := func(a carriers.Address) string { return a.City }
	zip := func(a carriers.Address) string { return a.Zip }
	state := func(a carriers.Address) string { return a.State }
	email := func(a carriers.Address) string { return a.Email }
	table := []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DHL Express requires the shipper's contact name (fullName)", Met: carriers.HasName(from)},
		{Field: "fromAddress.phone", Rule: "DHL Express requires the shipper's phone number", Met: phone(from)},
		{Field: "toAddress.name", Rule: "DHL Express requires the receiver's contact name (fullName)", Met: carriers.HasName(to)},
		{Field: "toAddress.phone", Rule: "DHL Express requires the receiver's phone number", Met: phone(to)},
		{Field: "toAddress.street1", Rule: "DHL Express requires the receiver's street (addressLine1)",
			Met: func(s carriers.Shipment) bool { return strings.TrimSpace(s.To.Street1) != "" }},
	}
	for _, side := range []struct {
		prefix, who string
		of          func(carriers.Shipment) carriers.Address
	}{{"fromAddress", "shipper's", from}, {"toAddress", "receiver's", to}} {
		table = append(table,
			carriers.Requirement{Field: side.prefix + ".street1", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s street (addressLine1)", maxLine, side.who),
				Met: within(side.of, street1, maxLine)},
			carriers.Requirement{Field: side.prefix + ".street2", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s second address line (addressLine2)", maxLine, side.who),
				Met: within(side.of, street2, maxLine)},
			carriers.Requirement{Field: side.prefix + ".city", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s city (cityName)", maxLine, side.who),
				Met: within(side.of, city, maxLine)},
			carriers.Requirement{Field: side.prefix + ".zip", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s postal code", maxPostal, side.who),
				Met: within(side.of, zip, maxPostal)},
			carriers.Requirement{Field: side.prefix + ".state", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s state or province code", maxState, side.who),
				Met: within(side.of, state, maxState)},
			carriers.Requirement{Field: side.prefix + ".email", Rule: fmt.Sprintf("DHL Express takes at most %d characters in the %s email", maxEmail, side.who),
				Met: within(side.of, email, maxEmail)},
		)
	}
	return table
}

// Operations, as carriers.Error.Operation names them.
const (
	opRate         = "rate"
	opBuy          = carriers.OpBuy
	opVoid         = "void"
	opTrack        = "track"
	opVerify       = "verify"
	opToken        = "token" // CheckCredentials: the operation of a credentials check
	opPickup       = carriers.OpSchedulePickup
	opCancelPickup = carriers.OpCancelPickup
)

// request is one authenticated call.
type request struct {
	op     string
	method string
	// path is below the base URL: the document's path.
	path  string
	query url.Values
	// body is sent as JSON; nil for none (GET, DELETE).
	body any
	// reference goes in Message-Reference (1 to 36 characters), DHL's
	// field for matching a request with its logs; "" for none.
	reference string
}

// do sends an authenticated request and returns the body of a 2xx answer.
// Every failure is a *carriers.Error, its texts redacted.
func (c *Carrier) do(ctx context.Context, r request) ([]byte, error) {
	var payload io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, &carriers.Error{Carrier: Name, Operation: r.op, Kind: carriers.ErrFailed,
				Message: "could not encode the request: " + err.Error()}
		}
		payload = bytes.NewReader(b)
	}
	target := c.baseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, payload)
	if err != nil {
		return nil, &carriers.Error{Carrier: Name, Operation: r.op, Kind: carriers.ErrFailed,
			Message: "could not build the request: " + c.redact.Redact(err.Error())}
	}
	req.SetBasicAuth(c.username, c.password)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("x-version", apiVersion)
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ref := messageReference(r.reference); ref != "" {
		req.Header.Set("Message-Reference", ref)
	}
	res, err := c.client.Do(req)
	if err != nil {
		return nil, carriers.TransportError(c.log, c.redact, Name, r.op, err)
	}
	body, err := carriers.ReadAnswer(c.log, c.redact, Name, r.op, res, 0)
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, c.statusError(r.op, res, body)
	}
	return body, nil
}

// messageReference is the Message-Reference of a call about reference:
// "shipd-" and the reference, cut to DHL's 36 characters.
func messageReference(reference string) string {
	if reference == "" {
		return ""
	}
	ref := "shipd-" + reference
	if len(ref) > 36 {
		ref = ref[:36]
	}
	return ref
}
