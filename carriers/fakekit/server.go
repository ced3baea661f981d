// Package fakekit is what every fake carrier API needs besides the
// carrier's own routes: a recorder of the calls of each operation, holding
// an operation's answers until a test releases them, injected faults, the
// books of the labels sold and pickups scheduled, an OAuth 2.0
// client-credentials token endpoint, and a hook that checks every request
// and answer against the carrier's published documents.
//
// A fake builds its routes on a Router (Start) and embeds the *Server it
// gets, so that its tests call Requests, Fail, Hold, ExpireTokens and the
// rest on the fake itself. How a carrier words what the kit refuses stays
// the carrier's: Config.Refuse writes it. WriteJSON and TextPDF write the
// fakes' answers and paperwork; Send is how their own tests call them.
package fakekit

import (
	"bytes"
	"context"
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

// OpToken is the token endpoint's operation name (Requests, Fail, Callers).
const OpToken = "token"

// Refusals the kit hands to Config.Refuse, wrapped with what was wrong.
var (
	// ErrUnreadable: the request body could not be read (too large, cut off).
	ErrUnreadable = errors.New("fakekit: the request body cannot be read")
	// ErrUnauthorized: an API call without a bearer token the fake issued
	// and that has not expired.
	ErrUnauthorized = errors.New("fakekit: no valid bearer token")
	// ErrMethod: the token endpoint takes POST only.
	ErrMethod = errors.New("fakekit: method not allowed")
)

// Config is what a fake tells the kit about its carrier's API besides its
// routes.
type Config struct {
	// MaxRequestBytes bounds what the fake reads of a request body; a
	// larger body is refused with ErrUnreadable.
	MaxRequestBytes int64
	// FaultsBeforeAuth makes a queued fault answer a call before its
	// bearer token is looked at, as a gateway in front of the API does
	// (USPS's); otherwise only an authenticated call takes one.
	FaultsBeforeAuth bool
	// Refuse writes the carrier's answer to a call the kit refuses: err
	// wraps ErrUnreadable, ErrUnauthorized, ErrMethod, one of the token
	// endpoint's refusals (ErrNoCredentials, ...) or what
	// TokenEndpoint.Admit returned.
	Refuse func(w http.ResponseWriter, r *http.Request, err error)
	// Authenticate, when set, says whose an operation's call is instead of
	// a bearer token of the kit's token endpoint: for a carrier whose API
	// takes its credentials with every call (DHL's API key and HTTP Basic
	// user). Its error is refused as ErrUnauthorized, which it wraps.
	Authenticate func(r *http.Request) (Client, error)
}

// Handler answers one call of an operation; the kit has read and recorded
// its body, and put the caller's Client in the request's context
// (ClientOf).
type Handler func(w http.ResponseWriter, r *http.Request, body []byte)

// Server is a running fake carrier API. It is safe for concurrent use.
type Server struct {
	cfg     Config
	tb      testing.TB
	srv     *httptest.Server
	tokens  *Tokens
	closing chan struct{} // closed by Close: held and hanging answers end
	once    sync.Once

	mu              sync.Mutex
	now             func() time.Time
	tokenTTL        time.Duration
	expiresInString bool
	clients         map[string]Client
	calls           map[string]*opCalls
	faults          map[string][]Fault
	clientFaults    map[string]Fault
	holds           map[string]chan struct{}
	held            map[string]int
	checker         Checker
	checkFailures   []error
}

// Router registers a fake's routes while Start builds its server.
type Router struct {
	k   *Server
	mux *http.ServeMux
}

// Operation serves pattern (an http.ServeMux pattern) as the operation op:
// a call is recorded, needs a valid bearer token, takes the faults queued
// for op or its client, and its answer waits while op is held.
func (rt *Router) Operation(pattern, op string, h Handler) {
	rt.mux.HandleFunc(pattern, rt.k.operation(op, h))
}

// Token serves pattern as the fake's OAuth token endpoint e (operation
// OpToken), whose tokens the operations take.
func (rt *Router) Token(pattern string, e TokenEndpoint) {
	rt.k.clients[e.Client.ID] = e.Client
	rt.k.tokenTTL = e.TTL
	rt.k.tokens = NewTokens(e.Prefix, rt.k.Now)
	rt.mux.HandleFunc(pattern, rt.k.tokenEndpoint(e))
}

// Handle serves pattern outside any operation (a carrier's own 404, say);
// its requests and answers are checked all the same.
func (rt *Router) Handle(pattern string, h http.Handler) {
	rt.mux.Handle(pattern, h)
}

// Start serves the routes that routes registers. With a tb, failed checks
// are reported to it and the server closes when the test ends; without
// one (nil), failed checks are kept for CheckFailures and the caller
// closes the server.
func Start(tb testing.TB, cfg Config, routes func(*Router)) *Server {
	if tb != nil {
		tb.Helper()
	}
	k := &Server{
		cfg:          cfg,
		tb:           tb,
		closing:      make(chan struct{}),
		now:          time.Now,
		clients:      map[string]Client{},
		calls:        map[string]*opCalls{},
		faults:       map[string][]Fault{},
		clientFaults: map[string]Fault{},
		holds:        map[string]chan struct{}{},
		held:         map[string]int{},
	}
	k.tokens = NewTokens("", k.Now)
	rt := &Router{k: k, mux: http.NewServeMux()}
	routes(rt)
	k.srv = httptest.NewServer(k.serve(rt.mux))
	if tb != nil {
		tb.Cleanup(k.Close)
	}
	return k
}

// URL is the base URL to configure a client with (no trailing slash).
func (k *Server) URL() string { return k.srv.URL }

// Client is an HTTP client for the server.
func (k *Server) Client() *http.Client { return k.srv.Client() }

// Close stops the server. Held and hanging answers end first, so that they
// do not keep it waiting.
func (k *Server) Close() {
	k.once.Do(func() { close(k.closing) })
	k.srv.Close()
}

// Now is the fake's clock.
func (k *Server) Now() time.Time {
	k.mu.Lock()
	now := k.now
	k.mu.Unlock()
	return now()
}

// SetNow sets the fake's clock (token expiry, and whatever dates the
// carrier's routes write).
func (k *Server) SetNow(now func() time.Time) {
	k.mu.Lock()
	k.now = now
	k.mu.Unlock()
}

// WriteJSON answers status with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// exchange is one call as the kit sees it: its body, read once, and
// whether a fault answered it.
type exchange struct {
	raw     http.ResponseWriter // the connection's writer, which faults use
	body    []byte
	readErr error
	faulted bool
}

type exchangeKey struct{}

func exchangeOf(r *http.Request) *exchange {
	return r.Context().Value(exchangeKey{}).(*exchange)
}

// serve is the outside of every route: it reads the body once, checks the
// request, keeps the answer until the route is done so that it can be
// checked (and held), then sends it.
func (k *Server) serve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := &exchange{raw: w}
		x.body, x.readErr = readBody(r, k.cfg.MaxRequestBytes)
		r.Body = io.NopCloser(bytes.NewReader(x.body))
		r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x))
		k.mu.Lock()
		checker := k.checker
		k.mu.Unlock()
		wellFormed := true
		if checker != nil && x.readErr == nil {
			err := checker.CheckRequest(r, x.body)
			wellFormed = err == nil
			k.report(r, "request", err)
		}
		answer := &answer{header: http.Header{}}
		next.ServeHTTP(answer, r)
		if x.faulted {
			return
		}
		// The answer to a request that breaks the documents is the fake's
		// refusal of it: no document says what it must be.
		if checker != nil && wellFormed {
			k.report(r, "answer", checker.CheckResponse(r, answer.statusCode(), answer.header, answer.body.Bytes()))
		}
		answer.send(w)
	})
}

func readBody(r *http.Request, limit int64) ([]byte, error) {
	defer r.Body.Close()
	if limit <= 0 {
		return io.ReadAll(r.Body)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// answer is a route's answer, kept until the route is done.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(b)
}

func (a *answer) statusCode() int {
	if a.status == 0 {
		return http.StatusOK
	}
	return a.status
}

func (a *answer) send(w http.ResponseWriter) {
	for k, vs := range a.header {
		w.Header()[k] = vs
	}
	if a.header.Get("Content-Length") == "" && a.body.Len() > 0 {
		w.Header().Set("Content-Length", strconv.Itoa(a.body.Len()))
	}
	w.WriteHeader(a.statusCode())
	_, _ = w.Write(a.body.Bytes())
}

// begin refuses a call whose body could not be read, and records the
// others as calls of op.
func (k *Server) begin(w http.ResponseWriter, r *http.Request, op string) (*exchange, bool) {
	x := exchangeOf(r)
	if x.readErr != nil {
		k.cfg.Refuse(w, r, fmt.Errorf("%w: %w", ErrUnreadable, x.readErr))
		return nil, false
	}
	k.record(op, r, x.body)
	return x, true
}

// operation is the kit's part of a call of op, around the carrier's h.
func (k *Server) operation(op string, h Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		x, ok := k.begin(w, r, op)
		if !ok {
			return
		}
		if k.cfg.FaultsBeforeAuth && k.answerFault(r, op, "", true) {
			return
		}
		client, err := k.caller(r)
		if err != nil {
			k.cfg.Refuse(w, r, err)
			return
		}
		k.addCaller(op, client.ID)
		if k.answerFault(r, op, client.ID, !k.cfg.FaultsBeforeAuth) {
			return
		}
		h(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, client)), x.body)
		k.waitHold(r.Context(), op)
	}
}

// caller is the client whose call r is: Config.Authenticate's, or
// the one a valid bearer token of the token endpoint was issued to.
func (k *Server) caller(r *http.Request) (Client, error) {
	if k.cfg.Authenticate != nil {
		c, err := k.cfg.Authenticate(r)
		if err != nil {
			return Client{}, fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		return c, nil
	}
	token, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	client, valid := k.tokens.Valid(token)
	if !bearer || !valid {
		return Client{}, ErrUnauthorized
	}
	return client, nil
}

// Send sends req with the default client and reads the whole answer,
// failing tb if it cannot: how a fake's own tests talk to it.
func Send(tb testing.TB, req *http.Request) (*http.Response, []byte) {
	tb.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, body
}
