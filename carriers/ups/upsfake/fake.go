// Package upsfake is a fake UPS written from the UPS OpenAPI documents
// (github.com/UPS-API/api-documentation): the OAuth client-credentials
// token endpoint, Rating, Shipping (ship and void), Tracking, Street
// Level Address Validation and Pickup (creation, cancel by PRN). It checks methods, paths, headers and the
// documented required fields and units of every request, answering UPS's
// documented 400 error body when something is wrong, so tests against it
// prove that a client sends what UPS expects. It is safe for concurrent use.
package upsfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/carriers/ups/spec"
)

// Credentials the fake accepts.
const (
	ClientID      = "upsfake-client-id"
	ClientSecret  = "upsfake-client-secret"
	AccountNumber = "A1B2C3"
)

// Operations, for counters, recorded requests and failures.
const (
	OpToken  = fakekit.OpToken
	OpRate   = "rate"
	OpShip   = "ship"
	OpVoid   = "void"
	OpTrack  = "track"
	OpVerify = "verify"
)

// DefaultTokenTTL is the lifetime of issued tokens, as UPS's "expires_in":
// "14399" (four hours).
const DefaultTokenTTL = 4 * time.Hour

// Failure is an answer the fake gives instead of the real one (Fail,
// FailClient).
type Failure = fakekit.Fault

// Server is a running fake UPS. The kit it embeds records the calls
// (Requests, LastRequest, LastHeader, Callers), injects failures (Fail,
// FailNext, FailClient), holds answers, issues the tokens (AddClient,
// SetTokenTTL, ExpireTokens, SetNow) and checks exchanges (SetChecker).
type Server struct {
	*fakekit.Server
	sales   fakekit.Sales[*shipment]
	pickups fakekit.Pickups[*fakekit.Pickup]

	mu  sync.Mutex
	seq int // numbers the packages and the pickups
	// labelImage, when set, is the GraphicImage of every ship answer
	// instead of the rendered label.
	labelImage []byte
}

// accountOf is the shipper number of the client whose token made r.
func accountOf(r *http.Request) string {
	if c, ok := fakekit.ClientOf(r.Context()); ok {
		return c.Account
	}
	return AccountNumber
}

// New starts a fake UPS that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

// NewServer starts a fake UPS outside a test; Close stops it.
func NewServer() *Server { return start(nil) }

func start(tb testing.TB) *Server {
	s := &Server{}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: maxRequest, Refuse: refuse}, s.routes)
	// Every request it gets and every answer it gives (but injected
	// faults) is held to the carrier's published documents.
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored documents do not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

// routes are the UPS APIs the fake serves.
func (s *Server) routes(rt *fakekit.Router) {
	rt.Token("POST /security/v1/oauth/token", fakekit.TokenEndpoint{
		Client: fakekit.Client{ID: ClientID, Secret: ClientSecret, Account: AccountNumber}, TTL: DefaultTokenTTL, Prefix: "upsfake-",
		Credentials: fakekit.BasicAuth, Admit: admitMerchant, Answer: tokenAnswer,
	})
	rt.Operation("POST /api/rating/{version}/{requestoption}", OpRate, api(s.rate))
	rt.Operation("POST /api/shipments/{version}/ship", OpShip, api(s.ship))
	rt.Operation("DELETE /api/shipments/{version}/void/cancel/{id}", OpVoid, api(s.void))
	rt.Operation("GET /api/track/v1/details/{inquiryNumber}", OpTrack, api(s.track))
	rt.Operation("POST /api/addressvalidation/{version}/{requestoption}", OpVerify, api(s.verify))
	rt.Operation("POST /api/labels/{version}/recovery", OpRecover, api(s.recover))
	rt.Operation("POST /api/pickupcreation/{version}/pickup", OpPickup, api(s.pickupCreation))
	rt.Operation("DELETE /api/shipments/{version}/pickup/{CancelBy}", OpCancelPickup, api(s.pickupCancel))
	rt.Operation("GET /api/shipments/{version}/pickup/{pickuptype}", OpPickupPending, api(s.pickupPending)) // pickups_pending.go
}

// IsReturn reports whether the label of trackingNumber was sold as a
// return (Shipment.ReturnService).
func (s *Server) IsReturn(trackingNumber string) bool { return s.sales.IsReturn(trackingNumber) }

// SetLabelImage makes every later ship answer carry img, as is, as its
// label's GraphicImage (ImageFormat GIF, whatever img is), to test how a
// client takes an image UPS should not send; nil goes back to rendering the
// label.
func (s *Server) SetLabelImage(img []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.labelImage = img
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

func writeErrors(w http.ResponseWriter, status int, errs ...apiError) {
	fakekit.WriteJSON(w, status, errorEnvelope{Response: errorList{Errors: errs}})
}

// refused answers 400 with UPS's error for err, a refusal of the kit's
// books (fakekit.ErrVoided, say), as listed in errs; false when err is not
// one of them.
func refused(w http.ResponseWriter, err error, errs map[error]apiError) bool {
	for target, e := range errs {
		if errors.Is(err, target) {
			writeErrors(w, http.StatusBadRequest, e)
			return true
		}
	}
	return false
}

// errBlockedMerchant refuses a token whose x-merchant-id is not the
// client's shipper number.
var errBlockedMerchant = errors.New("upsfake: blocked merchant")

// admitMerchant checks the optional x-merchant-id header of a token
// request: the shipper number of the client.
func admitMerchant(r *http.Request, c fakekit.Client) error {
	if m := r.Header.Get("x-merchant-id"); m != "" && m != c.Account {
		return errBlockedMerchant
	}
	return nil
}

// tokenAnswer is UPS's answer to POST /security/v1/oauth/token (HTTP Basic
// with the client credentials, a form body with grant_type
// client_credentials): every value a string.
func tokenAnswer(t fakekit.Issued) any {
	return map[string]string{
		"token_type":    "Bearer",
		"issued_at":     fmt.Sprint(t.At.UnixMilli()),
		"client_id":     t.Client.ID,
		"access_token":  t.Token,
		"scope":         "",
		"expires_in":    fmt.Sprint(int64(t.TTL / time.Second)),
		"refresh_count": "0",
		"status":        "approved",
	}
}

// refuse answers what the kit refuses as UPS does.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, fakekit.ErrUnreadable):
		writeErrors(w, http.StatusBadRequest, apiError{codeNotWellFormed, "The request is not well formed."})
	case errors.Is(err, fakekit.ErrUnauthorized):
		writeErrors(w, http.StatusUnauthorized, apiError{"250002", "Invalid Authentication Information."})
	case errors.Is(err, fakekit.ErrNoCredentials):
		writeErrors(w, http.StatusUnauthorized, apiError{"10400", "Invalid/Missing Authorization Header"})
	case errors.Is(err, fakekit.ErrBadClient):
		writeErrors(w, http.StatusUnauthorized, apiError{"10401", "ClientId is Invalid"})
	case errors.Is(err, fakekit.ErrContentType):
		writeErrors(w, http.StatusBadRequest, apiError{"10400", "Invalid Content-Type " + r.Header.Get("Content-Type")})
	case errors.Is(err, errBlockedMerchant):
		writeErrors(w, http.StatusForbidden, apiError{"10403", "Blocked Merchant"})
	default: // the grant_type missing, not client_credentials, or the form unreadable
		writeErrors(w, http.StatusBadRequest, apiError{"10400", "Invalid/Missing grant_type"})
	}
}

// api adds to an operation what every UPS API call needs besides a valid
// token: a transId of at most 32 characters when sent, and a JSON body.
func api(h fakekit.Handler) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		// transId: "An identifier unique to the request. Length 32";
		// required by the Track API (track), optional elsewhere.
		if id := r.Header.Get("transId"); len(id) > 32 {
			writeErrors(w, http.StatusBadRequest, apiError{"20008", "The field, transId, contains invalid data, longer than 32 characters."})
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodDelete {
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				writeErrors(w, http.StatusBadRequest, apiError{"10001", "Content-Type must be application/json, got " + ct})
				return
			}
		}
		h(w, r, body)
	}
}

// maxRequest bounds what the fake reads of a request.
const maxRequest = 5 << 20
