package ups

import (
	"net/http"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// tokenPath is the OAuth Client Credentials endpoint
// (OAuthClientCredentials.yaml: POST /security/v1/oauth/token, HTTP Basic
// with the client id and secret, form body grant_type=client_credentials,
// optional x-merchant-id header with the 6-character account number).
const tokenPath = "/security/v1/oauth/token"

// tokenSource is the carrier kit's client-credentials grant as UPS takes
// it: the credentials in an HTTP Basic header, the shipper number in
// x-merchant-id, UPS's error body for a refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: carrierName, URL: c.cfg.BaseURL + tokenPath, ClientID: c.cfg.ClientID, ClientSecret: c.cfg.ClientSecret,
		Header: map[string]string{"x-merchant-id": c.cfg.AccountNumber},
		Client: c.cfg.HTTPClient, Now: c.cfg.Now, Redactor: c.redact, Logger: c.cfg.Logger,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return answerError(c.cfg.Logger, opToken, status, header, body, c.cfg.Now(), c.redact)
		},
	}
}
