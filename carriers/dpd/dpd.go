// Package dpd is DPD (Dynamic Parcel Distribution, of the Geopost group):
// its live connector on DPD's META-API, and its sandbox twin.
//
// The META-API is DPD's one shipping interface in front of every business
// unit's own (BU: DPD Germany, DPD France, DPD UK, …). The documents the
// adapter is held to are vendored in spec/ (NOTICE says where from):
// meta-api-docs.json, the whole shipping service, and
// openapi_metaapi_shipping.yaml, its shipment operation with the field
// lengths of DPD's customer documentation (META-API customer
// documentation v1.2, whose product codes and business units are quoted
// in services.go).
//
//   - Login (POST /shipping/v1/login): the BU's shipping login, password
//     and BU code in the X-DPD-LOGIN, X-DPD-PASSWORD and X-DPD-BUCODE
//     headers; the answer's X-DPD-TOKEN header is a JWT that serves "for
//     up to 24 hours" (30 minutes at SEUR), sent as a Bearer token. It is
//     cached until shortly before its expiry.
//   - Shipment (POST /shipping/v1/shipment?LabelPrintFormat=…): a
//     shipment of one or more parcels and its label, PDF (on A6 or A4) or
//     ZPL.
//   - Pickup scheduling (POST /shipping/v1/pickupscheduling).
//
// What the documents lack, and so the connector: there is no rating API
// (prices come from a rate sheet, Descriptor.RatesFromSheet; Rates answers
// the products DPD sells on the route, unpriced), no cancellation of a
// shipment (a void is refused with the reason: the BU cancels), no
// tracking (DPD's tracking API takes API keys of its own and is not
// among the documents), no lookup of a shipment by reference (the label
// retrieval needs the parcel numbers), so a purchase cut off mid-call
// cannot be found again, and no cancellation of a pickup.
//
// The wire types are written by hand: the shipment schema differs between
// the two documents (parcelIds, the 400 answer's shape) and the adapter
// reads both.
package dpd

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
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// ID is the carrier's name in the API.
const ID carriers.ID = "DPD"

// carrierName is ID as a string.
const carrierName = string(ID)

// Base URLs (scheme and host): the documents' servers.
const (
	ProductionURL = "https://api.dpdgroup.com"
	// PreproductionURL is DPD's test environment ("Internal PRE-PROD server
	// for testing"; the customer documentation's PREPRODUCTION endpoints).
	PreproductionURL = "https://api-preprod.dpsin.dpdgroup.com:8443"
)

// Paths below the base URL.
const (
	loginPath    = "/shipping/v1/login"
	shipmentPath = "/shipping/v1/shipment"
	pickupPath   = "/shipping/v1/pickupscheduling"
)

// capabilities are what the DPD connector does: no CapVoid (the META-API
// cannot cancel), no CapTrack, no CapFindPurchase, no CapManifests (DPD
// scans every parcel on pickup).
const capabilities = carriers.CapRates | carriers.CapBuy | carriers.CapMultiPiece | carriers.CapPickups | carriers.CapCheckCredentials

// Descriptor is the DPD connector as shipd offers it.
func Descriptor() carriers.Descriptor {
	return carriers.Descriptor{
		ID: ID, DisplayName: "DPD", Slug: "dpd",
		CredentialsHelp: "your DPD business unit: the META-API shipping login and password it gives you, its BU code " +
			"(001 DPD Germany, 038 DPD France, 011 DPD UK, …) and your customer id at that BU",
		Credentials: []carriers.CredentialField{
			{Name: "login", Label: "Login", Flag: "login", Usage: "DPD META-API shipping login (X-DPD-LOGIN)", MaxLen: 100},
			{Name: "password", Label: "Password", Flag: "password", Usage: "DPD META-API shipping password (X-DPD-PASSWORD)", Secret: true, MaxLen: 200},
			{Name: "bucode", Label: "Business unit code", Flag: "bucode", Usage: "DPD business unit code (X-DPD-BUCODE), 001 for DPD Germany", MaxLen: 3,
				Check: buCodeForm},
			{Name: "customerId", Label: "Customer ID", Flag: "customer-id", Usage: "your customer id at the DPD business unit", Redact: true, MaxLen: 17,
				Check: customerIDForm},
		},
		IdentityField: "login", AccountField: "customerId",
		URLs: carriers.Endpoints{Production: ProductionURL, Test: PreproductionURL},
		// The countries of DPD's business units (the META-API BU codes).
		Origins: []string{"AT", "BE", "BG", "CH", "CZ", "DE", "EE", "ES", "FR", "GB", "HR", "HU", "IE", "IT",
			"LT", "LV", "NL", "PL", "PT", "RO", "SI", "SK"},
		// Parcel numbers: 14 digits.
		TrackingNumbers:    []*regexp.Regexp{regexp.MustCompile(`^\d{14}$`)},
		TrackingNumberHint: "14 digits",
		Requirements:       requirements(),
		// DPD publishes no call budget; a 429 is honoured.
		RatesFromSheet: true,
		LabelFormats:   []carriers.LabelFormat{carriers.LabelPDF, carriers.LabelZPL},
		// LabelPaperFormat A6 (which 4x6 stock takes) and A4.
		LabelSizes:   []carriers.LabelSize{carriers.Label4x6, carriers.LabelA6, carriers.LabelA4},
		Capabilities: capabilities,
		Sandbox:      sandboxTariff(),
		New: func(cc carriers.ConnectorConfig) (carriers.Carrier, error) {
			cr := cc.Credentials
			return New(Config{Login: cr.Get("login"), Password: cr.Get("password"), BUCode: cr.Get("bucode"), CustomerID: cr.Get("customerId"),
				BaseURL: cc.BaseURL, HTTPClient: cc.HTTPClient, Now: cc.Now, Logger: cc.Logger, OnTokenRefresh: cc.OnTokenRefresh})
		},
	}
}

// buCodeForm is a BU code's form: three digits (the customer
// documentation's table: 001 DPD Germany … 046 DPD Ireland).
func buCodeForm(v string) error {
	if len(v) != 3 || strings.Trim(v, "0123456789") != "" {
		return errors.New("must be your DPD business unit's 3-digit code (001 for DPD Germany)")
	}
	return nil
}

// customerIDForm is CustomerInfos.customerID's: letters and digits, at
// most 17 (openapi_metaapi_shipping.yaml).
func customerIDForm(v string) error {
	if len(v) > 17 || strings.Trim(strings.ToUpper(v), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return errors.New("must be your customer id at the DPD business unit: letters and digits, at most 17")
	}
	return nil
}

// buCountries are the business units' default countries, from the
// customer documentation's table. A BU ships from its own country.
var buCountries = map[string]string{
	"001": "DE", "002": "FR", "010": "NL", "011": "GB", "014": "AT", "015": "CZ", "016": "SK", "017": "HU", "018": "BG",
	"020": "ES", "021": "PL", "023": "IT", "026": "SI", "028": "HR", "030": "PT", "031": "EE", "032": "LT", "033": "LV",
	"034": "BE", "036": "CH", "038": "FR", "041": "RO", "046": "IE",
}

// maxLine is the META-API's length of a name, company, street, address
// line and city (openapi_metaapi_shipping.yaml: 35).
const maxLine = 35

// requirements are the fields DPD needs that the API's schema leaves
// optional: a name (name1 or companyName) of both parties; the recipient's
// email or phone for the Express products (several BUs require a
// receiver's contact, and the Express products announce the delivery);
// and what fits DPD's 35-character address fields.
func requirements() []carriers.Requirement {
	express := []string{"Express830", "Express12", "Express18", "InternationalExpress"}
	return []carriers.Requirement{
		{Field: "fromAddress.name", Rule: "DPD requires the sender's name or company", Met: carriers.HasNameOrCompany(carriers.From)},
		{Field: "toAddress.name", Rule: "DPD requires the recipient's name or company", Met: carriers.HasNameOrCompany(carriers.To)},
		{Field: "toAddress.phone", Rule: "DPD requires the recipient's email or phone for its Express products", Services: express,
			Met: func(s carriers.Shipment) bool {
				return strings.TrimSpace(s.To.Phone) != "" || strings.TrimSpace(s.To.Email) != ""
			}},
		{Field: "fromAddress", Rule: "DPD takes at most 35 characters in the sender's name, company, street lines and city", Met: fits(carriers.From)},
		{Field: "toAddress", Rule: "DPD takes at most 35 characters in the recipient's name, company, street lines and city", Met: fits(carriers.To)},
	}
}

// fits reports whether the side's address fits DPD's fields.
func fits(side func(carriers.Shipment) carriers.Address) func(carriers.Shipment) bool {
	return func(s carriers.Shipment) bool {
		a := side(s)
		return !slices.ContainsFunc([]string{a.Name, a.Company, a.Street1, a.Street2, a.City}, func(v string) bool {
			return len([]rune(strings.TrimSpace(v))) > maxLine
		})
	}
}

// Config holds the credentials and wiring of the live DPD carrier.
type Config struct {
	// Login and Password are the BU's META-API shipping login.
	Login, Password string
	// BUCode is the business unit's code (001 DPD Germany).
	BUCode string
	// CustomerID is the shipper's id at the BU (the sender's
	// customerInfos.customerID).
	CustomerID string
	// BaseURL is ProductionURL when empty: scheme and host only.
	BaseURL string
	// HTTPClient defaults to carriers.HTTPClient's.
	HTTPClient *http.Client
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OnTokenRefresh is called after every login (metrics).
	OnTokenRefresh func()
	// Logger receives what API clients are not shown of a failed call,
	// secrets redacted; slog.Default() when nil.
	Logger *slog.Logger
}

// ErrConfig is wrapped by New when the configuration cannot work.
var ErrConfig = errors.New("dpd: invalid configuration")

// String never shows the password or the customer id.
func (c Config) String() string {
	return fmt.Sprintf("dpd.Config{Login: %q, Password: %s, BUCode: %q, CustomerID: %s, BaseURL: %q}",
		c.Login, mask(c.Password), c.BUCode, mask(c.CustomerID), c.BaseURL)
}

// GoString keeps %#v from printing the fields one by one.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the password.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("login", c.Login), slog.String("password", mask(c.Password)), slog.String("bucode", c.BUCode),
		slog.String("customer_id", mask(c.CustomerID)), slog.String("base_url", c.BaseURL))
}

func mask(s string) string {
	if s == "" {
		return "[unset]"
	}
	return carriers.Redacted
}

// Carrier is the live DPD carrier. It is safe for concurrent use.
type Carrier struct {
	carriers.Unsupported
	login, password, buCode, customerID string
	baseURL                             string
	client                              *http.Client
	now                                 func() time.Time
	log                                 *slog.Logger
	tokens                              *oauth.Cache
	// redact hides the password and the customer id in whatever DPD
	// answers (its debug lists repeat the BU's own requests).
	redact *carriers.Redactor
}

var _ carriers.Carrier = (*Carrier)(nil)

// New checks the configuration and returns the carrier. It does not call
// DPD: the first login is made by the first request.
func New(cfg Config) (*Carrier, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"Login", cfg.Login}, {"Password", cfg.Password}, {"BUCode", cfg.BUCode}, {"CustomerID", cfg.CustomerID},
	} {
		if strings.TrimSpace(f.value) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: %s required", ErrConfig, strings.Join(missing, ", "))
	}
	bu, customer := strings.TrimSpace(cfg.BUCode), strings.TrimSpace(cfg.CustomerID)
	if err := buCodeForm(bu); err != nil {
		return nil, fmt.Errorf("%w: BUCode %v", ErrConfig, err)
	}
	if err := customerIDForm(customer); err != nil {
		// The value stays out of the message: it names the account.
		return nil, fmt.Errorf("%w: CustomerID %v", ErrConfig, err)
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
	c := &Carrier{
		login: strings.TrimSpace(cfg.Login), password: cfg.Password, buCode: bu, customerID: customer, baseURL: base,
		// DPD never redirects an API call; following one would send the
		// login and the addresses elsewhere.
		client: carriers.HTTPClient(cfg.HTTPClient), now: now, log: log,
		redact: carriers.NewRedactor(cfg.Password, customer),
	}
	c.tokens = oauth.NewCache(c.fetchToken, oauth.Options{Now: now, OnRefresh: cfg.OnTokenRefresh})
	return c, nil
}

// Name is the carrier's name in rates and labels.
func (*Carrier) Name() string { return carrierName }

// Capabilities are what the DPD connector does.
func (*Carrier) Capabilities() carriers.Capabilities { return capabilities }

// String keeps %v of a *Carrier from printing its secrets.
func (c *Carrier) String() string { return "dpd.Carrier{" + c.baseURL + "}" }

// GoString does the same for %#v.
func (c *Carrier) GoString() string { return c.String() }

// CheckCredentials logs in through the token cache, so that the token it
// gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.tokens.Token(ctx)
	return err
}

// request is one authenticated call.
type request struct {
	op   string
	path string
	// query is the call's query (the label's format and paper).
	query url.Values
	// body is sent as JSON.
	body any
}

// answer is DPD's answer to a call that got one.
type answer struct {
	status int
	header http.Header
	body   []byte
	redact *carriers.Redactor
}

// do sends an authenticated POST through the token cache (a 401 logs in
// again once and sends the request once more) and reads its answer,
// bounded. A non-2xx answer is the error answerError makes of it.
func (c *Carrier) do(ctx context.Context, r request) (answer, error) {
	payload, err := json.Marshal(r.body)
	if err != nil {
		return answer{}, &carriers.Error{Carrier: carrierName, Operation: r.op, Kind: carriers.ErrFailed, Message: "could not encode the request: " + err.Error()}
	}
	target := c.baseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var used string
	res, err := c.tokens.Do(ctx, c.client, func(ctx context.Context, token string) (*http.Request, error) {
		used = token
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		// "Identify the requesting application."
		req.Header.Set("X-DPD-REQUESTOR", "shipd")
		return req, nil
	})
	red := c.redact.With(used)
	if err != nil {
		var ce *carriers.Error
		if errors.As(err, &ce) {
			return answer{}, red.Err(err)
		}
		return answer{}, carriers.TransportError(c.log, red, carrierName, r.op, err)
	}
	body, err := carriers.ReadAnswer(c.log, red, carrierName, r.op, res, 0)
	if err != nil {
		return answer{}, err
	}
	a := answer{status: res.StatusCode, header: res.Header, body: body, redact: red}
	if a.status < 200 || a.status > 299 {
		return a, answerError(c.log, r.op, a.status, a.header, a.body, c.now(), red)
	}
	return a, nil
}
