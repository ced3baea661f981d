// Package uspsfake is an offline USPS: an httptest server that answers the
// USPS v3 REST APIs shipd uses (OAuth 2.0 tokens, Payments 3.0 payment
// authorization, Shipping Options 3.0, Domestic and International Labels
// 3.0 including cancel/refund, Tracking 3.0, Addresses 3.0, SCAN Forms 3.0
// and Carrier Pickup 3.0: schedule, read for its ETag, cancel with If-Match)
// from the
// request and response schemas of USPS's OpenAPI documents.
//
// It checks what a client sends (method, path, bearer token, payment
// authorization token, idempotency key, content type, required fields,
// units, enumerations) and answers USPS's documented 400 error body when
// something is missing or wrong, so a test against it proves the requests
// are right, not only that the answers are read. It records the last request
// body of each operation for golden-file comparisons, counts requests, and
// can be told to fail the next calls of an operation.
//
// Behaviour beyond the documents, chosen to be useful in tests:
//   - Labels are priced from the weight; each Track call moves a label one
//     scan further: label created (GX), accepted (03), out for delivery
//     (OF), delivered (01).
//   - A label can be cancelled (CANCELED) until ManifestLabel marks its
//     Shipping Services File as sent; then a refund request is filed
//     (DISPUTED), and a second one on the same day is refused as USPS
//     documents. A label USPS has scanned (tracked past GX) is refused.
//   - Addresses: a street without a house number is not found (404); one
//     containing "MULTIPLE" matches several addresses (404); one containing
//     "TOWER" without a secondary address is confirmed without its unit
//     (DPV D, correction 32); a secondary address containing "999" is not
//     confirmed (DPV S); house number 0 is not a delivery point (DPV N).
//
// The server is safe for concurrent use.
package uspsfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials the fake accepts.
const (
	ClientID      = "shipd-fake-client-id"
	ClientSecret  = "shipd-fake-client-secret-0c1f9a"
	CRID          = "56982563"
	MID           = "902345678"
	AccountNumber = "1000123456"
	AccountType   = "EPS"
)

// Operations, for Requests, LastRequest and FailNext.
const (
	OpToken              = "token"
	OpPayment            = "payment"
	OpRates              = "rates"
	OpLabel              = "label"
	OpInternationalLabel = "international-label"
	OpReturnLabel        = "return-label"
	OpVoid               = "void" // domestic and international cancels
	OpTrack              = "track"
	OpAddress            = "address"
)

// DefaultTokenTTL is how long issued tokens last unless WithTokenTTL says
// otherwise; USPS documents eight hours (expires_in 28799 in its examples).
const DefaultTokenTTL = 8*time.Hour - time.Second

// paymentTokenTTL is the documented life of a payment authorization token.
const paymentTokenTTL = 8 * time.Hour

// Failure is a scripted answer for the next call of an operation.
type Failure struct {
	Status int
	Body   string
	// ContentType defaults to application/json.
	ContentType string
	// Header is added to the answer (Retry-After, say).
	Header http.Header
	// Truncate declares a longer body than it sends and drops the
	// connection, so the client reads a cut-off answer.
	Truncate bool
}

// Server is the fake USPS.
type Server struct {
	srv             *httptest.Server
	now             func() time.Time
	tokenTTL        time.Duration
	stringExpiresIn bool

	mu            sync.Mutex
	tokens        map[string]time.Time // access token -> expiry
	paymentTokens map[string]time.Time
	requests      map[string]int
	last          map[string][]byte
	failures      map[string][]Failure
	labels        map[string]*label      // by tracking number
	byKey         map[string]string      // idempotency key -> tracking number
	pickups       map[string]*fakePickup // by confirmation number
	serial        int
	disputes      int
	scanForms     int
	formHold      chan struct{} // while not nil, SCAN form answers wait for it to close
}

// Option configures a Server.
type Option func(*Server)

// WithClock sets the fake's clock (token expiry, mailing date checks, scan
// times); default time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithTokenTTL sets how long access tokens last.
func WithTokenTTL(d time.Duration) Option { return func(s *Server) { s.tokenTTL = d } }

// WithStringExpiresIn makes the token endpoint send expires_in as a string
// ("28799"), as USPS's own README example does.
func WithStringExpiresIn() Option { return func(s *Server) { s.stringExpiresIn = true } }

// New starts a fake USPS that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake USPS; the caller closes it.
func NewServer(opts ...Option) *Server {
	s := &Server{
		now: time.Now, tokenTTL: DefaultTokenTTL,
		tokens: map[string]time.Time{}, paymentTokens: map[string]time.Time{},
		requests: map[string]int{}, last: map[string][]byte{}, failures: map[string][]Failure{},
		labels: map[string]*label{}, byKey: map[string]string{}, pickups: map[string]*fakePickup{},
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth2/v3/token", s.handle(OpToken, false, s.token))
	mux.HandleFunc("POST /payments/v3/payment-authorization", s.handle(OpPayment, true, s.payment))
	mux.HandleFunc("POST /shipments/v3/options/search", s.handle(OpRates, true, s.options))
	mux.HandleFunc("POST /labels/v3/label", s.handle(OpLabel, true, s.domesticLabel))
	mux.HandleFunc("POST /labels/v3/return-label", s.handle(OpReturnLabel, true, s.returnLabel))
	mux.HandleFunc("POST /international-labels/v3/international-label", s.handle(OpInternationalLabel, true, s.internationalLabel))
	mux.HandleFunc("DELETE /labels/v3/label/{trackingNumber}", s.handle(OpVoid, true, s.cancel("/labels/v3")))
	mux.HandleFunc("DELETE /international-labels/v3/international-label/{trackingNumber}", s.handle(OpVoid, true, s.cancel("/international-labels/v3")))
	mux.HandleFunc("POST /tracking/v3r2/tracking", s.handle(OpTrack, true, s.track))
	mux.HandleFunc("GET /addresses/v3/address", s.handle(OpAddress, true, s.address))
	mux.HandleFunc("POST /scan-forms/v3/scan-form", s.handle(OpSCANForm, true, s.scanForm))
	mux.HandleFunc("POST /pickup/v3/carrier-pickup", s.handle(OpPickup, true, s.schedulePickup))
	mux.HandleFunc("GET /pickup/v3/carrier-pickup/{confirmationNumber}", s.handle(OpGetPickup, true, s.getPickup))
	mux.HandleFunc("DELETE /pickup/v3/carrier-pickup/{confirmationNumber}", s.handle(OpCancelPickup, true, s.cancelPickup))
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the base URL to give the adapter (Config.BaseURL).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() {
	s.ReleaseSCANForms() // a held answer must not keep Close waiting
	s.srv.Close()
}

// TokenRequests is the number of calls to the token endpoint.
func (s *Server) TokenRequests() int { return s.Requests(OpToken) }

// Requests is the number of calls to an operation, whatever their answer.
func (s *Server) Requests(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[op]
}

// LastRequest is the body of the last call to an operation (for the
// address lookup, its query string).
func (s *Server) LastRequest(op string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.last[op]...)
}

// ExpireTokens invalidates every access token and payment authorization
// token issued so far, as if USPS had revoked them.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
	clear(s.paymentTokens)
}

// FailNext makes the next call of op answer status with body. For 429 and
// 503 a Retry-After of 7 seconds is sent. Calls queue up: FailNext twice
// fails the next two calls.
func (s *Server) FailNext(op string, status int, body string) {
	f := Failure{Status: status, Body: body}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		f.Header = http.Header{"Retry-After": {"7"}}
	}
	s.FailNextWith(op, f)
}

// FailNextWith queues a scripted answer for the next call of op.
func (s *Server) FailNextWith(op string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[op] = append(s.failures[op], f)
}

// handle wraps an operation: count it, record its body, play a scripted
// failure, check the bearer token.
func (s *Server) handle(op string, authenticated bool, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(r)
		if err != nil {
			writeError(w, http.StatusBadRequest, apiVersionFor(r.URL.Path), "Bad Request", "", "the request body could not be read", "")
			return
		}
		s.mu.Lock()
		s.requests[op]++
		if r.Method == http.MethodGet {
			s.last[op] = []byte(r.URL.RawQuery)
		} else {
			s.last[op] = body
		}
		var fail *Failure
		if q := s.failures[op]; len(q) > 0 {
			fail = &q[0]
			s.failures[op] = q[1:]
		}
		s.mu.Unlock()
		if fail != nil {
			writeFailure(w, *fail)
			return
		}
		if authenticated && !s.validBearer(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://api.usps.com"`)
			writeError(w, http.StatusUnauthorized, apiVersionFor(r.URL.Path), "Unauthorized", "",
				"The access token is missing, invalid or has expired.", "Authorization")
			return
		}
		h(w, r, body)
	}
}

func readBody(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20+1))
	if err != nil {
		return nil, err
	}
	if len(b) > 4<<20 {
		return nil, errors.New("body too large")
	}
	return b, nil
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
	if f.Truncate {
		w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)+512))
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		// Drop the connection with the body short of its declared length.
		if hj, ok := w.(http.Hijacker); ok {
			if rw, _, err := hj.Hijack(); err == nil {
				_ = rw.Close()
			}
		}
		return
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
}

func (s *Server) validBearer(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[token]
	return ok && s.now().Before(exp)
}

func (s *Server) validPaymentToken(r *http.Request) bool {
	token := r.Header.Get("X-Payment-Authorization-Token")
	if token == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.paymentTokens[token]
	return ok && s.now().Before(exp)
}

func newSecret(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// token is POST /oauth2/v3/token: client credentials in a form or JSON body.
func (s *Server) token(w http.ResponseWriter, r *http.Request, body []byte) {
	var grant, id, secret string
	ct := mediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		form, err := parseForm(body)
		if err != nil {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The form body does not parse.")
			return
		}
		grant, id, secret = form.Get("grant_type"), form.Get("client_id"), form.Get("client_secret")
	case "application/json":
		var req struct {
			GrantType    string `json:"grant_type"`
			ClientID     string `json:"client_id"`
			ClientSecret string `json:"client_secret"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The JSON body does not parse.")
			return
		}
		grant, id, secret = req.GrantType, req.ClientID, req.ClientSecret
	default:
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded or application/json.")
		return
	}
	switch {
	case grant == "":
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required.")
		return
	case grant != "client_credentials":
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "Only client_credentials is supported here.")
		return
	case id == "" || secret == "":
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "client_id and client_secret are required.")
		return
	case id != ClientID || secret != ClientSecret:
		w.Header().Set("WWW-Authenticate", `Basic realm="https://api.usps.com"`)
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed.")
		return
	}
	token := newSecret("fake-access-")
	s.mu.Lock()
	now := s.now()
	s.tokens[token] = now.Add(s.tokenTTL)
	s.mu.Unlock()
	secs := int64(s.tokenTTL / time.Second)
	var expiresIn any = secs
	if s.stringExpiresIn {
		expiresIn = strconv.FormatInt(secs, 10)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": token, "token_type": "Bearer", "issued_at": now.UnixMilli(), "expires_in": expiresIn,
		"status": "approved", "scope": "addresses payments tracking labels international-labels shipments scan-forms",
		"issuer": "api.usps.com", "client_id": ClientID, "application_name": "shipd fake",
	})
}

// paymentRole is a Payments 3.0 role.
type paymentRole struct {
	RoleName      string `json:"roleName"`
	CRID          string `json:"CRID"`
	MID           string `json:"MID"`
	ManifestMID   string `json:"manifestMID"`
	AccountType   string `json:"accountType"`
	AccountNumber string `json:"accountNumber"`
	PermitZIP     string `json:"permitZIP"`
}

// payment is POST /payments/v3/payment-authorization. PAYER needs the CRID
// and the payment account, LABEL_OWNER the CRID, MID and manifest MID.
func (s *Server) payment(w http.ResponseWriter, r *http.Request, body []byte) {
	const api = "/payments/v3"
	if !isJSON(r) {
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "Content-Type must be application/json", "Content-Type")
		return
	}
	var req struct {
		Roles []paymentRole `json:"roles"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "The request body is not valid JSON: "+err.Error(), "")
		return
	}
	var payer, owner *paymentRole
	for i := range req.Roles {
		switch req.Roles[i].RoleName {
		case "PAYER":
			payer = &req.Roles[i]
		case "LABEL_OWNER":
			owner = &req.Roles[i]
		case "RATE_HOLDER", "SHIPPER", "MAIL_OWNER", "PLATFORM", "RETURN_LABEL_PAYER", "RETURN_LABEL_RATE_HOLDER", "RETURN_LABEL_OWNER":
		default:
			writeError(w, http.StatusBadRequest, api, "Bad Request", "", fmt.Sprintf("roleName %q is not a role", req.Roles[i].RoleName), "roles.roleName")
			return
		}
	}
	switch {
	case payer == nil || owner == nil:
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "The PAYER and LABEL_OWNER roles are required", "roles")
	case payer.CRID != CRID || owner.CRID != CRID:
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "The CRID is not authorized for this application", "roles.CRID")
	case payer.AccountType != AccountType || payer.AccountNumber != AccountNumber:
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "The payment account was not found for the CRID", "roles.accountNumber")
	case owner.MID != MID || owner.ManifestMID != MID:
		writeError(w, http.StatusBadRequest, api, "Bad Request", "", "The LABEL_OWNER needs the MID and manifestMID of the CRID", "roles.MID")
	default:
		token := newSecret("fake-payment-")
		s.mu.Lock()
		s.paymentTokens[token] = s.now().Add(paymentTokenTTL)
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"paymentAuthorizationToken": token, "roles": req.Roles})
	}
}

// ErrorBody is USPS's documented error representation.
func ErrorBody(apiVersion string, status int, message, code, detail, parameter string) string {
	sub := map[string]any{"status": strconv.Itoa(status), "code": code, "title": message, "detail": detail}
	if parameter != "" {
		sub["source"] = map[string]any{"parameter": parameter}
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": apiVersion,
		"error":      map[string]any{"code": strconv.Itoa(status), "message": message, "errors": []any{sub}},
	})
	return string(b)
}

// Documented error bodies of the Labels API (examples of DELETE
// /label/{trackingNumber}), for FailNext.
var (
	BodyLabelNotFound      = ErrorBody("/labels/v3", 400, "Bad Request", "00000XX", "Order not found", "trackingNumber")
	BodyRefundNotSubmitted = ErrorBody("/labels/v3", 400, "Bad Request", "00000XX", "A refund request for this order cannot be submitted", "trackingNumber")
	BodyRefundSameDay      = ErrorBody("/labels/v3", 400, "Bad Request", "00000XX", "A refund request for this order has already been submitted today", "trackingNumber")
)

func writeError(w http.ResponseWriter, status int, api, message, code, detail, parameter string) {
	if code == "" {
		code = fmt.Sprintf("%03d000", status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(ErrorBody(api, status, message, code, detail, parameter)))
}

func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func apiVersionFor(path string) string {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) >= 2 {
		return "/" + parts[0] + "/" + parts[1]
	}
	return path
}
