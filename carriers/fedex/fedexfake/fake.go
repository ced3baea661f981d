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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
	"github.com/shipd-dev/shipd/carriers/fedex/spec"
)

// The credentials the fake accepts.
const (
	ClientID      = "fedexfake-api-key"
	ClientSecret  = "fedexfake-secret-key"
	AccountNumber = "510087020"
)

// Operations: the keys of the counters, recorded bodies and failure switches.
const (
	OpToken  = fakekit.OpToken
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

// Failure is a canned answer that replaces the next call of an operation
// (Fail); ErrorBody builds FedEx's documented error body.
type Failure = fakekit.Fault

// Server is the fake FedEx API. The kit it embeds records the calls
// (Requests, LastRequest), injects failures (Fail, FailNext), holds
// answers, issues the tokens (SetTokenTTL, SetExpiresInAsString,
// ExpireTokens) and checks exchanges (SetChecker).
type Server struct {
	*fakekit.Server
	sales   fakekit.Sales[*shipment]
	pickups fakekit.Pickups[*fakePickup]

	mu            sync.Mutex
	pickupSeq     int
	nextTracking  int64
	labelDocument []byte // when set, every package's label (labeldoc.go)
}

// New starts a fake FedEx API that stops when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{nextTracking: 794600000001}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: maxRequestBytes, Refuse: refuse}, s.routes)
	// Every request it gets and every answer it gives (but injected
	// faults) is held to the carrier's published documents.
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored documents do not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

// routes are the FedEx APIs the fake serves; any other path is FedEx's 404.
func (s *Server) routes(rt *fakekit.Router) {
	rt.Token(PathToken, fakekit.TokenEndpoint{
		Client: fakekit.Client{ID: ClientID, Secret: ClientSecret, Account: AccountNumber}, TTL: DefaultTokenTTL, Prefix: "fake-",
		Credentials: fakekit.FormBody,
		Answer: func(t fakekit.Issued) any {
			return map[string]any{"access_token": t.Token, "token_type": "bearer", "expires_in": t.ExpiresIn, "scope": "CXS"}
		},
	})
	rt.Operation(PathRate, OpRate, api(http.MethodPost, s.rate))
	rt.Operation(PathShip, OpShip, api(http.MethodPost, s.ship))
	rt.Operation(PathCancel, OpCancel, api(http.MethodPut, s.cancel))
	rt.Operation(PathTrack, OpTrack, api(http.MethodPost, s.track))
	rt.Operation(PathTrackReference, OpTrackReference, api(http.MethodPost, s.trackReference))
	rt.Operation(PathTrackAssociated, OpTrackAssociated, api(http.MethodPost, s.trackAssociated))
	rt.Operation(PathEndOfDay, OpEndOfDay, api(http.MethodPut, s.endOfDay))
	rt.Operation(PathPickup, OpPickup, api(http.MethodPost, s.createPickup))
	rt.Operation(PathCancelPickup, OpCancelPickup, api(http.MethodPut, s.cancelPickup))
	rt.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "NOT.FOUND.ERROR",
			"The resource you requested is no longer available. Please modify your request and try again.")
	}))
}

// IsReturn reports whether the label of trackingNumber was sold as a
// return (RETURN_SHIPMENT).
func (s *Server) IsReturn(trackingNumber string) bool { return s.sales.IsReturn(trackingNumber) }

// LastRequestBody is the body of the last call of an operation, nil
// before the first.
func (s *Server) LastRequestBody(op string) []byte { return s.LastRequest(op) }

// LastRequestHeader is the header of the last call of an operation.
func (s *Server) LastRequestHeader(op string) http.Header { return s.LastHeader(op) }

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

func writeError(w http.ResponseWriter, status int, code, message string) {
	fakekit.WriteJSON(w, status, errorBody{TransactionID: newTransactionID(), Errors: []apiError{{Code: code, Message: message}}})
}

// invalid answers FedEx's 400 with one error per problem.
func invalid(w http.ResponseWriter, problems []string) {
	eb := errorBody{TransactionID: newTransactionID()}
	for _, p := range problems {
		eb.Errors = append(eb.Errors, apiError{Code: codeInvalidInput, Message: p})
	}
	fakekit.WriteJSON(w, http.StatusBadRequest, eb)
}

// newTransactionID is a transactionId as FedEx writes them: a UUID.
func newTransactionID() string {
	h := fakekit.NewID("")
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// refuse answers what the kit refuses as FedEx does.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	var missing *fakekit.MissingError
	switch {
	case errors.Is(err, fakekit.ErrUnauthorized):
		writeError(w, http.StatusUnauthorized, codeNotAuthorized, "Access token expired. Please modify your request and try again.")
	case errors.Is(err, fakekit.ErrBadClient):
		writeError(w, http.StatusUnauthorized, codeNotAuthorized,
			"The given client credentials were not valid. Please modify your request and try again.")
	case errors.Is(err, fakekit.ErrMethod):
		writeError(w, http.StatusMethodNotAllowed, "METHOD.NOT.ALLOWED", "The token endpoint takes POST.")
	case errors.Is(err, fakekit.ErrUnreadable):
		invalid(w, []string{"the request body could not be read"})
	case errors.Is(err, fakekit.ErrContentType):
		invalid(w, []string{fmt.Sprintf("content-type must be application/x-www-form-urlencoded, got %q", r.Header.Get("Content-Type"))})
	case errors.Is(err, fakekit.ErrMalformed):
		invalid(w, []string{"the form does not parse"})
	case errors.As(err, &missing):
		var p problems
		for _, f := range missing.Fields {
			p.add("%s is required", f)
		}
		invalid(w, p)
	default: // fakekit.ErrGrant
		invalid(w, []string{"grant_type must be client_credentials"})
	}
}

// api adds to an operation what every FedEx v1 call needs besides a valid
// token: its method and a JSON content type.
func api(method string, h fakekit.Handler) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method != method {
			writeError(w, http.StatusMethodNotAllowed, "METHOD.NOT.ALLOWED", r.URL.Path+" takes "+method)
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
