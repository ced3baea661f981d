package dhlparcelde

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// fetchToken asks DHL's authentication API for a pickup token: OAuth 2.0's
// resource owner password grant (the documents' OAuth2 scheme, flow
// "password", tokenUrl /parcel/de/account/auth/ropc/v1/token: "provide
// all parameters in the request body"): the portal user and password, and
// the app's API key and secret as client_id and client_secret. No
// vendored document describes the endpoint itself (NOTICE); its answer is
// the OAuth token answer carriers/oauth reads.
func (c *Carrier) fetchToken(ctx context.Context) (oauth.Token, error) {
	form := url.Values{"grant_type": {"password"}, "username": {c.cfg.Username}, "password": {c.cfg.Password},
		"client_id": {c.cfg.APIKey}, "client_secret": {c.cfg.APISecret}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+tokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		return oauth.Token{}, &carriers.Error{Carrier: carrierName, Operation: opToken, Kind: carriers.ErrFailed,
			Message: "could not build the token request: " + c.redact.Redact(err.Error())}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return oauth.Token{}, carriers.TransportError(c.cfg.Logger, c.redact, carrierName, opToken, err)
	}
	body, err := carriers.ReadAnswer(c.cfg.Logger, c.redact, carrierName, opToken, res, 1<<20)
	if err != nil {
		return oauth.Token{}, c.redact.Err(err)
	}
	if res.StatusCode != http.StatusOK {
		e := answerError(c.cfg.Logger, opToken, res.StatusCode, res.Header, body, c.cfg.Now(), c.redact)
		if res.StatusCode >= 400 && res.StatusCode < 500 && e.Kind != carriers.ErrUnavailable {
			// Refused credentials: no shipment can fix them, and asking
			// again with the same ones cannot help.
			e.Kind = carriers.ErrFailed
			if !strings.HasPrefix(e.Message, msgCredentialsRefused) {
				e.Message = carriers.Excerpt(msgCredentialsRefused + ": " + e.Message)
			}
		}
		return oauth.Token{}, e
	}
	tok, err := oauth.ParseToken(body, c.cfg.Now(), 0)
	if err != nil {
		// The message never quotes the body: it holds the token.
		return oauth.Token{}, &carriers.Error{Carrier: carrierName, Operation: opToken, HTTPStatus: res.StatusCode,
			Kind: carriers.ErrFailed, Message: "unusable token answer: " + err.Error()}
	}
	return tok, nil
}
