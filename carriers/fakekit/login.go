package fakekit

import (
	"fmt"
	"net/http"
	"time"
)

// LoginEndpoint is a carrier's own login that is not OAuth 2.0: DPD's
// META-API takes the login, password and business unit in request headers
// and answers the token in a header. Its tokens are the ones the
// operations take (a Bearer token), as a TokenEndpoint's are.
type LoginEndpoint struct {
	// Client is the credentials the endpoint accepts from the start;
	// AddClient adds others.
	Client Client
	// TTL is the lifetime of the tokens issued until SetTokenTTL.
	TTL time.Duration
	// Prefix starts every token.
	Prefix string
	// Credentials reads the client id and secret a request presents; its
	// error (the carrier's own: a header missing) goes to Config.Refuse.
	Credentials func(r *http.Request) (id, secret string, err error)
	// Admit, when set, has the carrier's last word on a request whose
	// credentials are good (DPD: the business unit it names); its error
	// goes to Config.Refuse.
	Admit func(r *http.Request, c Client) error
	// Answer writes the carrier's answer to a token issued.
	Answer func(w http.ResponseWriter, t Issued)
}

// Login serves pattern as the fake's login endpoint e (operation OpToken),
// whose tokens the operations take. A call is recorded with the client id
// it presents and takes that client's faults and OpToken's, as a token
// endpoint's does.
func (rt *Router) Login(pattern string, e LoginEndpoint) {
	rt.k.clients[e.Client.ID] = e.Client
	rt.k.tokenTTL = e.TTL
	rt.k.tokens = NewTokens(e.Prefix, rt.k.Now)
	rt.mux.HandleFunc(pattern, rt.k.loginEndpoint(e))
}

func (k *Server) loginEndpoint(e LoginEndpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := k.begin(w, r, OpToken); !ok {
			return
		}
		id, secret, credErr := e.Credentials(r)
		k.addCaller(OpToken, id)
		if k.answerFault(r, OpToken, id, true) {
			return
		}
		if r.Method != http.MethodPost {
			k.cfg.Refuse(w, r, fmt.Errorf("%w: %s", ErrMethod, r.Method))
			return
		}
		if credErr != nil {
			k.cfg.Refuse(w, r, credErr)
			return
		}
		c, err := k.authenticate(id, secret)
		if err == nil && e.Admit != nil {
			err = e.Admit(r, c)
		}
		if err != nil {
			k.cfg.Refuse(w, r, err)
			return
		}
		k.mu.Lock()
		ttl := k.tokenTTL
		k.mu.Unlock()
		token, at := k.tokens.Issue(c, ttl)
		e.Answer(w, Issued{Token: token, Client: c, At: at, TTL: ttl, ExpiresIn: int64(ttl / time.Second)})
	}
}
