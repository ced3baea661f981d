package carriers

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// ID names a carrier as the API does ("UPS", "FedEx", "USPS"): in rates,
// labels, carrier accounts and quotas. Names compare case-insensitively
// because clients type them back from quote answers.
type ID string

// Is reports whether name names id, in any letter case.
func (id ID) Is(name string) bool { return strings.EqualFold(string(id), strings.TrimSpace(name)) }

// CredentialField is one credential a connector takes: from the operator's
// flags and environment, and from a tenant's carrier account (the API's
// credentials object and the settings page's form).
type CredentialField struct {
	// Name is the field in the API's credentials object ("clientId").
	Name string
	// Label is the settings page's label ("Client ID").
	Label string
	// Flag is the operator's flag after the carrier's slug: "client-id"
	// gives --ups-client-id and $SHIPD_UPS_CLIENT_ID.
	Flag string
	// Usage is the flag's help.
	Usage string
	// Secret fields are never shown, logged or stored in clear, and a
	// carrier's answers are redacted of them.
	Secret bool
	// Redact fields are shown (an account number), but hidden in what a
	// carrier's answers repeat, and masked in the operator's flags.
	Redact bool
	// Optional fields may be left out; the others are required.
	Optional bool
	// MaxLen bounds the value in characters (0: DefaultCredentialMaxLen).
	MaxLen int
	// Check says what is wrong with a value's form (nil: any form), in a
	// phrase that completes "must be …" and never repeats the value.
	Check func(value string) error
}

// DefaultCredentialMaxLen bounds a credential of a field without MaxLen.
const DefaultCredentialMaxLen = 200

// Problem is what is wrong with value for f, nil when nothing: empty when
// required, too long, a control character (a header or a form would carry
// it), or f.Check's refusal.
func (f CredentialField) Problem(value string) error {
	max := f.MaxLen
	if max <= 0 {
		max = DefaultCredentialMaxLen
	}
	switch {
	case value == "" && !f.Optional:
		return ErrCredentialMissing
	case value == "":
		return nil
	case !utf8.ValidString(value):
		return errors.New("must be valid UTF-8")
	case utf8.RuneCountInString(value) > max:
		return fmt.Errorf("maximum string length is %d", max)
	case strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("must not contain control characters (line breaks, tabs)")
	case f.Check != nil:
		return f.Check(value)
	}
	return nil
}

// ErrCredentialMissing is CredentialField.Problem's answer for a required
// field left empty.
var ErrCredentialMissing = errors.New("is required")

// Endpoints are a carrier's API base URLs per environment
// (EnvironmentProduction, EnvironmentTest).
type Endpoints struct {
	Production, Test string
}

// For is the URL of environment (production for "").
func (e Endpoints) For(environment string) string {
	if environment == EnvironmentTest {
		return e.Test
	}
	return e.Production
}

// ConnectorConfig is what a connector's constructor takes.
type ConnectorConfig struct {
	// Credentials are the account's, by CredentialField.Name.
	Credentials Credentials
	// BaseURL is where the carrier's API is reached; "" is the descriptor's
	// URL of Credentials.Environment.
	BaseURL string
	// HTTPClient defaults to the connector's own (a timeout, no redirects).
	HTTPClient *http.Client
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger receives what API clients are not shown of a failed call,
	// secrets redacted; nil: slog.Default().
	Logger *slog.Logger
	// LabelMemory bounds the label conversions of every client together;
	// nil: a budget of the connector's own.
	LabelMemory *LabelMemory
	// OnTokenRefresh is called after every new access token (metrics).
	OnTokenRefresh func()
}

// Descriptor is a connector's description of itself: everything shipd
// needs to offer a carrier besides the connector's own code. The CLI's
// flags, carrier accounts (the API's validation and the settings page's
// form), requirements, quotas, tracking-number recognition, the sandbox's
// twin, the documents' carrier tables and the contract's descriptions are
// all read from the descriptors in carriers/connectors.
type Descriptor struct {
	ID ID
	// DisplayName is the carrier's name in prose ("DHL Parcel Germany").
	DisplayName string
	// CredentialsHelp says where an operator or a tenant gets the
	// credentials, for the documents.
	CredentialsHelp string
	// Slug is the carrier's lower-case name in flags, environment variables
	// and form ids: "ups" gives --ups-client-id and $SHIPD_UPS_CLIENT_ID.
	Slug string
	// Credentials are the fields a connector is configured with, in the
	// order forms show them.
	Credentials []CredentialField
	// IdentityField is the credential the carrier grants call budgets by
	// (the client id), shown masked as a carrier account's clientId;
	// AccountField is the one shown as its accountNumber.
	IdentityField, AccountField string
	// URLs are the carrier's published base URLs.
	URLs Endpoints
	// Origins are the countries its labels leave from (nil: any): the
	// carrier is not offered for a shipment from elsewhere, in live and
	// test mode alike.
	Origins []string
	// TrackingNumbers are the forms of the carrier's tracking numbers as
	// the carrier prints them (spaces and dashes removed, upper case): they
	// tell a well-formed number from a typo and name the carrier of a number
	// given without one. Check digits are not verified: the carrier's
	// tracking API is the judge of whether a number exists.
	TrackingNumbers []*regexp.Regexp
	// OtherTrackingNumbers are forms of the carrier's numbers that other
	// carriers' numbers share (DHL Paket's and FedEx's 12 digits): a number
	// of such a form is the carrier's when the carrier is named, and never
	// names it.
	OtherTrackingNumbers []*regexp.Regexp
	// TrackingNumberHint says the forms in a few words for messages
	// ("1Z…", "12 or 15 digits").
	TrackingNumberHint string
	// Requirements are the fields the carrier needs that the API's schema
	// leaves optional (requirements.go).
	Requirements []Requirement
	// Quotas are the carrier's published call budgets by API (APIRates …);
	// none: the carrier publishes none (its 429 is honoured).
	Quotas map[string]Quota
	// SaturdayDelivery: the carrier's regular services deliver on Saturdays.
	SaturdayDelivery bool
	// RatesFromSheet: the carrier has no rating API. Its Rates answer the
	// services available for a shipment unpriced (Rate.Unpriced), and its
	// prices are the shipper's contract, from a rate sheet (WithRateSheet):
	// the operator's (--rate-sheet, SHIPD_<SLUG>_RATE_SHEET) or a carrier
	// account's own.
	RatesFromSheet bool
	// LabelFormats and LabelSizes are what the carrier's labels come in.
	LabelFormats []LabelFormat
	LabelSizes   []LabelSize
	// Capabilities are what the live connector does.
	Capabilities Capabilities
	// VerifierRank orders the connectors that verify addresses
	// (CapAddressValidation): of those configured, the lowest rank is live
	// mode's verifier.
	VerifierRank int
	// Sandbox is the carrier's twin in test mode; nil: none.
	Sandbox *SandboxTariff
	// New builds a client; its error names what is wrong with the
	// configuration, never a secret. nil: the carrier has no live connector
	// yet, only its sandbox twin (no flags, no carrier accounts).
	New func(ConnectorConfig) (Carrier, error)
}

// Live reports whether the connector reaches a live carrier (New).
func (d Descriptor) Live() bool { return d.New != nil }

// Serves reports whether the carrier serves the shipment's shipper
// (Shipper): its labels leave from one of Origins.
func (d Descriptor) Serves(s Shipment) bool {
	return d.Origins == nil || slices.Contains(d.Origins, NormalizeCountry(Shipper(s).Country))
}

// Shipper is the address of the account a shipment is shipped for: the
// sender, or, for a return label, the merchant it goes back to (whose
// carrier account pays for it, wherever the customer drops it off).
func Shipper(s Shipment) Address {
	if s.Return {
		return s.To
	}
	return s.From
}

// Env is the environment variable of one of the connector's settings:
// Env("client-id") of the "ups" slug is SHIPD_UPS_CLIENT_ID (its flag is
// --ups-client-id).
func (d Descriptor) Env(suffix string) string {
	return "SHIPD_" + strings.ToUpper(strings.ReplaceAll(d.Slug+"_"+suffix, "-", "_"))
}

// Field returns the credential field named name.
func (d Descriptor) Field(name string) (CredentialField, bool) {
	for _, f := range d.Credentials {
		if f.Name == name {
			return f, true
		}
	}
	return CredentialField{}, false
}

// Redacted are the values of c's fields that a carrier's answers must not
// repeat: the secret ones and those marked Redact.
func (d Descriptor) Redacted(c Credentials) []string {
	var out []string
	for _, f := range d.Credentials {
		if v := c.Get(f.Name); (f.Secret || f.Redact) && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Catalog is the connectors shipd offers, in their registry's order.
type Catalog struct {
	descriptors []Descriptor
}

// NewCatalog checks the descriptors (an ID, a slug, a constructor, unique
// names, the identity and account fields among the credentials) and
// returns their catalog.
func NewCatalog(ds ...Descriptor) (*Catalog, error) {
	seen := map[string]bool{}
	for _, d := range ds {
		switch {
		case d.ID == "" || d.Slug == "":
			return nil, fmt.Errorf("connector %q: ID and Slug are required", d.ID)
		case d.New == nil && d.Sandbox == nil:
			return nil, fmt.Errorf("connector %q: neither a live connector (New) nor a sandbox twin", d.ID)
		case seen[strings.ToLower(string(d.ID))] || seen["slug:"+d.Slug]:
			return nil, fmt.Errorf("connector %q: declared twice", d.ID)
		case d.Slug != strings.ToLower(d.Slug) || strings.ContainsAny(d.Slug, " _"):
			return nil, fmt.Errorf("connector %q: slug %q must be lower case, without spaces or underscores", d.ID, d.Slug)
		}
		for _, name := range []string{d.IdentityField, d.AccountField} {
			if _, ok := d.Field(name); !ok && d.Live() {
				return nil, fmt.Errorf("connector %q: %q is not one of its credential fields", d.ID, name)
			}
		}
		seen[strings.ToLower(string(d.ID))], seen["slug:"+d.Slug] = true, true
	}
	return &Catalog{descriptors: slices.Clone(ds)}, nil
}

// Descriptors are the catalog's connectors, in order.
func (c *Catalog) Descriptors() []Descriptor {
	if c == nil {
		return nil
	}
	return slices.Clone(c.descriptors)
}

// IDs are the catalog's carriers, in order.
func (c *Catalog) IDs() []ID {
	var out []ID
	for _, d := range c.Descriptors() {
		out = append(out, d.ID)
	}
	return out
}

// Lookup returns the descriptor of the carrier name names (any case).
func (c *Catalog) Lookup(name string) (Descriptor, bool) {
	if c == nil {
		return Descriptor{}, false
	}
	for _, d := range c.descriptors {
		if d.ID.Is(name) {
			return d, true
		}
	}
	return Descriptor{}, false
}

// Unmet returns the requirements of carrier (its name, any case) that a
// purchase of service for s would break, in its table's order; nil when
// there are none or the catalog has no such carrier.
func (c *Catalog) Unmet(carrier, service string, s Shipment) []Requirement {
	d, _ := c.Lookup(carrier)
	return Unmet(d.Requirements, service, s)
}

// DeliversSaturday reports whether carrier's regular services deliver on
// Saturdays (Descriptor.SaturdayDelivery).
func (c *Catalog) DeliversSaturday(carrier string) bool {
	d, _ := c.Lookup(carrier)
	return d.SaturdayDelivery
}

// DefaultQuotas are the carriers' published budgets (Descriptor.Quotas).
func (c *Catalog) DefaultQuotas() Quotas {
	q := Quotas{}
	for _, d := range c.Descriptors() {
		for api, quota := range d.Quotas {
			q[QuotaKey{strings.ToLower(string(d.ID)), api}] = quota
		}
	}
	return q
}

// TrackingNumberCarriers lists the carriers whose forms a number matches
// (normalized first): none for an unknown number, several for an ambiguous one.
func (c *Catalog) TrackingNumberCarriers(n string) []string {
	n = NormalizeTrackingNumber(n)
	var out []string
	for _, d := range c.Descriptors() {
		if slices.ContainsFunc(d.TrackingNumbers, func(form *regexp.Regexp) bool { return form.MatchString(n) }) {
			out = append(out, string(d.ID))
		}
	}
	return out
}

// SandboxTrackingNumberCarrier is the carrier whose sandbox twin makes
// numbers of n's form (its tariff's TrackingPrefix and TrackingDigits), if
// any: in test mode such a number is that carrier's, whatever its live
// forms say (9400SANDBOX… is no USPS number a live USPS would know).
func (c *Catalog) SandboxTrackingNumberCarrier(n string) (string, bool) {
	n = NormalizeTrackingNumber(n)
	for _, d := range c.Descriptors() {
		t := d.Sandbox
		if t == nil || t.TrackingPrefix == "" {
			continue
		}
		digits, ok := strings.CutPrefix(n, t.TrackingPrefix)
		if ok && len(digits) == t.TrackingDigits && strings.Trim(digits, "0123456789") == "" {
			return string(d.ID), true
		}
	}
	return "", false
}

// WellFormedTrackingNumber reports whether n has one of carrier's forms;
// true for a carrier whose forms the catalog does not know, which its own
// API judges.
func (c *Catalog) WellFormedTrackingNumber(carrier, n string) bool {
	d, ok := c.Lookup(carrier)
	if !ok || len(d.TrackingNumbers) == 0 {
		return true
	}
	n = NormalizeTrackingNumber(n)
	matches := func(form *regexp.Regexp) bool { return form.MatchString(n) }
	return slices.ContainsFunc(d.TrackingNumbers, matches) || slices.ContainsFunc(d.OtherTrackingNumbers, matches)
}

// NormalizeTrackingNumber is a number as the forms read it: without spaces
// or dashes, upper case.
func NormalizeTrackingNumber(n string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(strings.TrimSpace(n)))
}

// FactoryOptions are what every carrier account's client shares.
type FactoryOptions struct {
	// URLs are the operator's base URLs by carrier; an empty one is the
	// descriptor's. A tenant never names one: that would let any account
	// point shipd's requests, and its credentials, at any host.
	URLs map[ID]Endpoints
	// HTTPClient is each connector's default when nil.
	HTTPClient *http.Client
	// OnTokenRefresh, when set, gives each client's token-refresh hook
	// (metrics), by carrier name.
	OnTokenRefresh func(carrier string) func()
	Logger         *slog.Logger
	// LabelMemory bounds the label conversions of every client together.
	LabelMemory *LabelMemory
}

// Factory returns the Factory of carrier accounts' clients: each built by
// its connector with its own credentials and token cache, at the base URL
// of its environment.
func (c *Catalog) Factory(o FactoryOptions) Factory {
	if o.LabelMemory == nil {
		o.LabelMemory = NewLabelMemory(0)
	}
	return func(cr Credentials) (Carrier, error) {
		d, ok := c.Lookup(cr.Carrier)
		if !ok || !d.Live() {
			return nil, fmt.Errorf("carrier %q: %w", cr.Carrier, ErrUnknownCarrier)
		}
		base := o.URLs[d.ID].For(cr.Environment)
		if base == "" {
			base = d.URLs.For(cr.Environment)
		}
		var hook func()
		if o.OnTokenRefresh != nil {
			hook = o.OnTokenRefresh(string(d.ID))
		}
		c, err := d.New(ConnectorConfig{Credentials: cr, BaseURL: base, HTTPClient: o.HTTPClient, Logger: o.Logger,
			LabelMemory: o.LabelMemory, OnTokenRefresh: hook})
		if err != nil {
			return nil, err
		}
		return d.Priced(c, cr.RateSheet, "the carrier account's rate sheet: PUT /api/v1/carrier-accounts/{id}/rate-sheet"), nil
	}
}
