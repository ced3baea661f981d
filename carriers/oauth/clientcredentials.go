package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// DefaultMaxLifetime caps what a token answer may claim: a nonsense
// expires_in cannot overflow time arithmetic or keep a token for weeks.
// Carriers' tokens live one to eight hours.
const DefaultMaxLifetime = 24 * time.Hour

// OpToken is the token call, as carriers.Error.Operation names it.
const OpToken = "token"

// ClientCredentials fetches tokens at a carrier's endpoint with the OAuth
// 2.0 client-credentials grant (RFC 6749 §4.4): a form POST answered with
// access_token, token_type and expires_in. It is the one token source of
// every connector; Fetch is a Cache's Fetch.
type ClientCredentials struct {
	// Carrier names the carrier in errors.
	Carrier string
	// URL is the token endpoint.
	URL string
	// ClientID and ClientSecret are the client's credentials.
	ClientID, ClientSecret string
	// InBody sends client_id and client_secret in the form body (FedEx,
	// USPS); otherwise they go in an HTTP Basic header (UPS, and RFC 6749's
	// preferred way). Either way they are never in the URL, so no transport
	// error can print them.
	InBody bool
	// Header are further request headers (UPS's x-merchant-id).
	Header map[string]string
	// Client sends the request (carriers.HTTPClient: no redirects).
	Client *http.Client
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// MaxLifetime cuts a longer expires_in to it; 0: DefaultMaxLifetime.
	MaxLifetime time.Duration
	// Redactor hides the secret (and its encoded forms) in what the
	// endpoint's answer repeats.
	Redactor *carriers.Redactor
	Logger   *slog.Logger
	// StatusError reads a non-200 answer in the carrier's own error format.
	// A 4xx other than 429 the kit then reports as refused credentials
	// (carriers.ErrFailed): no shipment can fix them, and retrying with the
	// same ones cannot help.
	StatusError func(status int, header http.Header, body []byte) *carriers.Error
}

// MsgCredentialsRefused is the message of a token refusal.
const MsgCredentialsRefused = "the carrier refused the credentials"

// Fetch asks for a new token.
func (cc ClientCredentials) Fetch(ctx context.Context) (Token, error) {
	now := time.Now
	if cc.Now != nil {
		now = cc.Now
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if cc.InBody {
		form.Set("client_id", cc.ClientID)
		form.Set("client_secret", cc.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cc.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return Token{}, &carriers.Error{Carrier: cc.Carrier, Operation: OpToken, Kind: carriers.ErrFailed,
			Message: "could not build the token request: " + cc.Redactor.Redact(err.Error())}
	}
	if !cc.InBody {
		req.SetBasicAuth(cc.ClientID, cc.ClientSecret)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	for k, v := range cc.Header {
		req.Header.Set(k, v)
	}
	res, err := cc.Client.Do(req)
	if err != nil {
		return Token{}, carriers.TransportError(cc.Logger, cc.Redactor, cc.Carrier, OpToken, err)
	}
	body, err := carriers.ReadAnswer(cc.Logger, cc.Redactor, cc.Carrier, OpToken, res, 1<<20)
	if err != nil {
		return Token{}, err
	}
	if res.StatusCode != http.StatusOK {
		e := cc.StatusError(res.StatusCode, res.Header, body)
		if res.StatusCode >= 400 && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests && e.Kind != carriers.ErrUnavailable {
			e.Kind, e.Message = carriers.ErrFailed, MsgCredentialsRefused
		}
		e.Operation = OpToken
		return Token{}, cc.Redactor.Err(e)
	}
	tok, err := ParseToken(body, now(), cc.MaxLifetime)
	if err != nil {
		// The message never quotes the body: it holds the token.
		return Token{}, &carriers.Error{Carrier: cc.Carrier, Operation: OpToken, HTTPStatus: res.StatusCode,
			Kind: carriers.ErrFailed, Message: "unusable answer: " + err.Error()}
	}
	return tok, nil
}

// ParseToken reads a token answer received at now: an access_token, a
// token_type of Bearer (or none), and expires_in, the seconds it lives, as
// a JSON number or a string of one (UPS's and USPS's examples send
// "14399"), cut to maxLifetime (0: DefaultMaxLifetime).
func ParseToken(body []byte, now time.Time, maxLifetime time.Duration) (Token, error) {
	if maxLifetime <= 0 {
		maxLifetime = DefaultMaxLifetime
	}
	var t struct {
		AccessToken string          `json:"access_token"`
		TokenType   string          `json:"token_type"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return Token{}, fmt.Errorf("the token answer is not the documented JSON object")
	}
	if strings.TrimSpace(t.AccessToken) == "" {
		return Token{}, fmt.Errorf("the token answer has no access_token")
	}
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "Bearer") {
		return Token{}, fmt.Errorf("the token answer has token_type %q, not Bearer", carriers.Excerpt(t.TokenType))
	}
	secs, err := seconds(t.ExpiresIn)
	if err != nil {
		return Token{}, fmt.Errorf("the token answer has no usable expires_in: %w", err)
	}
	life := maxLifetime
	if secs < int64(maxLifetime/time.Second) {
		life = time.Duration(secs) * time.Second
	}
	return Token{AccessToken: t.AccessToken, ExpiresAt: now.Add(life)}, nil
}

// seconds reads a positive whole number of seconds sent as a JSON number
// or a string of one; "3600.0" is whole.
func seconds(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, fmt.Errorf("missing")
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	s = strings.TrimSpace(s)
	if whole, frac, ok := strings.Cut(s, "."); ok && digits(whole) && strings.Trim(frac, "0") == "" {
		s = whole
	}
	if !digits(s) {
		return 0, fmt.Errorf("%q is not a number of seconds", carriers.Excerpt(s))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// More digits than an int64: longer than any cap.
		return 1<<62 - 1, nil
	}
	if n <= 0 {
		return 0, fmt.Errorf("%d is not a positive number of seconds", n)
	}
	return n, nil
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
