// Package glsfake is a fake GLS written from GLS's published documents
// (carriers/gls/spec): the Authentication API v2's token endpoint (HTTP
// Basic), ShipIT's allowed services, parcel creation with labels (PDF,
// ZPL, PNG), cancel by TrackID, parcel lookup by reference, reprint,
// end-of-day report and sporadic collection, and Track And Trace V1 by
// parcel number. It checks what every request must carry, answering
// ShipIT's errors as GLS does (the "error" and "message" headers, an empty
// body), and every exchange is held to the documents (SetChecker), so
// tests against it prove that a client sends what GLS expects. It is safe
// for concurrent use.
package glsfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/carriers/gls/spec"
)

// Credentials the fake accepts.
const (
	ClientID     = "glsfake-client-id"
	ClientSecret = "glsfake-client-secret"
	ContactID    = "276a45fkqM"
)

// Operations, for counters, recorded requests, holds and failures.
const (
	OpToken    = fakekit.OpToken
	OpAllowed  = "allowedservices"
	OpShip     = "shipments"
	OpCancel   = "cancel"
	OpFind     = "parcels"
	OpReprint  = "reprintparcel"
	OpEndOfDay = "endofday"
	OpPickup   = "sporadiccollection"
	OpTrack    = "track"
)

// DefaultTokenTTL is the tokens' lifetime: "Tokens are valid for up to
// four hours since issueing."
const DefaultTokenTTL = 4 * time.Hour

// Paths below the fake's URL, as the documents' servers put them.
const (
	shipit = "/shipit-farm/v1/backend/rs"
	track  = "/track-and-trace-v1/tracking/simple/trackids/"
)

// mediaType is ShipIT's media type.
const mediaType = "application/glsVersion1+json"

// Server is a running fake GLS. The kit it embeds records calls
// (Requests, LastRequest, LastHeader, Callers), injects failures (Fail,
// FailNext, FailClient), holds answers (Hold, Release), issues the tokens
// (AddClient, SetTokenTTL, ExpireTokens, SetNow) and checks exchanges.
type Server struct {
	*fakekit.Server
	sales fakekit.Sales[*sale]

	mu          sync.Mutex
	seq         int
	byTrackID   map[string]string // TrackID → parcel number
	collections []Collection
}

// sale is one parcel the fake created; the shipment's other parcels are
// sales of their own, sharing Pieces.
type sale struct {
	fakekit.Sale
	trackID, product string
	kg               float64
	consignee        map[string]any
	format           string
	trackCalls       int
	scanned          bool
}

// New starts a fake GLS that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

// NewServer starts a fake GLS outside a test; Close stops it.
func NewServer() *Server { return start(nil) }

func start(tb testing.TB) *Server {
	s := &Server{byTrackID: map[string]string{}}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: 1 << 20, Refuse: refuse}, s.routes)
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored documents do not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

func (s *Server) routes(rt *fakekit.Router) {
	rt.Token("POST /oauth2/v2/token", fakekit.TokenEndpoint{
		Client: fakekit.Client{ID: ClientID, Secret: ClientSecret, Account: ContactID}, TTL: DefaultTokenTTL, Prefix: "glsfake-",
		Credentials: fakekit.BasicAuth,
		// TokenResponse: token_type, access_token, expires_in (a number).
		Answer: func(t fakekit.Issued) any {
			return map[string]any{"token_type": "Bearer", "access_token": t.Token, "expires_in": t.ExpiresIn}
		},
	})
	rt.Operation("POST "+shipit+"/shipments/allowedservices", OpAllowed, shipitCall(s.allowed))
	rt.Operation("POST "+shipit+"/shipments", OpShip, shipitCall(s.ship))
	rt.Operation("POST "+shipit+"/shipments/cancel/{trackID}", OpCancel, s.cancel)
	rt.Operation("POST "+shipit+"/shipments/reprintparcel", OpReprint, shipitCall(s.reprint))
	rt.Operation("POST "+shipit+"/shipments/endofday", OpEndOfDay, s.endOfDay)
	rt.Operation("POST "+shipit+"/tracking/parcels", OpFind, shipitCall(s.find))
	rt.Operation("POST "+shipit+"/sporadiccollection", OpPickup, shipitCall(s.collection))
	rt.Operation("GET "+track+"{unitnos}", OpTrack, s.track)
}

// refuse answers what the kit refuses as GLS's gateway does: the
// Authentication API's 400 FaultResponse for the token endpoint ("Bad
// request. Fields missing or invalid", its only refusal), a 401 for a call
// without a valid token.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	if strings.HasPrefix(r.URL.Path, "/oauth2/") {
		msg := "Invalid client identifier"
		if !errors.Is(err, fakekit.ErrBadClient) && !errors.Is(err, fakekit.ErrNoCredentials) {
			msg = "Invalid request: grant_type"
		}
		fakekit.WriteJSON(w, http.StatusBadRequest, map[string]any{"errors": []any{map[string]string{"message": msg, "type": "400"}}})
		return
	}
	if errors.Is(err, fakekit.ErrUnauthorized) {
		fakekit.WriteJSON(w, http.StatusUnauthorized, map[string]any{"fault": map[string]any{
			"faultstring": "The Token has expired: policy(Verify-JWT)", "detail": map[string]string{"errorcode": "steps.jwt.TokenExpired"}}})
		return
	}
	ShipITError(w, http.StatusBadRequest, "ERROR_REQUEST", err.Error())
}

// ShipITError answers a ShipIT error as GLS does: the code and message in
// the "error" and "message" headers, an empty body.
func ShipITError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("error", code)
	w.Header().Set("message", message)
	w.WriteHeader(status)
}

// Failure is an answer the fake gives instead of the real one (Fail).
type Failure = fakekit.Fault

// Fault is a ShipIT error for Fail: status, the "error" and "message"
// headers, an empty body.
func Fault(status int, code, message string) fakekit.Fault {
	return fakekit.Fault{Status: status, Header: http.Header{"Error": {code}, "Message": {message}}}
}

// shipitCall adds what every ShipIT call with a body needs: ShipIT's media
// type, and a JSON object.
func shipitCall(h func(w http.ResponseWriter, r *http.Request, body map[string]any)) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); !strings.EqualFold(mt, mediaType) {
			ShipITError(w, http.StatusUnsupportedMediaType, "ERROR_MEDIATYPE", "Content-Type must be "+mediaType)
			return
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil || m == nil {
			ShipITError(w, http.StatusBadRequest, "ERROR_REQUEST", "the request is not a JSON object")
			return
		}
		h(w, r, m)
	}
}

// writeShipIT answers v in ShipIT's media type.
func writeShipIT(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", mediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// contactOf is the contact id of the client whose token made r.
func contactOf(r *http.Request) string {
	if c, ok := fakekit.ClientOf(r.Context()); ok {
		return c.Account
	}
	return ContactID
}

// str is m's string field name, "" when absent or not a string.
func str(m map[string]any, name string) string {
	v, _ := m[name].(string)
	return strings.TrimSpace(v)
}

// obj is m's object field name, nil when absent or not an object.
func obj(m map[string]any, name string) map[string]any {
	v, _ := m[name].(map[string]any)
	return v
}
