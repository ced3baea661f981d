// Package dhlparceldefake is a fake DHL Paket written from DHL's documents
// (carriers/dhlparcelde/spec): the Parcel DE Shipping API v2 (orders
// created and deleted, closeouts and manifests), the Returns API v1, the
// Pickup API v3 with its token endpoint (the authentication API's
// password grant), and the unified Shipment Tracking API. Every request it
// gets and every answer it gives (but injected faults) is held to the
// documents, and it checks what they leave to prose: the billing number of
// each product, the routes of the products, a German consignee's phone
// that "cannot be transmitted", an address it cannot encode under
// mustEncode, a closeout before a delete. It is safe for concurrent use.
package dhlparceldefake

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/dhlparcelde/spec"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// Credentials the fake accepts: DHL's sandbox gives every developer a user
// and billing numbers of the EKP 3333333333 alike.
const (
	APIKey    = "dhlfake-api-key-0001"
	APISecret = "dhlfake-api-secret-0001"
	Username  = "dhlfake-user"
	Password  = "dhlfake-password-0001"
	// BillingNumber is DHL Paket's (procedure 01) of EKP 3333333333,
	// participation 02.
	BillingNumber = "33333333330102"
)

// Operations, for counters, recorded requests, holds and failures.
const (
	OpToken        = fakekit.OpToken // POST /parcel/de/account/auth/ropc/v1/token
	OpOrder        = "order"         // POST /parcel/de/shipping/v2/orders
	OpDelete       = "delete"        // DELETE /parcel/de/shipping/v2/orders
	OpCloseout     = "closeout"      // POST /parcel/de/shipping/v2/manifests
	OpManifest     = "manifest"      // GET /parcel/de/shipping/v2/manifests
	OpReturn       = "return"        // POST /parcel/de/shipping/returns/v1/orders
	OpTrack        = "track"         // GET /track/shipments
	OpPickup       = "pickup"        // POST /parcel/de/transportation/pickup/v3/orders
	OpCancelPickup = "cancel_pickup" // DELETE /parcel/de/transportation/pickup/v3/orders
)

// Paths of the APIs below the fake's URL.
const (
	shippingPath = "/parcel/de/shipping/v2"
	returnsPath  = "/parcel/de/shipping/returns/v1"
	pickupPath   = "/parcel/de/transportation/pickup/v3"
	trackPath    = "/track/shipments"
	tokenPath    = "/parcel/de/account/auth/ropc/v1/token"
)

// DefaultTokenTTL is the lifetime of a pickup token.
const DefaultTokenTTL = 30 * time.Minute

// Failure is an answer the fake gives instead of the real one (Fail).
type Failure = fakekit.Fault

// Customer is a business customer the fake knows: its app's API key and
// secret, its portal user and password, and its billing number (its EKP
// and participation; each product's procedure goes between them).
type Customer struct {
	APIKey, APISecret, Username, Password, BillingNumber string
}

// Server is a running fake DHL. The kit it embeds records the calls
// (Requests, LastRequest, LastHeader, Callers), injects failures (Fail,
// FailNext, FailClient), holds answers (Hold, Release) and checks every
// exchange against the documents.
type Server struct {
	*fakekit.Server
	sales   fakekit.Sales[*shipment]
	pickups fakekit.Pickups[*pickup]
	tokens  *fakekit.Tokens

	mu        sync.Mutex
	customers map[string]Customer // by username
	seq       int
	// labelDoc, when set, is every order's label b64 instead of the
	// rendered one.
	labelDoc *string
}

// New starts a fake DHL that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

// NewServer starts a fake DHL outside a test; Close stops it.
func NewServer() *Server { return start(nil) }

func start(tb testing.TB) *Server {
	s := &Server{customers: map[string]Customer{}}
	s.AddCustomer(Customer{APIKey: APIKey, APISecret: APISecret, Username: Username, Password: Password, BillingNumber: BillingNumber})
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: maxRequest, Refuse: refuse, Authenticate: s.authenticate}, s.routes)
	s.tokens = fakekit.NewTokens("dhlfake-token-", s.Now)
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored documents do not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

// maxRequest bounds what the fake reads of a request.
const maxRequest = 2 << 20

func (s *Server) routes(rt *fakekit.Router) {
	rt.Operation("POST "+tokenPath, OpToken, s.token)
	rt.Operation("POST "+shippingPath+"/orders", OpOrder, jsonBody(s.order))
	rt.Operation("DELETE "+shippingPath+"/orders", OpDelete, s.delete)
	rt.Operation("POST "+shippingPath+"/manifests", OpCloseout, jsonBody(s.closeout))
	rt.Operation("GET "+shippingPath+"/manifests", OpManifest, s.manifest)
	rt.Operation("POST "+returnsPath+"/orders", OpReturn, jsonBody(s.returnOrder))
	rt.Operation("GET "+trackPath, OpTrack, s.track)
	rt.Operation("POST "+pickupPath+"/orders", OpPickup, jsonBody(s.pickup))
	rt.Operation("DELETE "+pickupPath+"/orders", OpCancelPickup, s.cancelPickup)
}

// AddCustomer makes the fake know another business customer, with its
// own API key, user and billing number: a tenant's carrier account.
func (s *Server) AddCustomer(c Customer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.customers[c.Username] = c
}

// Errors of authentication, which Refuse words per API.
var (
	errNoKey    = errors.New("dhlparceldefake: no valid dhl-api-key")
	errNoUser   = errors.New("dhlparceldefake: no valid HTTP Basic user")
	errNoBearer = errors.New("dhlparceldefake: no valid bearer token")
)

// authenticate names the customer of a call as each API does: the
// Shipping and Returns APIs by the API key and the portal user (HTTP
// Basic), tracking by the API key, the Pickup API by a token of the token
// endpoint, which authenticates in its body.
func (s *Server) authenticate(r *http.Request) (fakekit.Client, error) {
	path := r.URL.Path
	if path == tokenPath {
		return fakekit.Client{ID: "token-endpoint"}, nil
	}
	if strings.HasPrefix(path, pickupPath) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if c, valid := s.tokens.Valid(tok); ok && valid {
			return c, nil
		}
		return fakekit.Client{}, errNoBearer
	}
	key := r.Header.Get("dhl-api-key")
	s.mu.Lock()
	defer s.mu.Unlock()
	var keyOwner *Customer
	for _, c := range s.customers {
		if key != "" && c.APIKey == key {
			c := c
			keyOwner = &c
			break
		}
	}
	if keyOwner == nil {
		return fakekit.Client{}, errNoKey
	}
	if strings.HasPrefix(path, "/track/") {
		return fakekit.Client{ID: keyOwner.Username, Account: keyOwner.BillingNumber}, nil
	}
	user, pass, ok := r.BasicAuth()
	c, known := s.customers[user]
	if !ok || !known || c.Password != pass {
		return fakekit.Client{}, errNoUser
	}
	return fakekit.Client{ID: c.Username, Secret: c.Password, Account: c.BillingNumber}, nil
}

// customerOf is the customer whose call r is.
func (s *Server) customerOf(r *http.Request) Customer {
	c, _ := fakekit.ClientOf(r.Context())
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.customers[c.ID]
}

// refuse answers what the kit refuses as each DHL API does.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	status, title, detail := http.StatusBadRequest, "Bad Request", "The request could not be read."
	if errors.Is(err, fakekit.ErrUnauthorized) {
		status, title, detail = http.StatusUnauthorized, "Unauthorized", "Unauthorized for given resource."
		if errors.Is(err, errNoKey) {
			detail = "Invalid API key."
		}
	}
	switch {
	case strings.HasPrefix(r.URL.Path, pickupPath):
		// The Pickup API documents its 400 and 401 without a body.
		w.WriteHeader(status)
	case strings.HasPrefix(r.URL.Path, "/track/"):
		writeJSON(w, status, problemJSON, map[string]any{"title": title, "status": status, "detail": detail})
	case strings.HasPrefix(r.URL.Path, returnsPath):
		writeJSON(w, status, problemJSON, map[string]any{"title": title, "status": status, "detail": detail})
	default:
		writeJSON(w, status, problemJSON, requestStatus(status, title, detail))
	}
}

// Content types of DHL's answers.
const (
	problemJSON = "application/problem+json"
	plainJSON   = "application/json"
	pickupJSON  = "application/json; charset=utf-8"
)

// writeJSON answers status with v as JSON of the content type ct.
func writeJSON(w http.ResponseWriter, status int, ct string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// requestStatus is the Shipping API's RequestStatus: its status twice
// (statusCode is deprecated, still sent), a detail of at most 80
// characters.
func requestStatus(status int, title, detail string) map[string]any {
	if len(detail) > 80 {
		detail = detail[:80]
	}
	m := map[string]any{"title": title, "statusCode": status, "status": status}
	if detail != "" {
		m["detail"] = detail
	}
	return m
}

// jsonBody refuses a call whose body is not JSON, as DHL's gateway does.
func jsonBody(h fakekit.Handler) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			writeJSON(w, http.StatusBadRequest, problemJSON, requestStatus(http.StatusBadRequest, "Bad Request", "Content-Type must be application/json"))
			return
		}
		if !json.Valid(body) {
			writeJSON(w, http.StatusBadRequest, problemJSON, requestStatus(http.StatusBadRequest, "Bad Request", "The body is not JSON."))
			return
		}
		h(w, r, body)
	}
}

// SetLabelDocument makes every later order's label b64 be doc, as is (a
// label DHL should not send); nil goes back to drawing the label.
func (s *Server) SetLabelDocument(doc []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc == nil {
		s.labelDoc = nil
		return
	}
	b64 := base64.StdEncoding.EncodeToString(doc)
	s.labelDoc = &b64
}

// next is the fake's next serial number.
func (s *Server) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// berlinDate is t's date in Germany (CET or CEST), as DHL dates days.
func berlinDate(t time.Time) string {
	offset := time.Hour
	if isSummer(t) {
		offset = 2 * time.Hour
	}
	return t.UTC().Add(offset).Format(time.DateOnly)
}

func lastSunday(year int, month time.Month) time.Time {
	d := time.Date(year, month+1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
	return d.AddDate(0, 0, -int(d.Weekday()))
}
