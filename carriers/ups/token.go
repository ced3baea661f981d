package ups

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// tokenPath is the OAuth Client Credentials endpoint
// (OAuthClientCredentials.yaml: POST /security/v1/oauth/token, HTTP Basic
// with the client id and secret, form body grant_type=client_credentials,
// optional x-merchant-id header with the 6-character account number).
const tokenPath = "/security/v1/oauth/token"

// maxTokenLifetime caps what a token answer may claim, so a nonsense
// expires_in cannot overflow time arithmetic or keep a token for weeks.
const maxTokenLifetime = 24 * time.Hour

// fetchToken asks UPS for a new access token; it is the oauth.Fetch of the
// carrier's token cache.
func (c *Carrier) fetchToken(ctx context.Context) (oauth.Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+tokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		return oauth.Token{}, c.asCarrierError(opToken, err, c.redact)
	}
	req.SetBasicAuth(c.cfg.ClientID, c.cfg.ClientSecret)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("x-merchant-id", c.cfg.AccountNumber)
	res, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return oauth.Token{}, c.transportError(opToken, err, c.redact)
	}
	body, err := c.readBody(opToken, res, c.redact)
	if err != nil {
		return oauth.Token{}, c.asCarrierError(opToken, err, c.redact)
	}
	if res.StatusCode != http.StatusOK {
		e := answerError(c.cfg.Logger, opToken, res.StatusCode, res.Header, body, c.cfg.Now(), c.redact)
		if res.StatusCode >= 400 && res.StatusCode < 500 && e.Kind != carriers.ErrUnavailable {
			// Whatever the token endpoint refuses (400 invalid client,
			// 401, 403 blocked merchant) is the credentials' fault and no
			// shipment can fix it.
			e.Kind, e.Message = carriers.ErrFailed, msgCredentialsRefused
		}
		return oauth.Token{}, e
	}
	tok, err := parseToken(body, c.cfg.Now())
	if err != nil {
		return oauth.Token{}, malformed(opToken, res.StatusCode, "%v", err)
	}
	return tok, nil
}

// tokenAnswer is tokenSuccessResponse; UPS documents expires_in as a string
// of seconds ("14399"), but a number is accepted as well.
type tokenAnswer struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   json.RawMessage `json:"expires_in"`
}

// parseToken reads a token answer received at now.
func parseToken(body []byte, now time.Time) (oauth.Token, error) {
	var a tokenAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return oauth.Token{}, fmt.Errorf("token answer is not JSON: %w", err)
	}
	if strings.TrimSpace(a.AccessToken) == "" {
		return oauth.Token{}, fmt.Errorf("token answer has no access_token")
	}
	if a.TokenType != "" && !strings.EqualFold(a.TokenType, "Bearer") {
		return oauth.Token{}, fmt.Errorf("token answer has token_type %q, want Bearer", a.TokenType)
	}
	secs, err := seconds(a.ExpiresIn)
	if err != nil {
		return oauth.Token{}, fmt.Errorf("token answer has no usable expires_in: %w", err)
	}
	life := min(time.Duration(min(secs, int64(maxTokenLifetime/time.Second)))*time.Second, maxTokenLifetime)
	return oauth.Token{AccessToken: a.AccessToken, ExpiresAt: now.Add(life)}, nil
}

// seconds reads a positive whole number of seconds sent as a JSON string or number.
func seconds(raw json.RawMessage) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if !present(raw) {
		return 0, fmt.Errorf("missing")
	}
	s := string(raw)
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
	}
	s = strings.TrimSpace(s)
	// A JSON number may come as "3599.0"; whole seconds are enough.
	if whole, frac, ok := strings.Cut(s, "."); ok && isDigits(whole) && (frac == "" || isDigits(frac)) {
		s = whole
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%d is not a positive number of seconds", n)
	}
	return n, nil
}
