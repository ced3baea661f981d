// Package dhlexpressfake is an in-process MyDHL API 3.1.1 (DHL Express) for
// offline tests: rates and landed cost, shipments with their labels and
// commercial invoice, tracking of waybills, pieces and references, pickups
// and address validation, written from DHL's document (vendored in
// carriers/dhlexpress/spec).
//
// It is strict where DHL is: every call needs the HTTP Basic credentials
// of a client it knows (401 otherwise) and names the account those
// credentials may use; every request and every answer is held to the
// document (SetChecker), so a field misspelt or out of its schema fails the
// test that sent it; and it refuses, with DHL's problem body, what DHL
// would refuse of a well-formed request: a product not sold on the lane, a
// declaration whose values do not add up, a DDP shipment without DD.
// Labels are PDF pages or ZPL, invoices PDF pages whose text a test can
// read; tracking moves on by one checkpoint with every call.
//
// A Server is safe for concurrent use. Its base URL (BaseURL) is the API
// root, as the adapter is configured: the document's paths sit below
// /mydhlapi.
package dhlexpressfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/dhlexpress/spec"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// The credentials the fake accepts from the start, and the account they
// may use.
const (
	Username      = "dhlfake-user"
	Password      = "dhlfake-password-7c1e"
	AccountNumber = "951234567"
)

// Root is the path of the API root below the fake's address: the servers
// of the document are https://express.api.dhl.com/mydhlapi and …/test.
const Root = "/mydhlapi"

// Operations: the keys of the counters, recorded requests and faults.
const (
	OpRates        = "rates"
	OpLandedCost   = "landed_cost"
	OpShip         = "ship"
	OpTrack        = "track"
	OpTrackOne     = "track_one"
	OpPickup       = "pickup"
	OpCancelPickup = "cancel_pickup"
	OpAddress      = "address"
)

// maxRequestBytes bounds what the fake reads of a request: a shipment with
// an uploaded invoice image is the largest DHL takes.
const maxRequestBytes = 4 << 20

// Server is the fake MyDHL API. The kit it embeds records the calls
// (Requests, LastRequest), injects faults (Fail, FailNext), holds answers
// (Hold, Release) and checks the exchanges against the document.
type Server struct {
	*fakekit.Server
	sales   fakekit.Sales[*sale]
	pickups fakekit.Pickups[*pickup]

	mu           sync.Mutex
	nextWaybill  int64
	nextPiece    int64
	pickupSeq    int
	currencies   map[string]string         // account → billing currency
	clients      map[string]fakekit.Client // by username
	labelPerPage bool                      // a label document per piece
	shipQuery    url.Values                // the last shipment's query
}

// Failure is a canned answer that replaces the next call of an operation
// (Fail); ErrorBody builds DHL's problem body.
type Failure = fakekit.Fault

// LastShipQuery is the query of the last POST /shipments (bypassPLTError).
func (s *Server) LastShipQuery() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shipQuery
}

// New starts a fake MyDHL API that stops when the test ends. With a nil
// tb, failed checks of the document are kept for CheckFailures and the
// caller closes the server.
func New(tb testing.TB) *Server {
	if tb != nil {
		tb.Helper()
	}
	s := &Server{nextWaybill: 1234560001, nextPiece: 1, currencies: map[string]string{},
		clients: map[string]fakekit.Client{Username: {ID: Username, Secret: Password, Account: AccountNumber}}}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: maxRequestBytes, Refuse: refuse, Authenticate: s.authenticate}, s.routes)
	// Every request it gets and every answer it gives (but injected
	// faults) is held to DHL's document.
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored document does not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

// BaseURL is the API root to configure the adapter with.
func (s *Server) BaseURL() string { return s.URL() + Root }

func (s *Server) routes(rt *fakekit.Router) {
	rt.Operation("POST "+Root+"/rates", OpRates, api(s.rates))
	rt.Operation("POST "+Root+"/landed-cost", OpLandedCost, api(s.landedCost))
	rt.Operation("POST "+Root+"/shipments", OpShip, api(s.ship))
	rt.Operation("GET "+Root+"/tracking", OpTrack, api(s.track))
	rt.Operation("GET "+Root+"/shipments/{waybill}/tracking", OpTrackOne, api(s.trackOne))
	rt.Operation("POST "+Root+"/pickups", OpPickup, api(s.schedulePickup))
	rt.Operation("DELETE "+Root+"/pickups/{number}", OpCancelPickup, api(s.cancelPickup))
	rt.Operation("GET "+Root+"/address-validate", OpAddress, api(s.addressValidate))
	rt.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, http.StatusNotFound, "Not Found", "", "The requested resource does not exist")
	}))
}

// AddClient makes the fake accept another DHL customer's credentials, for
// account: a tenant's own contract.
func (s *Server) AddClient(username, password, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[username] = fakekit.Client{ID: username, Secret: password, Account: account}
}

// errCredentials: a call without the HTTP Basic credentials of a client
// the fake knows.
var errCredentials = errors.New("dhlexpressfake: no valid HTTP Basic credentials")

// authenticate names the client of a call by its HTTP Basic credentials:
// MyDHL has no token, every call carries them.
func (s *Server) authenticate(r *http.Request) (fakekit.Client, error) {
	user, pass, ok := r.BasicAuth()
	s.mu.Lock()
	defer s.mu.Unlock()
	c, known := s.clients[user]
	if !ok || !known || c.Secret != pass {
		return fakekit.Client{}, errCredentials
	}
	return c, nil
}

// SetCurrency makes account billed in currency (its rates' BILLC); by
// default an account is billed in its shipper's country's currency.
func (s *Server) SetCurrency(account, currency string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.currencies[account] = currency
}

// SetLabelPerPiece makes every piece's label a document of its own (as
// DHL does with splitDocumentsByPages); by default one document holds
// every piece's label.
func (s *Server) SetLabelPerPiece(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.labelPerPage = on
}

// problem is supermodelIoLogisticsExpressErrorResponse.
type problem struct {
	Instance          string   `json:"instance"`
	Detail            string   `json:"detail"`
	Title             string   `json:"title"`
	Message           string   `json:"message"`
	Status            string   `json:"status"`
	AdditionalDetails []string `json:"additionalDetails,omitempty"`
}

// ErrorBody is DHL's problem body of status with detail (which starts with
// DHL's code, as "8003: Account not allowed…"), for FailNext.
func ErrorBody(status int, detail string) string {
	b, _ := json.Marshal(problem{Instance: "/expressapi", Detail: detail, Title: http.StatusText(status),
		Message: http.StatusText(status), Status: fmt.Sprint(status)})
	return string(b)
}

// Canned broken bodies for FailNext.
const (
	// BodyTruncated is a rates answer cut off in the middle.
	BodyTruncated = `{"products":[{"productCode":"P","productName":"EXPRESS WORLDWIDE","totalPrice":[{"currencyType":"BILLC","priceCurrency":"USD","price":12`
	// BodyHTML is the error page of a gateway in front of the API.
	BodyHTML = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"
	// BodyMalformed is not JSON at all.
	BodyMalformed = `{"products": nope}`
)

func writeProblem(w http.ResponseWriter, r *http.Request, status int, title, code, detail string, more ...string) {
	if code != "" {
		detail = code + ": " + detail
	}
	fakekit.WriteJSON(w, status, problem{Instance: "/expressapi" + strings.TrimPrefix(r.URL.Path, Root), Detail: detail,
		Title: title, Message: http.StatusText(status), Status: fmt.Sprint(status), AdditionalDetails: more})
}

// badRequest is DHL's 400 for what it refuses of a request.
func badRequest(w http.ResponseWriter, r *http.Request, code, detail string, more ...string) {
	writeProblem(w, r, http.StatusBadRequest, "Bad request", code, detail, more...)
}

// unprocessable is DHL's 422 for a shipment it cannot create as given.
func unprocessable(w http.ResponseWriter, r *http.Request, code, detail string, more ...string) {
	writeProblem(w, r, http.StatusUnprocessableEntity, "Validation error", code, detail, more...)
}

// refuse answers what the kit refuses as DHL does.
func refuse(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, fakekit.ErrUnauthorized):
		writeProblem(w, r, http.StatusUnauthorized, "Unauthorized", "", "Invalid credentials")
	case errors.Is(err, fakekit.ErrUnreadable):
		badRequest(w, r, "", "the request body could not be read")
	default:
		badRequest(w, r, "", err.Error())
	}
}

// api adds to an operation what every MyDHL call needs besides its
// credentials: the x-version header, and a JSON body where one is sent.
func api(h fakekit.Handler) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Header.Get("x-version") == "" {
			badRequest(w, r, "", "Missing mandatory header: x-version")
			return
		}
		if (r.Method == http.MethodPost || r.Method == http.MethodPatch) && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			badRequest(w, r, "", fmt.Sprintf("Content-Type must be application/json, got %q", r.Header.Get("Content-Type")))
			return
		}
		h(w, r, body)
	}
}

// account is the caller's account, and whether the request's shipper
// account is it.
func callerAccount(r *http.Request) string {
	c, _ := fakekit.ClientOf(r.Context())
	return c.Account
}

type account struct {
	TypeCode string `json:"typeCode"`
	Number   string `json:"number"`
}

// checkAccounts refuses a request whose shipper account is not the
// caller's, as DHL refuses an account its credentials may not use.
func checkAccounts(w http.ResponseWriter, r *http.Request, accounts []account) bool {
	for _, a := range accounts {
		if a.TypeCode == "shipper" {
			if a.Number != callerAccount(r) {
				badRequest(w, r, "", "The account number is not found or invalid. Please check the account number and retry.")
				return false
			}
			return true
		}
	}
	badRequest(w, r, "", "A shipper account is required.")
	return false
}

// decode reads a request body; the document has checked its shape.
func decode(w http.ResponseWriter, r *http.Request, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		badRequest(w, r, "", "The request body is not valid JSON: "+err.Error())
		return false
	}
	return true
}

// plannedLayout is DHL's date-and-time form, "2022-10-19T19:19:40 GMT+00:00"
// (the space optional).
func parsePlanned(s string) (time.Time, bool) {
	s = strings.Replace(s, " GMT", "GMT", 1)
	t, err := time.Parse("2006-01-02T15:04:05GMT-07:00", s)
	return t, err == nil
}

// currencyOf is the billing currency of account for a shipper in country.
func (s *Server) currencyOf(account, country string) string {
	s.mu.Lock()
	c := s.currencies[account]
	s.mu.Unlock()
	if c != "" {
		return c
	}
	if c, ok := countryCurrencies[country]; ok {
		return c
	}
	return "EUR"
}

// countryCurrencies are the currencies DHL bills accounts of these
// countries in; the euro area's is EUR.
var countryCurrencies = map[string]string{
	"US": "USD", "PR": "USD", "CA": "CAD", "MX": "MXN", "GB": "GBP", "CH": "CHF", "NO": "NOK", "SE": "SEK",
	"DK": "DKK", "PL": "PLN", "CZ": "CZK", "HU": "HUF", "JP": "JPY", "AU": "AUD", "CN": "CNY", "SG": "SGD",
}
