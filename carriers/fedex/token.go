package fedex

import (
	"net/http"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/oauth"
)

// tokenPath is the Authorization API v1 endpoint.
const tokenPath = "/oauth/token"

// tokenSource is the carrier kit's client-credentials grant as FedEx takes
// it (Authorization API v1, APIAuthorization-Resource.json): grant_type,
// client_id and client_secret in a form body, FedEx's error body for a
// refusal.
func (c *Carrier) tokenSource() oauth.ClientCredentials {
	return oauth.ClientCredentials{
		Carrier: Name, URL: c.baseURL + tokenPath, ClientID: c.clientID, ClientSecret: c.clientSecret, InBody: true,
		Client: c.client, Now: c.now, Redactor: c.redact, Logger: c.log,
		StatusError: func(status int, header http.Header, body []byte) *carriers.Error {
			return c.statusError(opToken, &http.Response{StatusCode: status, Header: header}, body, c.redact)
		},
	}
}
