package contracttest

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// carrierAccountUPS is the fake UPS the CarrierAccountsServer's carrier
// accounts reach, started with that server and kept for the run.
var carrierAccountUPS struct {
	once sync.Once
	srv  *upsfake.Server
}

// downClientID is a UPS customer whose token requests the fake answers 503.
const downClientID, downSecret = "contract-down-client", "contract-down-secret"

func fakeUPS() *upsfake.Server {
	carrierAccountUPS.once.Do(func() {
		s := upsfake.NewServer()
		s.AddClient(downClientID, downSecret, upsfake.AccountNumber)
		s.FailClient(downClientID, upsfake.Failure{Status: http.StatusServiceUnavailable, Body: upsfake.ErrorBody("9999", "down"),
			Header: http.Header{"Retry-After": {"5"}}})
		carrierAccountUPS.srv = s
	})
	return carrierAccountUPS.srv
}

// unreachableClientID is a UPS customer whose calls this server's network
// cannot make: the host name does not resolve (no DNS, no egress), as
// carriers.TransportError reads it.
const unreachableClientID, unreachableSecret = "contract-unreachable-client", "contract-unreachable-secret"

// unreachableFor fails every request authenticated as unreachableClientID
// as a host name that does not resolve; the others go through.
type unreachableFor struct{ next http.RoundTripper }

func (u unreachableFor) RoundTrip(r *http.Request) (*http.Response, error) {
	if id, _, ok := r.BasicAuth(); ok && id == unreachableClientID {
		return nil, &net.DNSError{Err: "no such host", Name: r.URL.Hostname(), IsNotFound: true}
	}
	return u.next.RoundTrip(r)
}

// withCarrierAccounts lets the server's tenants connect UPS accounts, which
// reach the fake UPS whatever their environment (unreachableClientID's
// reach nothing).
func withCarrierAccounts(c *app.Config) {
	u := fakeUPS().URL()
	client := &http.Client{Transport: unreachableFor{http.DefaultTransport}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	c.CarrierAccounts = connectors.Catalog().Factory(carriers.FactoryOptions{HTTPClient: client, URLs: map[carriers.ID]carriers.Endpoints{"UPS": {Production: u, Test: u}}})
}

// CarrierAccount is a POST /carrier-accounts body of a UPS account.
func CarrierAccount(clientID, secret string) map[string]any {
	return map[string]any{"carrier": "UPS", "description": "contract test",
		"credentials": map[string]any{"clientId": clientID, "clientSecret": secret, "accountNumber": upsfake.AccountNumber}}
}

func carrierAccountScenarios() []Scenario {
	// connected is a live token of the scenario's account and a UPS carrier
	// account it connected (on the CarrierAccountsServer).
	connected := func(e *Env) (string, string) {
		tok := e.Token("live")
		return tok, ID(e.Want(e.Call("POST", "/carrier-accounts", tok, CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)), 201))
	}
	id := func(id string) map[string]string { return map[string]string{"id": id} }
	return []Scenario{
		// createCarrierAccount
		{Name: "connected, the secret not shown", Op: "createCarrierAccount", Status: 201, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Body: CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)}
			},
			Check: wantJSON(func(m map[string]any) error {
				if m["clientId"] == upsfake.ClientID || m["enabled"] != true || !strings.HasPrefix(ID(m), "ca_") {
					return fmt.Errorf("carrier account %v: the client id unmasked, not enabled or not a ca_ id", m)
				}
				if _, ok := m["clientSecret"]; ok {
					return fmt.Errorf("the answer shows clientSecret")
				}
				return nil
			})},
		{Name: "idempotency key reused with another body", Op: "createCarrierAccount", Status: 409, Code: "idempotency_key_collision", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok := e.Token("live")
				body := CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)
				body["idempotencyKey"] = "contract-carrier-" + randomHex(4)
				e.Want(e.Call("POST", "/carrier-accounts", tok, body), 201)
				body["description"] = "another"
				return Request{Token: tok, Body: body}
			}},
		{Name: "a test-mode token", Op: "createCarrierAccount", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("test"), Body: CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)}
			},
			Check: wantJSON(func(m map[string]any) error {
				if m["field"] != "mode" {
					return fmt.Errorf("field %v, want mode", m["field"])
				}
				return nil
			})},
		{Name: "credentials the carrier refuses", Op: "createCarrierAccount", Status: 422, Code: "carrier_credentials_invalid", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Body: CarrierAccount(upsfake.ClientID, "not-the-secret")}
			}},
		{Name: "the carrier is down", Op: "createCarrierAccount", Status: 503, Code: "carrier_unavailable", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				// A customer of its own, whom the fake answers 503: other
				// scenarios' token requests are not refused meanwhile.
				return Request{Token: e.Token("live"), Body: CarrierAccount(downClientID, downSecret)}
			}},
		{Name: "the carrier's host does not resolve", Op: "createCarrierAccount", Status: 502, Code: "carrier_unreachable", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Body: CarrierAccount(unreachableClientID, unreachableSecret)}
			},
			Check: wantNoHeader("Retry-After")},
		{Name: "required credentials left empty", Op: "createCarrierAccount", Status: 422, Code: "missing_field", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Body: map[string]any{"carrier": "UPS", "credentials": map[string]any{"clientId": upsfake.ClientID}}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if fields, _ := m["fields"].([]any); m["field"] != "credentials.clientSecret" || len(fields) != 2 {
					return fmt.Errorf("field %v, fields %v; want credentials.clientSecret and accountNumber", m["field"], m["fields"])
				}
				return nil
			})},

		// listCarrierAccounts
		{Name: "a page of carrier accounts", Op: "listCarrierAccounts", Status: 200, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, _ := connected(e)
				return Request{Token: tok}
			},
			Check: wantJSON(func(m map[string]any) error {
				if n := len(m["data"].([]any)); n != 1 {
					return fmt.Errorf("%d carrier accounts, want 1", n)
				}
				return nil
			})},
		{Name: "limit 0", Op: "listCarrierAccounts", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request { return Request{Token: e.Token("live"), Query: url.Values{"limit": {"0"}}} }},

		// getCarrierAccount
		{Name: "a carrier account", Op: "getCarrierAccount", Status: 200, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return Request{Token: tok, Params: id(ca)}
			}},
		{Name: "live carrier account with a test token", Op: "getCarrierAccount", Status: 403, Code: "wrong_mode", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				_, ca := connected(e)
				return Request{Token: e.Token("test"), Params: id(ca)}
			}},
		{Name: "no such carrier account", Op: "getCarrierAccount", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: id("ca_contract0000000000000000")}
			}},

		// updateCarrierAccount
		{Name: "disabled", Op: "updateCarrierAccount", Status: 200, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return Request{Token: tok, Params: id(ca), Body: map[string]any{"enabled": false}}
			},
			Check: wantJSON(func(m map[string]any) error {
				if m["enabled"] != false {
					return fmt.Errorf("enabled %v after disabling", m["enabled"])
				}
				return nil
			})},
		{Name: "live carrier account with a test token", Op: "updateCarrierAccount", Status: 403, Code: "wrong_mode", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				_, ca := connected(e)
				return Request{Token: e.Token("test"), Params: id(ca), Body: map[string]any{"enabled": false}}
			}},
		{Name: "no such carrier account", Op: "updateCarrierAccount", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: id("ca_contract0000000000000000"), Body: map[string]any{"enabled": false}}
			}},
		{Name: "a description too long", Op: "updateCarrierAccount", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: id("ca_contract0000000000000000"), Body: map[string]any{"description": strings.Repeat("x", 256)}}
			}},
		{Name: "new credentials while the carrier is down", Op: "updateCarrierAccount", Status: 503, Code: "carrier_unavailable", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				creds := CarrierAccount(downClientID, downSecret)["credentials"]
				return Request{Token: tok, Params: id(ca), Body: map[string]any{"credentials": creds}}
			}},
		{Name: "new credentials whose host does not resolve", Op: "updateCarrierAccount", Status: 502, Code: "carrier_unreachable", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				creds := CarrierAccount(unreachableClientID, unreachableSecret)["credentials"]
				return Request{Token: tok, Params: id(ca), Body: map[string]any{"credentials": creds}}
			},
			Check: wantNoHeader("Retry-After")},

		// deleteCarrierAccount
		{Name: "deleted", Op: "deleteCarrierAccount", Status: 204, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return Request{Token: tok, Params: id(ca)}
			}},
		{Name: "live carrier account with a test token", Op: "deleteCarrierAccount", Status: 403, Code: "wrong_mode", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				_, ca := connected(e)
				return Request{Token: e.Token("test"), Params: id(ca)}
			}},
		{Name: "no such carrier account", Op: "deleteCarrierAccount", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: id("ca_contract0000000000000000")}
			}},
	}
}

// RateSheet is a PUT /carrier-accounts/{id}/rate-sheet body: UPS Ground at
// a negotiated price.
const RateSheet = "service,destination,maxWeightG,price,currency\nGround,US,30000,7.77,USD\n"

func rateSheetScenarios() []Scenario {
	connected := func(e *Env) (string, string) {
		tok := e.Token("live")
		return tok, ID(e.Want(e.Call("POST", "/carrier-accounts", tok, CarrierAccount(upsfake.ClientID, upsfake.ClientSecret)), 201))
	}
	// withSheet is connected with RateSheet set.
	withSheet := func(e *Env) (string, string) {
		tok, ca := connected(e)
		e.Want(e.Call("PUT", "/carrier-accounts/"+ca+"/rate-sheet", tok, RateSheet), 200)
		return tok, ca
	}
	id := func(id string) map[string]string { return map[string]string{"id": id} }
	csv := func(tok, ca, body string) Request {
		return Request{Token: tok, Params: id(ca), Body: body, ContentType: "text/csv"}
	}
	return []Scenario{
		// putCarrierAccountRateSheet
		{Name: "a sheet taken", Op: "putCarrierAccountRateSheet", Status: 200, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return csv(tok, ca, RateSheet)
			},
			Check: wantJSON(func(m map[string]any) error {
				if rs, _ := m["rateSheet"].(map[string]any); rs["rows"] != 1.0 {
					return fmt.Errorf("rateSheet %v, want 1 row", m["rateSheet"])
				}
				return nil
			})},
		{Name: "no such carrier account", Op: "putCarrierAccountRateSheet", Status: 404, Code: "not_found",
			Request: func(e *Env) Request { return csv(e.Token("live"), "ca_contract0000000000000000", RateSheet) }},
		{Name: "a price of three decimals", Op: "putCarrierAccountRateSheet", Status: 422, Code: "invalid_rate_sheet", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return csv(tok, ca, "service,destination,maxWeightG,price,currency\nGround,US,30000,7.777,USD\n")
			},
			Check: wantJSON(func(m map[string]any) error {
				if m["line"] != 2.0 || m["column"] != 4.0 {
					return fmt.Errorf("line %v column %v, want line 2 column 4", m["line"], m["column"])
				}
				return nil
			})},

		// getCarrierAccountRateSheet
		{Name: "the sheet as sent", Op: "getCarrierAccountRateSheet", Status: 200, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := withSheet(e)
				return Request{Token: tok, Params: id(ca)}
			},
			Check: func(x *Exchange) error {
				if string(x.Body) != RateSheet {
					return fmt.Errorf("body %q, want the sheet as sent", x.Body)
				}
				return nil
			}},
		{Name: "a carrier account without one", Op: "getCarrierAccountRateSheet", Status: 404, Code: "no_rate_sheet", Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := connected(e)
				return Request{Token: tok, Params: id(ca)}
			}},

		// deleteCarrierAccountRateSheet
		{Name: "removed", Op: "deleteCarrierAccountRateSheet", Status: 204, Server: CarrierAccountsServer,
			Request: func(e *Env) Request {
				tok, ca := withSheet(e)
				return Request{Token: tok, Params: id(ca)}
			}},
		{Name: "no such carrier account", Op: "deleteCarrierAccountRateSheet", Status: 404, Code: "not_found",
			Request: func(e *Env) Request {
				return Request{Token: e.Token("live"), Params: id("ca_contract0000000000000000")}
			}},
	}
}
