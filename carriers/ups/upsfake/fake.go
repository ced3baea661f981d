// Package upsfake is a fake UPS written from the UPS OpenAPI documents
// (github.com/UPS-API/api-documentation): the OAuth client-credentials
// token endpoint, Rating, Shipping (ship and void), Tracking, Street
// Level Address Validation and Pickup (creation, cancel by PRN). It checks methods, paths, headers and the
// documented required fields and units of every request, answering UPS's
// documented 400 error body when something is wrong, so tests against it
// prove that a client sends what UPS expects. It is safe for concurrent use.
package upsfake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials the fake accepts.
const (
	ClientID      = "upsfake-client-id"
	ClientSecret  = "upsfake-client-secret"
	AccountNumber = "A1B2C3"
)

// Operations, for counters, recorded requests and failures.
const (
	OpToken  = "token"
	OpRate   = "rate"
	OpShip   = "ship"
	OpVoid   = "void"
	OpTrack  = "track"
	OpVerify = "verify"
)

// DefaultTokenTTL is the lifetime of issued tokens, as UPS's "expires_in":
// "14399" (four hours).
const DefaultTokenTTL = 4 * time.Hour

// Failure is an answer the fake gives instead of the real one.
type Failure struct {
	Status int
	// Body is sent as is; ContentType defaults to application/json.
	Body        string
	ContentType string
	// Header is added to the answer (e.g. Retry-After).
	Header http.Header
}

// Server is a running fake UPS.
type Server struct {
	srv *httptest.Server

	mu         sync.Mutex
	now        func() time.Time
	tokenTTL   time.Duration
	tokens     map[string]time.Time // access token -> expiry
	tokenCalls int
	requests   map[string]int
	bodies     map[string][]byte
	headers    map[string]http.Header
	failures   map[string][]Failure
	shipments  map[string]*shipment   // by tracking number (= shipment id)
	pickups    map[string]*fakePickup // by PRN
	seq        int
	// labelImage, when set, is the GraphicImage of every ship answer
	// instead of the rendered label.
	labelImage []byte
	hold       chan struct{} // while not nil, ship answers wait for it to close
	pickupHold chan struct{} // while not nil, pickup creation answers wait for it to close
	// clients are the credentials accepted besides ClientID's (AddClient);
	// tokenClient names the client id each token was issued to, and
	// callers the client ids that called each operation, in order.
	clients     map[string]fakeClient
	tokenClient map[string]string
	callers     map[string][]string
}

// fakeClient is one set of accepted credentials and its shipper number.
type fakeClient struct {
	secret, account string
	// down, when set, answers every token request of the client.
	down *Failure
}

// FailClient answers every token request of the client id with f, whatever
// else happens at once: a carrier down for that customer only, so that
// concurrent tests do not take each other's failures.
func (s *Server) FailClient(id string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cl := s.clients[id]
	cl.down = &f
	s.clients[id] = cl
}

// accountKey carries the shipper number of the token's client to the handlers.
type accountKey struct{}

// accountOf is the shipper number of the client whose token made r.
func accountOf(r *http.Request) string {
	if a, ok := r.Context().Value(accountKey{}).(string); ok {
		return a
	}
	return AccountNumber
}

// AddClient makes the fake accept another client's credentials, whose
// shipper number is account: a second UPS customer, with tokens of its own.
func (s *Server) AddClient(id, secret, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[id] = fakeClient{secret: secret, account: account}
}

// Callers are the client ids whose tokens called op, in order.
func (s *Server) Callers(op string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.callers[op]...)
}

// New starts a fake UPS that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := NewServer()
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake UPS outside a test; Close stops it.
func NewServer() *Server {
	s := &Server{
		now:         time.Now,
		tokenTTL:    DefaultTokenTTL,
		tokens:      map[string]time.Time{},
		requests:    map[string]int{},
		bodies:      map[string][]byte{},
		headers:     map[string]http.Header{},
		failures:    map[string][]Failure{},
		shipments:   map[string]*shipment{},
		clients:     map[string]fakeClient{ClientID: {secret: ClientSecret, account: AccountNumber}},
		tokenClient: map[string]string{},
		callers:     map[string][]string{},
		pickups:     map[string]*fakePickup{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /security/v1/oauth/token", s.token)
	mux.HandleFunc("POST /api/rating/{version}/{requestoption}", s.api(OpRate, s.rate))
	mux.HandleFunc("POST /api/shipments/{version}/ship", s.api(OpShip, s.ship))
	mux.HandleFunc("DELETE /api/shipments/{version}/void/cancel/{id}", s.api(OpVoid, s.void))
	mux.HandleFunc("GET /api/track/v1/details/{inquiryNumber}", s.api(OpTrack, s.track))
	mux.HandleFunc("POST /api/addressvalidation/{version}/{requestoption}", s.api(OpVerify, s.verify))
	mux.HandleFunc("POST /api/labels/{version}/recovery", s.api(OpRecover, s.recover))
	mux.HandleFunc("POST /api/pickupcreation/{version}/pickup", s.api(OpPickup, s.pickupCreation))
	mux.HandleFunc("DELETE /api/shipments/{version}/pickup/{CancelBy}", s.api(OpCancelPickup, s.pickupCancel))
	mux.HandleFunc("GET /api/shipments/{version}/pickup/{pickuptype}", s.api(OpPickupPending, s.pickupPending))
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base URL to configure a client with (no trailing slash).
func (s *Server) URL() string { return s.srv.URL }

// Client is an HTTP client for the fake.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Close stops the server.
func (s *Server) Close() {
	s.ReleaseShips() // a held answer must not keep Close waiting
	s.ReleasePickups()
	s.srv.Close()
}

// SetNow sets the fake's clock (token expiry, scan and delivery dates).
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	s.now = now
	s.mu.Unlock()
}

// SetTokenTTL sets the lifetime of tokens issued from now on.
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	s.tokenTTL = d
	s.mu.Unlock()
}

// ExpireTokens makes every token issued so far invalid at once, as if they
// had all expired: the next API call with one answers 401.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	clear(s.tokens)
	s.mu.Unlock()
}

// TokenRequests counts the calls of the token endpoint.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenCalls
}

// Requests counts the calls of an operation, including refused ones.
func (s *Server) Requests(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[op]
}

// IsReturn reports whether the label of trackingNumber was sold as a
// return (Shipment.ReturnService).
func (s *Server) IsReturn(trackingNumber string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, ok := s.shipments[trackingNumber]
	return ok && sh.isReturn
}

// LastRequest is the body of the operation's latest request (nil if none).
func (s *Server) LastRequest(op string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.bodies[op]...)
}

// LastHeader is the header of the operation's latest request.
func (s *Server) LastHeader(op string) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[op].Clone()
}

// SetLabelImage makes every later ship answer carry img, as is, as its
// label's GraphicImage (ImageFormat GIF, whatever img is), to test how a
// client takes an image UPS should not send; nil goes back to rendering the
// label.
func (s *Server) SetLabelImage(img []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.labelImage = img
}

// Fail makes the next call of op (after authentication, for API calls)
// answer f; queued failures are used in order, one per call.
func (s *Server) Fail(op string, f Failure) {
	s.mu.Lock()
	s.failures[op] = append(s.failures[op], f)
	s.mu.Unlock()
}

// FailNext makes the next call of op answer status with body. A 429 or 503
// gets "Retry-After: 7".
func (s *Server) FailNext(op string, status int, body string) {
	f := Failure{Status: status, Body: body}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		f.Header = http.Header{"Retry-After": {"7"}}
	}
	s.Fail(op, f)
}

// ErrorBody is UPS's documented error body:
// {"response":{"errors":[{"code":...,"message":...}]}}.
func ErrorBody(code, message string) string {
	b, _ := json.Marshal(errorEnvelope{Response: errorList{Errors: []apiError{{Code: code, Message: message}}}})
	return string(b)
}

// Error bodies in UPS's documented format, for FailNext.
const (
	// BodyVoidExpired is the void refusal "Time for voiding has expired."
	// (error 190101 of the Shipping API's void errors).
	BodyVoidExpired = `{"response":{"errors":[{"code":"190101","message":"Time for voiding has expired."}]}}`
	// BodyRateLimited is a 429 answer.
	BodyRateLimited = `{"response":{"errors":[{"code":"10429","message":"Too Many Requests"}]}}`
	// BodyServiceUnavailable is a 503 answer.
	BodyServiceUnavailable = `{"response":{"errors":[{"code":"10503","message":"Service Unavailable"}]}}`
	// BodyInvalidPostalCode is a 400 address refusal.
	BodyInvalidPostalCode = `{"response":{"errors":[{"code":"111285","message":"The postal code 99999 is invalid for AK United States."}]}}`
)

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type errorList struct {
	Errors []apiError `json:"errors"`
}

type errorEnvelope struct {
	Response errorList `json:"response"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErrors(w http.ResponseWriter, status int, errs ...apiError) {
	writeJSON(w, status, errorEnvelope{Response: errorList{Errors: errs}})
}

// nextFailure pops the operation's next queued failure; call with mu held.
func (s *Server) nextFailure(op string) (Failure, bool) {
	q := s.failures[op]
	if len(q) == 0 {
		return Failure{}, false
	}
	s.failures[op] = q[1:]
	return q[0], true
}

func writeFailure(w http.ResponseWriter, f Failure) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
}

// token is POST /security/v1/oauth/token: HTTP Basic with the client
// credentials, an application/x-www-form-urlencoded body with
// grant_type=client_credentials, and an optional x-merchant-id header.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.tokenCalls++
	ttl, now := s.tokenTTL, s.now()
	id, secret, ok := r.BasicAuth()
	cl, known := s.clients[id]
	s.callers[OpToken] = append(s.callers[OpToken], id)
	var (
		f       Failure
		failing bool
	)
	if known && cl.down != nil {
		f, failing = *cl.down, true
	} else {
		f, failing = s.nextFailure(OpToken)
	}
	s.mu.Unlock()
	if failing {
		writeFailure(w, f)
		return
	}
	if !ok {
		writeErrors(w, http.StatusUnauthorized, apiError{"10400", "Invalid/Missing Authorization Header"})
		return
	}
	if !known || secret != cl.secret {
		writeErrors(w, http.StatusUnauthorized, apiError{"10401", "ClientId is Invalid"})
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		writeErrors(w, http.StatusBadRequest, apiError{"10400", "Invalid Content-Type " + ct})
		return
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "client_credentials" {
		writeErrors(w, http.StatusBadRequest, apiError{"10400", "Invalid/Missing grant_type"})
		return
	}
	if m := r.Header.Get("x-merchant-id"); m != "" && m != cl.account {
		writeErrors(w, http.StatusForbidden, apiError{"10403", "Blocked Merchant"})
		return
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	tok := "upsfake-" + hex.EncodeToString(b[:])
	s.mu.Lock()
	for t, exp := range s.tokens {
		if !now.Before(exp) {
			delete(s.tokens, t) // keeps the map from growing in long runs
		}
	}
	s.tokens[tok] = now.Add(ttl)
	s.tokenClient[tok] = id
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{
		"token_type":    "Bearer",
		"issued_at":     fmt.Sprint(now.UnixMilli()),
		"client_id":     id,
		"access_token":  tok,
		"scope":         "",
		"expires_in":    fmt.Sprint(int64(ttl / time.Second)),
		"refresh_count": "0",
		"status":        "approved",
	})
}

// api wraps an operation's handler: it counts and records the request,
// checks the bearer token and the transaction headers, then applies any
// queued failure.
func (s *Server) api(op string, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := readAll(r)
		if err != nil {
			writeErrors(w, http.StatusBadRequest, apiError{"10001", "The request is not well formed."})
			return
		}
		s.mu.Lock()
		s.requests[op]++
		s.bodies[op] = body
		s.headers[op] = r.Header.Clone()
		tok, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		exp, known := s.tokens[tok]
		valid := hasBearer && known && s.now().Before(exp)
		client := s.tokenClient[tok]
		account := s.clients[client].account
		if valid {
			s.callers[op] = append(s.callers[op], client)
		}
		var f Failure
		failing := false
		if valid {
			f, failing = s.nextFailure(op)
		}
		s.mu.Unlock()
		if !valid {
			writeErrors(w, http.StatusUnauthorized, apiError{"250002", "Invalid Authentication Information."})
			return
		}
		if failing {
			writeFailure(w, f)
			return
		}
		// transId: "An identifier unique to the request. Length 32";
		// required by the Track API, optional elsewhere.
		if id := r.Header.Get("transId"); len(id) > 32 {
			writeErrors(w, http.StatusBadRequest, apiError{"20008", "The field, transId, contains invalid data, longer than 32 characters."})
			return
		}
		if op == OpTrack && (r.Header.Get("transId") == "" || r.Header.Get("transactionSrc") == "") {
			writeErrors(w, http.StatusBadRequest, apiError{"20007", "Missing Required field, transId and transactionSrc headers."})
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodDelete {
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				writeErrors(w, http.StatusBadRequest, apiError{"10001", "Content-Type must be application/json, got " + ct})
				return
			}
		}
		h(w, r.WithContext(context.WithValue(r.Context(), accountKey{}, account)), body)
	}
}

func readAll(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRequest {
		return nil, fmt.Errorf("request larger than %d bytes", maxRequest)
	}
	return b, nil
}

// maxRequest bounds what the fake reads of a request.
const maxRequest = 5 << 20
