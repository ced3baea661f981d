// Package fedexfake is an in-process FedEx REST API for offline tests: the
// Authorization, Rate, Ship (create and cancel), Track and Pickup (create
// and cancel) endpoints, written from FedEx's OpenAPI documents
// (authorization/v1, rate/v1, ship/v1, track/v1, pickup/v1 on
// developer.fedex.com).
//
// It is strict where FedEx is: it serves the token endpoint as documented
// (form POST, client credentials in the body), refuses API calls without a
// currently valid bearer token with FedEx's 401 body, checks each call's
// method, path, headers and body (required fields, enumerations, units;
// fields outside the documented schema are refused so that a misspelt name
// fails loudly) and answers FedEx's 400 error body when something is wrong.
// Successful answers follow the documented response schemas: rates that
// depend on the weight, PDF labels, cancellations, and tracking that moves
// on with every Track call.
//
// A Server is safe for concurrent use.
package fedexfake

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// The credentials the fake accepts.
const (
	ClientID      = "fedexfake-api-key"
	ClientSecret  = "fedexfake-secret-key"
	AccountNumber = "510087020"
)

// Operations: the keys of the counters, recorded bodies and failure switches.
const (
	OpToken  = "token"
	OpRate   = "rate"
	OpShip   = "ship"
	OpCancel = "cancel"
	OpTrack  = "track"
)

// Documented endpoints.
const (
	PathToken  = "/oauth/token"
	PathRate   = "/rate/v1/rates/quotes"
	PathShip   = "/ship/v1/shipments"
	PathCancel = "/ship/v1/shipments/cancel"
	PathTrack  = "/track/v1/trackingnumbers"
)

// DefaultTokenTTL is how long issued tokens last unless SetTokenTTL says
// otherwise; FedEx's standard is one hour.
const DefaultTokenTTL = time.Hour

// maxRequestBytes bounds what the fake reads of a request.
const maxRequestBytes = 1 << 20

// Failure is a canned answer that replaces the next call of an operation.
type Failure struct {
	Status int
	// Body is sent as is; ErrorBody builds FedEx's documented error body.
	Body string
	// RetryAfter is the Retry-After header, "" for none.
	RetryAfter string
	// ContentType defaults to application/json.
	ContentType string
}

// Server is the fake FedEx API.
type Server struct {
	srv *httptest.Server

	mu              sync.Mutex
	tokenTTL        time.Duration
	expiresInString bool
	tokens          map[string]time.Time // access token → expiry
	tokenRequests   int
	requests        map[string]int
	lastBody        map[string][]byte
	lastHeader      map[string]http.Header
	failures        map[string][]Failure
	shipments       map[string]*shipment   // by tracking number
	pickups         map[string]*fakePickup // by confirmation code
	pickupSeq       int
	nextTracking    int64
	hold            chan struct{} // while not nil, ship answers wait for it to close
	closeHold       chan struct{} // while not nil, end of day close answers wait for it to close
}

// New starts a fake FedEx API that stops when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{
		tokenTTL:     DefaultTokenTTL,
		tokens:       map[string]time.Time{},
		requests:     map[string]int{},
		lastBody:     map[string][]byte{},
		lastHeader:   map[string]http.Header{},
		failures:     map[string][]Failure{},
		shipments:    map[string]*shipment{},
		pickups:      map[string]*fakePickup{},
		nextTracking: 794600000001,
	}
	mux := http.NewServeMux()
	mux.HandleFunc(PathToken, s.handleToken)
	mux.HandleFunc(PathRate, s.api(OpRate, http.MethodPost, s.rate))
	mux.HandleFunc(PathShip, s.api(OpShip, http.MethodPost, s.ship))
	mux.HandleFunc(PathCancel, s.api(OpCancel, http.MethodPut, s.cancel))
	mux.HandleFunc(PathTrack, s.api(OpTrack, http.MethodPost, s.track))
	mux.HandleFunc(PathTrackReference, s.api(OpTrackReference, http.MethodPost, s.trackReference))
	mux.HandleFunc(PathTrackAssociated, s.api(OpTrackAssociated, http.MethodPost, s.trackAssociated))
	mux.HandleFunc(PathEndOfDay, s.api(OpEndOfDay, http.MethodPut, s.endOfDay))
	mux.HandleFunc(PathPickup, s.api(OpPickup, http.MethodPost, s.createPickup))
	mux.HandleFunc(PathCancelPickup, s.api(OpCancelPickup, http.MethodPut, s.cancelPickup))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NOT.FOUND.ERROR",
			"The resource you requested is no longer available. Please modify your request and try again.")
	})
	s.srv = httptest.NewServer(mux)
	tb.Cleanup(s.Close)
	return s
}

// URL is the base URL to configure the adapter with.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server (New already arranges it at the end of the test).
func (s *Server) Close() {
	s.ReleaseShips() // a held answer must not keep Close waiting
	s.ReleaseCloses()
	s.srv.Close()
}

// SetTokenTTL sets the lifetime of tokens issued from now on.
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	s.tokenTTL = d
	s.mu.Unlock()
}

// SetExpiresInAsString makes the token endpoint send expires_in as a JSON
// string ("3599"), as some FedEx environments do.
func (s *Server) SetExpiresInAsString(on bool) {
	s.mu.Lock()
	s.expiresInString = on
	s.mu.Unlock()
}

// ExpireTokens makes every token issued so far invalid at once.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	clear(s.tokens)
	s.mu.Unlock()
}

// TokenRequests counts calls of the token endpoint.
func (s *Server) TokenRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenRequests
}

// Requests counts the calls of an operation (OpRate, ...), refused ones included.
func (s *Server) Requests(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op == OpToken {
		return s.tokenRequests
	}
	return s.requests[op]
}

// IsReturn reports whether the label of trackingNumber was sold as a
// return (RETURN_SHIPMENT).
func (s *Server) IsReturn(trackingNumber string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sh, ok := s.shipments[trackingNumber]
	return ok && sh.isReturn
}

// LastRequestBody is the body of the last authenticated call of an
// operation, nil before the first.
func (s *Server) LastRequestBody(op string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.lastBody[op]...)
}

// LastRequestHeader is the header of the last authenticated call of an operation.
func (s *Server) LastRequestHeader(op string) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastHeader[op].Clone()
}

// Fail makes the next call of op answer f instead (calls queue in order).
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
		f.RetryAfter = "7"
	}
	s.Fail(op, f)
}

// ErrorBody is FedEx's documented error body with one error.
func ErrorBody(code, message string) string {
	b, _ := json.Marshal(errorBody{TransactionID: newTransactionID(), Errors: []apiError{{Code: code, Message: message}}})
	return string(b)
}

// CancelRefusedBody is a Cancel Shipment answer that refuses: HTTP 200 with
// output.cancelledShipment false, the message and an alert with the code.
func CancelRefusedBody(code, message string) string {
	b, _ := json.Marshal(map[string]any{
		"transactionId": newTransactionID(),
		"output": map[string]any{
			"cancelledShipment": false, "cancelledHistory": false, "message": message,
			"alerts": []any{map[string]any{"code": code, "alertType": "WARNING", "message": message}},
		},
	})
	return string(b)
}

// Canned broken bodies for FailNext.
const (
	// BodyTruncated is a rate answer cut off in the middle.
	BodyTruncated = `{"transactionId":"f00","output":{"rateReplyDetails":[{"serviceType":"FEDEX_GROUND","ratedShipmentDetails":[{"rateType":"ACCOUNT","totalNetCharge":12.`
	// BodyHTML is the error page of a proxy in front of the API.
	BodyHTML = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
	// BodyMalformed is not JSON at all.
	BodyMalformed = `{"output": nope}`
)

// Documented error bodies.
const (
	codeNotAuthorized = "NOT.AUTHORIZED.ERROR"
	codeInvalidInput  = "INVALID.INPUT.EXCEPTION"
	codeAccount       = "ACCOUNTNUMBER.REGISTRATION.REQUIRED"
)

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type errorBody struct {
	TransactionID         string     `json:"transactionId"`
	CustomerTransactionID string     `json:"customerTransactionId,omitempty"`
	Errors                []apiError `json:"errors"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{TransactionID: newTransactionID(), Errors: []apiError{{Code: code, Message: message}}})
}

// invalid answers FedEx's 400 with one error per problem.
func invalid(w http.ResponseWriter, problems []string) {
	eb := errorBody{TransactionID: newTransactionID()}
	for _, p := range problems {
		eb.Errors = append(eb.Errors, apiError{Code: codeInvalidInput, Message: p})
	}
	writeJSON(w, http.StatusBadRequest, eb)
}

func newTransactionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// takeFailure pops the next canned failure of op.
func (s *Server) takeFailure(op string) (Failure, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.failures[op]
	if len(q) == 0 {
		return Failure{}, false
	}
	s.failures[op] = q[1:]
	return q[0], true
}

func writeFailure(w http.ResponseWriter, f Failure) {
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

// handleToken is POST /oauth/token: a form with grant_type
// client_credentials, client_id and client_secret.
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.tokenRequests++
	s.mu.Unlock()
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "METHOD.NOT.ALLOWED", "The token endpoint takes POST.")
		return
	}
	if f, ok := s.takeFailure(OpToken); ok {
		writeFailure(w, f)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		invalid(w, []string{fmt.Sprintf("content-type must be application/x-www-form-urlencoded, got %q", ct)})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	if err := r.ParseForm(); err != nil {
		invalid(w, []string{"the form does not parse"})
		return
	}
	var problems []string
	for _, f := range []string{"grant_type", "client_id", "client_secret"} {
		if r.PostForm.Get(f) == "" {
			problems = append(problems, f+" is required")
		}
	}
	if len(problems) > 0 {
		invalid(w, problems)
		return
	}
	if r.PostForm.Get("grant_type") != "client_credentials" {
		invalid(w, []string{"grant_type must be client_credentials"})
		return
	}
	if r.PostForm.Get("client_id") != ClientID || r.PostForm.Get("client_secret") != ClientSecret {
		writeError(w, http.StatusUnauthorized, codeNotAuthorized,
			"The given client credentials were not valid. Please modify your request and try again.")
		return
	}
	s.mu.Lock()
	tok := "fake-" + newTransactionID()
	s.tokens[tok] = time.Now().Add(s.tokenTTL)
	secs := int64(s.tokenTTL / time.Second)
	var expiresIn any = secs
	if s.expiresInString {
		expiresIn = fmt.Sprint(secs)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": tok, "token_type": "bearer", "expires_in": expiresIn, "scope": "CXS",
	})
}

// api wraps an API handler with what every FedEx v1 call needs: the method,
// a currently valid bearer token, a JSON content type and a body.
func (s *Server) api(op, method string, h func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[op]++
		s.mu.Unlock()
		if r.Method != method {
			writeError(w, http.StatusMethodNotAllowed, "METHOD.NOT.ALLOWED", op+" takes "+method)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		exp, known := s.tokens[tok]
		s.mu.Unlock()
		if !ok || !known || !time.Now().Before(exp) {
			writeError(w, http.StatusUnauthorized, codeNotAuthorized,
				"Access token expired. Please modify your request and try again.")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
		if err != nil {
			invalid(w, []string{"the request body could not be read"})
			return
		}
		s.mu.Lock()
		s.lastBody[op] = body
		s.lastHeader[op] = r.Header.Clone()
		s.mu.Unlock()
		if f, ok := s.takeFailure(op); ok {
			writeFailure(w, f)
			return
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			invalid(w, []string{fmt.Sprintf("content-type must be application/json, got %q", ct)})
			return
		}
		h(w, r, body)
	}
}

// decodeStrict decodes a request body, refusing fields outside the
// documented schema subset, names in the wrong case (encoding/json matches
// names case-insensitively, FedEx does not: "shipDatestamp" is the Ship
// API's field, "shipDateStamp" the Rate API's) and anything after the JSON
// value.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON body")
	}
	var generic any
	if err := json.Unmarshal(body, &generic); err != nil {
		return err
	}
	var wrong []string
	exactKeys(generic, reflect.TypeOf(v), "", &wrong)
	if len(wrong) > 0 {
		return fmt.Errorf("unknown fields (names are case-sensitive): %s", strings.Join(wrong, ", "))
	}
	return nil
}

// exactKeys walks a decoded JSON value alongside the Go type it was
// decoded into and reports object keys that match no json tag exactly.
func exactKeys(v any, t reflect.Type, path string, wrong *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch val := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				*wrong = append(*wrong, strings.TrimPrefix(path+"."+k, "."))
				continue
			}
			exactKeys(val[k], ft, path+"."+k, wrong)
		}
	case []any:
		if t.Kind() == reflect.Slice {
			for i, e := range val {
				exactKeys(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), wrong)
			}
		}
	}
}
