package usps

import (
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

const (
	tokenPath   = "/oauth2/v3/token"
	paymentPath = "/payments/v3/payment-authorization"
	// paymentTokenLifetime is documented by Payments 3.0: "Tokens are valid
	// for eight hours after issuance." The answer carries no expiry.
	paymentTokenLifetime = 8 * time.Hour
)

// fetchToken asks the OAuth 2.0 token endpoint for a client-credentials
// token. The credentials go in a form body (the first content type the
// OAuth 2.0 3.0 API documents, and the RFC 6749 one), never in the URL, so
// no transport error can print the secret.
func (c *Carrier) fetchToken(ctx context.Context) (oauth.Token, error) {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {c.cfg.ClientID},
		"client_secret": {c.cfg.ClientSecret},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+tokenPath, strings.NewReader(form.Encode()))
	if err != nil {
		return oauth.Token{}, failed(opToken, 0, "build the token request: %v", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	res, err := c.client.Do(req)
	if err != nil {
		return oauth.Token{}, c.transportError(opToken, err, c.redact)
	}
	a, err := c.readAnswer(opToken, res, c.redact)
	if err != nil {
		return oauth.Token{}, err
	}
	if !a.ok() {
		e := statusError(opToken, a, c.now())
		if a.status >= 400 && a.status < 500 && a.status != http.StatusTooManyRequests {
			// invalid_client and friends: retrying with the same
			// credentials cannot help, and it is no fault of the shipment.
			e.Kind = carriers.ErrFailed
			e.Message = "the carrier refused the credentials"
		}
		return oauth.Token{}, e
	}
	return parseToken(a.body, c.now())
}

// tokenAnswer is the part of ProviderAccessTokenResponse the adapter uses.
type tokenAnswer struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   json.RawMessage `json:"expires_in"`
}

// parseToken reads a token answer. expires_in is documented as an integer of
// seconds, but USPS's own examples send it as a string ("28799"), so both are
// accepted.
func parseToken(body []byte, now time.Time) (oauth.Token, error) {
	var t tokenAnswer
	if err := decodeJSON(body, &t); err != nil {
		return oauth.Token{}, failed(opToken, http.StatusOK, "the token answer is not JSON: %v", err)
	}
	if strings.TrimSpace(t.AccessToken) == "" {
		return oauth.Token{}, failed(opToken, http.StatusOK, "the token answer has no access_token")
	}
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "Bearer") {
		return oauth.Token{}, failed(opToken, http.StatusOK, "the token answer has token_type %q, not Bearer", t.TokenType)
	}
	secs, ok := parseSeconds(t.ExpiresIn)
	if !ok || secs <= 0 {
		return oauth.Token{}, failed(opToken, http.StatusOK, "the token answer has no usable expires_in (%s)", carriers.Excerpt(t.ExpiresIn))
	}
	return oauth.Token{AccessToken: t.AccessToken, ExpiresAt: now.Add(time.Duration(secs) * time.Second)}, nil
}

// parseSeconds reads a JSON integer or a string holding one.
func parseSeconds(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > int64(365*24*time.Hour/time.Second) {
		return 0, false
	}
	return n, true
}

// paymentRole is one role of a Payments 3.0 authorization. The PAYER pays
// from the EPS account; the LABEL_OWNER's MID and manifest MID number the
// labels. Both carry the same business, as in USPS's own example.
type paymentRole struct {
	RoleName      string `json:"roleName"`
	CRID          string `json:"CRID"`
	MID           string `json:"MID"`
	ManifestMID   string `json:"manifestMID"`
	AccountType   string `json:"accountType"`
	AccountNumber string `json:"accountNumber"`
}

type paymentRequest struct {
	Roles []paymentRole `json:"roles"`
}

func (c *Carrier) paymentRequest() paymentRequest {
	role := func(name string) paymentRole {
		return paymentRole{RoleName: name, CRID: c.cfg.CRID, MID: c.cfg.MID, ManifestMID: c.cfg.MID,
			AccountType: c.cfg.AccountType, AccountNumber: c.cfg.AccountNumber}
	}
	return paymentRequest{Roles: []paymentRole{role("PAYER"), role("LABEL_OWNER")}}
}

// fetchPaymentToken asks Payments 3.0 for the payment authorization token
// that label purchases and refunds send in X-Payment-Authorization-Token.
// It is called through the payments cache, so one token serves every
// purchase for its eight hours.
func (c *Carrier) fetchPaymentToken(ctx context.Context) (oauth.Token, error) {
	a, err := c.send(ctx, request{op: opPayment, method: http.MethodPost, path: paymentPath, body: c.paymentRequest()})
	if err != nil {
		return oauth.Token{}, err
	}
	if !a.ok() {
		e := statusError(opPayment, a, c.now())
		if e.Kind == carriers.ErrRejected {
			// USPS refused the CRID, MID or account: a configuration
			// problem, not something wrong with the shipment being bought.
			e.Kind = carriers.ErrFailed
			e.Message = "USPS refused the payment account: " + e.Message
		}
		return oauth.Token{}, e
	}
	return parsePaymentToken(a.body, c.now())
}

func parsePaymentToken(body []byte, now time.Time) (oauth.Token, error) {
	var p struct {
		PaymentAuthorizationToken string `json:"paymentAuthorizationToken"`
	}
	if err := decodeJSON(body, &p); err != nil {
		return oauth.Token{}, failed(opPayment, http.StatusOK, "the payment authorization answer is not JSON: %v", err)
	}
	if strings.TrimSpace(p.PaymentAuthorizationToken) == "" {
		return oauth.Token{}, failed(opPayment, http.StatusOK, "the payment authorization answer has no paymentAuthorizationToken")
	}
	return oauth.Token{AccessToken: p.PaymentAuthorizationToken, ExpiresAt: now.Add(paymentTokenLifetime)}, nil
}
