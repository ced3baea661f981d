package usps

import (
	"context"
	"net/http"
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

// tokenSource is the carrier kit's client-credentials grant as USPS takes
// it (OAuth 2.0 3.0 API): the credentials in a form body (its first
// documented content type, and RFC 6749's), USPS's error body for a refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: CarrierName, URL: c.base + tokenPath, ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret, InBody: true,
		Client: c.client, Now: c.now, Redactor: c.redact, Logger: c.log,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return statusError(opToken, answer{status: status, header: header, body: body, redact: c.redact, log: c.log}, c.now())
		},
	}
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
