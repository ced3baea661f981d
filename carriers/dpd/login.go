package dpd

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// tokenHeader is where the login's answer carries the token: the META-API
// document's 200 has no body, and the customer documentation says only
// that the login "will retrieve to the shipper a JWT TOKEN" (karrio's
// adapter reads this header; NOTICE).
const tokenHeader = "X-DPD-TOKEN"

// Token lifetimes: "Once the token retrieved, it can be used for label
// generation through Shipment method for up to 24 hours. Exception: The
// token for SEUR will expire only after 30minutes." A JWT's own exp
// claim, when earlier, wins.
const (
	tokenLifetime     = 24 * time.Hour
	seurTokenLifetime = 30 * time.Minute
	seurBU            = "020"
)

// fetchToken logs in (POST /shipping/v1/login with the X-DPD-LOGIN,
// X-DPD-PASSWORD and X-DPD-BUCODE headers): the token cache's Fetch.
func (c *Carrier) fetchToken(ctx context.Context) (oauth.Token, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+loginPath, http.NoBody)
	if err != nil {
		return oauth.Token{}, &carriers.Error{Carrier: carrierName, Operation: oauth.OpToken, Kind: carriers.ErrFailed,
			Message: "could not build the login request: " + c.redact.Redact(err.Error())}
	}
	req.Header.Set("X-DPD-LOGIN", c.login)
	req.Header.Set("X-DPD-PASSWORD", c.password)
	req.Header.Set("X-DPD-BUCODE", c.buCode)
	req.Header.Set("Accept", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		return oauth.Token{}, carriers.TransportError(c.log, c.redact, carrierName, oauth.OpToken, err)
	}
	body, err := carriers.ReadAnswer(c.log, c.redact, carrierName, oauth.OpToken, res, 1<<20)
	if err != nil {
		return oauth.Token{}, err
	}
	if res.StatusCode != http.StatusOK {
		e := answerError(c.log, oauth.OpToken, res.StatusCode, res.Header, body, c.now(), c.redact)
		if res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			// No shipment can fix the login, and trying again cannot
			// either; DPD's code stays.
			e.Kind, e.Message = carriers.ErrFailed, oauth.MsgCredentialsRefused
		}
		return oauth.Token{}, e
	}
	tok, err := parseLogin(res.Header, c.now(), c.buCode)
	if err != nil {
		// The message never quotes the answer: it holds the token.
		return oauth.Token{}, &carriers.Error{Carrier: carrierName, Operation: oauth.OpToken, HTTPStatus: res.StatusCode,
			Kind: carriers.ErrFailed, Message: "unusable login answer: " + err.Error()}
	}
	return tok, nil
}

// parseLogin reads the login answer's token and when it expires: the
// JWT's exp claim when it has one, within the documented lifetime of the
// BU's tokens.
func parseLogin(header http.Header, now time.Time, bu string) (oauth.Token, error) {
	token := strings.TrimSpace(header.Get(tokenHeader))
	if token == "" {
		return oauth.Token{}, fmt.Errorf("no %s header", tokenHeader)
	}
	if len(token) > 8<<10 || strings.ContainsAny(token, " \t\r\n") {
		return oauth.Token{}, fmt.Errorf("the %s header is not a token", tokenHeader)
	}
	life := tokenLifetime
	if bu == seurBU {
		life = seurTokenLifetime
	}
	expires := now.Add(life)
	if exp, ok := jwtExpiry(token); ok && exp.Before(expires) {
		if !exp.After(now) {
			return oauth.Token{}, fmt.Errorf("the token has expired already")
		}
		expires = exp
	}
	return oauth.Token{AccessToken: token, ExpiresAt: expires}, nil
}

// jwtExpiry is a JWT's exp claim, read without verifying the token (shipd
// only needs to know when to log in again; DPD verifies it); ok is false
// for a token that is no JWT or has no usable exp.
func jwtExpiry(token string) (time.Time, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, false
	}
	secs, err := claims.Exp.Int64()
	if err != nil || secs <= 0 || secs > 1<<40 {
		return time.Time{}, false
	}
	return time.Unix(secs, 0), true
}
