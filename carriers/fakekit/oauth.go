package fakekit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The token endpoint's refusals, handed to Config.Refuse.
var (
	// ErrNoCredentials: BasicAuth without an Authorization header.
	ErrNoCredentials = errors.New("fakekit: no client credentials")
	// ErrBadClient: an unknown client id, or a wrong secret.
	ErrBadClient = errors.New("fakekit: unknown client or wrong secret")
	// ErrContentType: the body is not of a type the endpoint takes.
	ErrContentType = errors.New("fakekit: unsupported content type")
	// ErrMalformed: the body does not parse.
	ErrMalformed = errors.New("fakekit: the body does not parse")
	// ErrMissing: required fields are absent; a *MissingError names them.
	ErrMissing = errors.New("fakekit: required fields missing")
	// ErrGrant: grant_type is not client_credentials.
	ErrGrant = errors.New("fakekit: unsupported grant_type")
)

// MissingError names the fields a token request lacks; it is ErrMissing.
type MissingError struct{ Fields []string }

func (e *MissingError) Error() string {
	return ErrMissing.Error() + ": " + strings.Join(e.Fields, ", ")
}

func (e *MissingError) Unwrap() error { return ErrMissing }

// Client is one set of credentials a fake accepts, and the carrier account
// its calls act for.
type Client struct {
	ID, Secret, Account string
}

type clientKey struct{}

// ClientOf is the client whose token made the call of ctx (an operation's
// request context).
func ClientOf(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}

// AddClient makes the fake accept another client's credentials, acting for
// account: a second customer of the carrier, with tokens of its own.
func (k *Server) AddClient(id, secret, account string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.clients[id] = Client{ID: id, Secret: secret, Account: account}
}

// SetTokenTTL sets the lifetime of the tokens issued from now on.
func (k *Server) SetTokenTTL(d time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tokenTTL = d
}

// SetExpiresInAsString makes the token endpoint write expires_in as a JSON
// string ("3599"), as some carrier environments do (Issued.ExpiresIn).
func (k *Server) SetExpiresInAsString(on bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.expiresInString = on
}

// ExpireTokens makes every token issued so far invalid at once, as if they
// had all expired: the next call with one is refused.
func (k *Server) ExpireTokens() { k.tokens.Clear() }

// Tokens are the tokens a fake issued, each for a client until it expires.
// A fake with a second kind of token (USPS's payment authorization) keeps
// a Tokens of its own.
type Tokens struct {
	prefix string
	now    func() time.Time

	mu     sync.Mutex
	issued map[string]issuedToken
}

type issuedToken struct {
	client  Client
	expires time.Time
}

// NewTokens issues tokens that start with prefix, dated by now.
func NewTokens(prefix string, now func() time.Time) *Tokens {
	return &Tokens{prefix: prefix, now: now, issued: map[string]issuedToken{}}
}

// NewID is prefix then 32 random hex digits: a token, an ETag, anything a
// fake makes that must not be guessed.
func NewID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Issue makes a token for c that lasts ttl, and says when it was issued.
func (t *Tokens) Issue(c Client, ttl time.Duration) (token string, at time.Time) {
	token, at = NewID(t.prefix), t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for old, it := range t.issued {
		if !at.Before(it.expires) {
			delete(t.issued, old) // keeps the map from growing in long runs
		}
	}
	t.issued[token] = issuedToken{client: c, expires: at.Add(ttl)}
	return token, at
}

// Valid is the client of token, if the token was issued and has not expired.
func (t *Tokens) Valid(token string) (Client, bool) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	it, ok := t.issued[token]
	if !ok || !now.Before(it.expires) {
		return Client{}, false
	}
	return it.client, true
}

// Clear forgets every token issued so far.
func (t *Tokens) Clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.issued)
}

// CredentialStyle is where a token request carries the client's
// credentials.
type CredentialStyle int

const (
	// BasicAuth: HTTP Basic with the client id and secret, grant_type in an
	// application/x-www-form-urlencoded body (UPS). The credentials are
	// checked first, as they come before the body.
	BasicAuth CredentialStyle = iota
	// FormBody: grant_type, client_id and client_secret in an
	// application/x-www-form-urlencoded body (FedEx).
	FormBody
	// FormOrJSONBody: the same fields in a form or in a JSON object (USPS).
	FormOrJSONBody
)

// TokenEndpoint is an OAuth 2.0 client-credentials token endpoint.
type TokenEndpoint struct {
	// Client is the credentials the endpoint accepts from the start;
	// AddClient adds others.
	Client Client
	// TTL is the lifetime of the tokens issued until SetTokenTTL.
	TTL time.Duration
	// Prefix starts every token, so that a token in a log says which fake
	// issued it.
	Prefix      string
	Credentials CredentialStyle
	// Admit, when set, has the carrier's last word on a request whose
	// credentials and grant are good (UPS: its x-merchant-id header); its
	// error goes to Config.Refuse.
	Admit func(r *http.Request, c Client) error
	// Answer is the carrier's answer to a token issued, sent as JSON with
	// 200.
	Answer func(t Issued) any
}

// Issued is a token the endpoint issued.
type Issued struct {
	Token  string
	Client Client
	At     time.Time
	TTL    time.Duration
	// ExpiresIn is the lifetime in whole seconds as expires_in: a number,
	// or a string after SetExpiresInAsString(true).
	ExpiresIn any
}

// tokenEndpoint serves e: the call is recorded with the client id it
// presents, takes its faults, then is checked in the carrier's order
// (CredentialStyle) before a token is issued.
func (k *Server) tokenEndpoint(e TokenEndpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		x, ok := k.begin(w, r, OpToken)
		if !ok {
			return
		}
		fields, parseErr := tokenFields(e.Credentials, r, x.body)
		id := fields.Get("client_id")
		if e.Credentials == BasicAuth {
			id, _, _ = r.BasicAuth()
		}
		k.addCaller(OpToken, id)
		if k.answerFault(r, OpToken, id, true) {
			return
		}
		if r.Method != http.MethodPost {
			k.cfg.Refuse(w, r, fmt.Errorf("%w: %s", ErrMethod, r.Method))
			return
		}
		c, err := k.admit(e, r, fields, parseErr)
		if err != nil {
			k.cfg.Refuse(w, r, err)
			return
		}
		k.mu.Lock()
		ttl, asString := k.tokenTTL, k.expiresInString
		k.mu.Unlock()
		token, at := k.tokens.Issue(c, ttl)
		secs := int64(ttl / time.Second)
		var expiresIn any = secs
		if asString {
			expiresIn = strconv.FormatInt(secs, 10)
		}
		WriteJSON(w, http.StatusOK, e.Answer(Issued{Token: token, Client: c, At: at, TTL: ttl, ExpiresIn: expiresIn}))
	}
}

// tokenFields are a token request's body fields, or why they cannot be read.
func tokenFields(style CredentialStyle, r *http.Request, body []byte) (url.Values, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "application/x-www-form-urlencoded":
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return v, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return v, nil
	case mt == "application/json" && style == FormOrJSONBody:
		var req struct {
			GrantType    string `json:"grant_type"`
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return url.Values{}, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return url.Values{"grant_type": {req.GrantType}, "client_id": {req.ClientID}, "client_secret": {req.ClientSecret}}, nil
	}
	return url.Values{}, fmt.Errorf("%w: %q", ErrContentType, r.Header.Get("Content-Type"))
}

// admit checks a token request in the order its style implies and returns
// the client to issue a token to.
func (k *Server) admit(e TokenEndpoint, r *http.Request, fields url.Values, parseErr error) (Client, error) {
	var c Client
	var err error
	required := []string{"grant_type", "client_id", "client_secret"}
	if e.Credentials == BasicAuth {
		id, secret, ok := r.BasicAuth()
		if !ok {
			return Client{}, ErrNoCredentials
		}
		if c, err = k.authenticate(id, secret); err != nil {
			return Client{}, err
		}
		required = required[:1]
	}
	if parseErr != nil {
		return Client{}, parseErr
	}
	var missing []string
	for _, f := range required {
		if fields.Get(f) == "" {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return Client{}, &MissingError{Fields: missing}
	}
	if g := fields.Get("grant_type"); g != "client_credentials" {
		return Client{}, fmt.Errorf("%w: %q", ErrGrant, g)
	}
	if e.Credentials != BasicAuth {
		if c, err = k.authenticate(fields.Get("client_id"), fields.Get("client_secret")); err != nil {
			return Client{}, err
		}
	}
	if e.Admit != nil {
		if err := e.Admit(r, c); err != nil {
			return Client{}, err
		}
	}
	return c, nil
}

func (k *Server) authenticate(id, secret string) (Client, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.clients[id]
	if !ok || id == "" || secret != c.Secret {
		return Client{}, fmt.Errorf("%w: %q", ErrBadClient, id)
	}
	return c, nil
}
