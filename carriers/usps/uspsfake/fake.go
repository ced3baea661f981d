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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
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
	OpToken              = fakekit.OpToken
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

// Failure is a scripted answer for the next call of an operation
// (FailNextWith); Truncate cuts its body off.
type Failure = fakekit.Fault

// Server is the fake USPS. The kit it embeds records the calls (Requests,
// LastRequest), injects failures (FailNext; USPS's gateway answers them
// before it looks at the token), issues the tokens and checks exchanges
// (SetChecker).
type Server struct {
	*fakekit.Server
	paymentTokens *fakekit.Tokens
	sales         fakekit.Sales[*label]
	pickups       fakekit.Pickups[*fakePickup]
	disputes      atomic.Int64
	scanForms     atomic.Int64

	mu     sync.Mutex
	byKey  map[string]string // idempotency key -> tracking number
	serial int               // numbers the labels and the pickups
}

// Option configures a Server.
type Option func(*Server)

// WithClock sets the fake's clock (token expiry, mailing date checks, scan
// times); default time.Now.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.SetNow(now) } }

// WithTokenTTL sets how long access tokens last.
func WithTokenTTL(d time.Duration) Option { return func(s *Server) { s.SetTokenTTL(d) } }

// WithStringExpiresIn makes the token endpoint send expires_in as a string
// ("28799"), as USPS's own README example does.
func WithStringExpiresIn() Option { return func(s *Server) { s.SetExpiresInAsString(true) } }

// New starts a fake USPS that is closed when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return start(t, opts)
}

// NewServer starts a fake USPS; the caller closes it.
func NewServer(opts ...Option) *Server { return start(nil, opts) }

func start(tb testing.TB, opts []Option) *Server {
	s := &Server{byKey: map[string]string{}}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: 4 << 20, FaultsBeforeAuth: true, Refuse: refuse}, s.routes)
	s.paymentTokens = fakekit.NewTokens("fake-payment-", s.Now)
	for _, o := range opts {
		o(s)
	}
	return s
}

// routes are the USPS APIs the fake serves.
func (s *Server) routes(rt *fakekit.Router) {
	rt.Token("POST /oauth2/v3/token", fakekit.TokenEndpoint{
		Client: fakekit.Client{ID: ClientID, Secret: ClientSecret, Account: AccountNumber}, TTL: DefaultTokenTTL, Prefix: "fake-access-",
		Credentials: fakekit.FormOrJSONBody, Answer: tokenAnswer,
	})
	rt.Operation("POST /payments/v3/payment-authorization", OpPayment, s.payment)
	rt.Operation("POST /shipments/v3/options/search", OpRates, s.options)
	rt.Operation("POST /labels/v3/label", OpLabel, s.domesticLabel)
	rt.Operation("POST /labels/v3/return-label", OpReturnLabel, s.returnLabel)
	rt.Operation("POST /international-labels/v3/international-label", OpInternationalLabel, s.internationalLabel)
	rt.Operation("DELETE /labels/v3/label/{trackingNumber}", OpVoid, s.cancel("/labels/v3"))
	rt.Operation("DELETE /international-labels/v3/international-label/{trackingNumber}", OpVoid, s.cancel("/international-labels/v3"))
	rt.Operation("POST /tracking/v3r2/tracking", OpTrack, s.track)
	rt.Operation("GET /addresses/v3/address", OpAddress, s.address)
	rt.Operation("POST /scan-forms/v3/scan-form", OpSCANForm, s.scanForm)
	rt.Operation("POST /pickup/v3/carrier-pickup", OpPickup, s.schedulePickup)
	rt.Operation("GET /pickup/v3/carrier-pickup/{confirmationNumber}", OpGetPickup, s.getPickup)
	rt.Operation("DELETE /pickup/v3/carrier-pickup/{confirmationNumber}", OpCancelPickup, s.cancelPickup)
}

// ExpireTokens invalidates every access token and payment authorization
// token issued so far, as if USPS had revoked them.
func (s *Server) ExpireTokens() {
	s.Server.ExpireTokens()
	s.paymentTokens.Clear()
}

// FailNextWith queues a scripted answer for the next call of op; FailNext
// (the kit's) queues a status and a body. Calls queue up: FailNext twice
// fails the next two calls.
func (s *Server) FailNextWith(op string, f Failure) { s.Fail(op, f) }

func (s *Server) validPaymentToken(r *http.Request) bool {
	_, ok := s.paymentTokens.Valid(r.Header.Get("X-Payment-Authorization-Token"))
	return ok
}

// refuse answers what the kit refuses as USPS does: its API error body,
// or, from the token endpoint, an OAuth error.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	var missing *fakekit.MissingError
	switch {
	case errors.Is(err, fakekit.ErrUnreadable):
		writeError(w, http.StatusBadRequest, apiVersionFor(r.URL.Path), "Bad Request", "", "the request body could not be read", "")
	case errors.Is(err, fakekit.ErrUnauthorized):
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://api.usps.com"`)
		writeError(w, http.StatusUnauthorized, apiVersionFor(r.URL.Path), "Unauthorized", "",
			"The access token is missing, invalid or has expired.", "Authorization")
	case errors.Is(err, fakekit.ErrContentType):
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded or application/json.")
	case errors.Is(err, fakekit.ErrMalformed) && isJSON(r):
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The JSON body does not parse.")
	case errors.Is(err, fakekit.ErrMalformed):
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "The form body does not parse.")
	case errors.As(err, &missing) && slices.Contains(missing.Fields, "grant_type"):
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required.")
	case errors.As(err, &missing):
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "client_id and client_secret are required.")
	case errors.Is(err, fakekit.ErrGrant):
		writeOAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "Only client_credentials is supported here.")
	default: // fakekit.ErrBadClient
		w.Header().Set("WWW-Authenticate", `Basic realm="https://api.usps.com"`)
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed.")
	}
}

// tokenAnswer is USPS's answer to POST /oauth2/v3/token (client
// credentials in a form or JSON body).
func tokenAnswer(t fakekit.Issued) any {
	return map[string]any{
		"access_token": t.Token, "token_type": "Bearer", "issued_at": t.At.UnixMilli(), "expires_in": t.ExpiresIn,
		"status": "approved", "scope": "addresses payments tracking labels international-labels shipments scan-forms",
		"issuer": "api.usps.com", "client_id": t.Client.ID, "application_name": "shipd fake",
	}
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
		token, _ := s.paymentTokens.Issue(fakekit.Client{ID: ClientID, Account: AccountNumber}, paymentTokenTTL)
		fakekit.WriteJSON(w, http.StatusOK, map[string]any{"paymentAuthorizationToken": token, "roles": req.Roles})
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
	fakekit.WriteJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func apiVersionFor(path string) string {
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	if len(parts) >= 2 {
		return "/" + parts[0] + "/" + parts[1]
	}
	return path
}
