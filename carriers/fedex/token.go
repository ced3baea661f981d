package fedex

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// tokenPath is the Authorization API v1 endpoint.
const tokenPath = "/oauth/token"

// fetchToken asks FedEx for a client-credentials token: a form POST with
// grant_type, client_id and client_secret in the body (Authorization API v1,
// APIAuthorization-Resource.json), answered with access_token and
// expires_in seconds.
func (c *Carrier) fetchToken(ctx context.Context) (oauth.Token, error) {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {c.clientID},
		"client_secret": {c.clientSecret},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+tokenPath, bytes.NewBufferString(form.Encode()))
	if err != nil {
		return oauth.Token{}, &carriers.Error{Carrier: Name, Operation: opToken, Kind: carriers.ErrFailed,
			Message: "could not build the token request: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		// url.Error names the URL, never the form body with the secret.
		return oauth.Token{}, c.transportError(opToken, err, c.redact)
	}
	defer res.Body.Close()
	body, err := readBody(res.Body)
	if err != nil {
		return oauth.Token{}, c.bodyError(opToken, res.StatusCode, err, c.redact)
	}
	if res.StatusCode != http.StatusOK {
		return oauth.Token{}, c.statusError(opToken, res, body, c.redact)
	}
	tok, err := parseToken(body, c.now())
	if err != nil {
		return oauth.Token{}, err
	}
	return tok, nil
}

// parseToken reads the token answer. expires_in is seconds, sent as a
// number or a string. Messages never quote the body: it holds the token.
func parseToken(body []byte, now time.Time) (oauth.Token, error) {
	var t struct {
		AccessToken string          `json:"access_token"`
		TokenType   string          `json:"token_type"`
		ExpiresIn   json.RawMessage `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &t); err != nil {
		return oauth.Token{}, malformed(opToken, "the token answer is not the documented JSON object")
	}
	if strings.TrimSpace(t.AccessToken) == "" {
		return oauth.Token{}, malformed(opToken, "the token answer has no access_token")
	}
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "bearer") {
		return oauth.Token{}, malformed(opToken, "the token type is %q, not bearer", t.TokenType)
	}
	secs, ok := expiresIn(t.ExpiresIn)
	if !ok {
		return oauth.Token{}, malformed(opToken, "the token answer has no usable expires_in")
	}
	return oauth.Token{AccessToken: t.AccessToken, ExpiresAt: now.Add(time.Duration(secs) * time.Second)}, nil
}

// expiresIn reads a positive whole number of seconds from a JSON number or
// string; a year is plenty for any real token and keeps the arithmetic safe.
func expiresIn(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// A JSON number may be written 3600.0.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, false
		}
		n = int64(f)
	}
	if n <= 0 || n > 366*24*3600 {
		return 0, false
	}
	return n, true
}
