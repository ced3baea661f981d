// Package dpdfake is a fake DPD META-API written from DPD's published
// documents (carriers/dpd/spec): the login (X-DPD-LOGIN, X-DPD-PASSWORD and
// X-DPD-BUCODE headers, the token in the X-DPD-TOKEN header), shipment
// creation with its label (PDF on A4, A5, A6 or A7 paper, ZPL), and pickup
// scheduling. It checks what every request must carry, answering the
// META-API's Error when something is wrong, and every exchange is held to
// both documents (SetChecker), so tests against it prove that a client
// sends what DPD expects. It is safe for concurrent use.
package dpdfake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers/dpd/spec"
	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// Credentials the fake accepts.
const (
	Login      = "dpdfake-login"
	Password   = "dpdfake-password"
	BUCode     = "001"
	CustomerID = "DE12345678"
)

// Operations, for counters, recorded requests, holds and failures.
const (
	OpToken    = fakekit.OpToken
	OpShipment = "shipment"
	OpPickup   = "pickupscheduling"
)

// DefaultTokenTTL is the tokens' lifetime: "it can be used … for up to 24
// hours".
const DefaultTokenTTL = 24 * time.Hour

// Failure is an answer the fake gives instead of the real one (Fail).
type Failure = fakekit.Fault

// Server is a running fake DPD. The kit it embeds records calls, injects
// failures, holds answers, issues the tokens and checks exchanges.
type Server struct {
	*fakekit.Server
	sales fakekit.Sales[*sale]

	mu      sync.Mutex
	seq     int
	pickups []Pickup
}

// sale is a shipment the fake created.
type sale struct {
	fakekit.Sale
	product string
}

// Pickup is a pickup the fake scheduled.
type Pickup struct {
	Reference, Date, FromTime, ToTime string
	NumberOfParcels                   int
	ParcelNumbers                     []string
}

// New starts a fake DPD that is closed when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	return start(t)
}

// NewServer starts a fake DPD outside a test; Close stops it.
func NewServer() *Server { return start(nil) }

func start(tb testing.TB) *Server {
	s := &Server{}
	s.Server = fakekit.Start(tb, fakekit.Config{MaxRequestBytes: 1 << 20, Refuse: refuse}, s.routes)
	documents, err := spec.Checker()
	if err != nil {
		panic(fmt.Sprintf("the vendored documents do not load: %v", err))
	}
	s.SetChecker(documents.DocumentedOnly())
	return s
}

// errNoBU: the login without X-DPD-BUCODE (the document's one required
// header) or with another BU's.
var errNoBU = errors.New("dpdfake: X-DPD-BUCODE missing or not the login's business unit")

func (s *Server) routes(rt *fakekit.Router) {
	rt.Login("POST /shipping/v1/login", fakekit.LoginEndpoint{
		Client: fakekit.Client{ID: Login, Secret: Password, Account: CustomerID}, TTL: DefaultTokenTTL, Prefix: "dpdfake-",
		Credentials: func(r *http.Request) (string, string, error) {
			if r.Header.Get("X-DPD-BUCODE") == "" {
				return "", "", errNoBU
			}
			return r.Header.Get("X-DPD-LOGIN"), r.Header.Get("X-DPD-PASSWORD"), nil
		},
		Admit: func(r *http.Request, _ fakekit.Client) error {
			if r.Header.Get("X-DPD-BUCODE") != BUCode {
				return errNoBU
			}
			return nil
		},
		// 200 without a body; the token in X-DPD-TOKEN.
		Answer: func(w http.ResponseWriter, t fakekit.Issued) {
			w.Header().Set("X-DPD-TOKEN", t.Token)
			w.WriteHeader(http.StatusOK)
		},
	})
	rt.Operation("POST /shipping/v1/shipment", OpShipment, jsonCall(s.shipment))
	rt.Operation("POST /shipping/v1/pickupscheduling", OpPickup, jsonCall(s.pickup))
}

// ErrorBody is the META-API's Error.
func ErrorBody(code, message, origin string) string {
	b, _ := json.Marshal(map[string]string{"errorCode": code, "errorMessage": message, "errorOrigin": origin})
	return string(b)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(ErrorBody(code, message, "META-API")))
}

// refuse answers what the kit refuses as the META-API does: a 401 Error.
func refuse(w http.ResponseWriter, _ *http.Request, err error) {
	switch {
	case errors.Is(err, fakekit.ErrUnauthorized):
		writeError(w, http.StatusUnauthorized, "TOKEN_INVALID", "Authentication information is missing or invalid")
	case errors.Is(err, fakekit.ErrBadClient), errors.Is(err, errNoBU):
		writeError(w, http.StatusUnauthorized, "LOGIN_FAILED", "Login failed: wrong login, password or business unit")
	default:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", err.Error())
	}
}

// jsonCall adds what every call needs: a JSON body.
func jsonCall(h func(w http.ResponseWriter, r *http.Request, body any)) fakekit.Handler {
	return func(w http.ResponseWriter, r *http.Request, body []byte) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			writeError(w, http.StatusBadRequest, "BAD_CONTENT_TYPE", "Content-Type must be application/json")
			return
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			writeError(w, http.StatusBadRequest, "BAD_REQUEST", "the body is not JSON")
			return
		}
		h(w, r, v)
	}
}

func customerOf(r *http.Request) string {
	if c, ok := fakekit.ClientOf(r.Context()); ok {
		return c.Account
	}
	return CustomerID
}

func str(m map[string]any, name string) string {
	v, _ := m[name].(string)
	return strings.TrimSpace(v)
}

func obj(m map[string]any, name string) map[string]any {
	v, _ := m[name].(map[string]any)
	return v
}

// products are the group product codes the fake sells.
var products = []string{"101", "155", "179", "225", "302", "327", "337", "350"}

var digits = regexp.MustCompile(`^[0-9]+$`)

// checkAddress says what is wrong with an Address, "" when nothing.
func checkAddress(a map[string]any, where string) string {
	if a == nil {
		return where + " is required"
	}
	for _, f := range []string{"street", "country", "zipCode", "city"} {
		if str(a, f) == "" {
			return where + "." + f + " is required"
		}
	}
	if str(a, "name1") == "" && str(a, "companyName") == "" {
		return where + ": name1 or companyName is required"
	}
	return ""
}

// shipment is POST /shipping/v1/shipment?LabelPrintFormat=…: one shipment
// (the adapter sends one), its parcels numbered, its label.
func (s *Server) shipment(w http.ResponseWriter, r *http.Request, v any) {
	q := r.URL.Query()
	format, paper := q.Get("LabelPrintFormat"), q.Get("LabelPaperFormat")
	list, _ := v.([]any)
	var sh map[string]any
	if len(list) == 1 {
		sh, _ = list[0].(map[string]any)
	}
	problem := ""
	switch {
	case format != "PDF" && format != "ZPL":
		problem = fmt.Sprintf("LabelPrintFormat %q is not available at this business unit", format)
	case format == "PDF" && paper != "" && !slices.Contains([]string{"A4", "A5", "A6", "A7"}, paper):
		problem = fmt.Sprintf("LabelPaperFormat %q", paper)
	case sh == nil:
		problem = "the body must be an array of one shipment"
	case !slices.Contains(products, str(obj(sh, "shipmentInfos"), "productCode")):
		problem = "shipmentInfos.productCode is not a product of this business unit"
	case str(obj(obj(sh, "sender"), "customerInfos"), "customerID") != customerOf(r):
		problem = "sender.customerInfos.customerID is not the login's customer"
	default:
		problem = checkAddress(obj(obj(sh, "sender"), "address"), "sender.address")
		if problem == "" {
			problem = checkAddress(obj(obj(sh, "receiver"), "address"), "receiver.address")
		}
	}
	parcels, _ := sh["parcel"].([]any)
	if problem == "" && (len(parcels) == 0 || str(sh, "numberOfParcels") != strconv.Itoa(len(parcels))) {
		problem = "numberOfParcels must be the number of parcels"
	}
	for i, p := range parcels {
		pm, _ := p.(map[string]any)
		g := str(obj(pm, "parcelInfos"), "weight")
		n, err := strconv.Atoi(g)
		if problem == "" && (!digits.MatchString(g) || err != nil || n <= 0 || n > 31500) {
			problem = fmt.Sprintf("parcel[%d].parcelInfos.weight %q is not a weight in grams up to 31500", i, g)
		}
	}
	if problem != "" {
		writeError(w, http.StatusBadRequest, "VALIDATION", problem)
		return
	}
	refs, _ := sh["customerReferenceNumbers"].([]any)
	ref := ""
	if len(refs) > 0 {
		ref, _ = refs[0].(string)
	}
	s.mu.Lock()
	var ids []string
	for range parcels {
		s.seq++
		ids = append(ids, fmt.Sprintf("0530887777%04d", s.seq))
	}
	s.mu.Unlock()
	s.sales.Sell(&sale{Sale: fakekit.Sale{TrackingNumber: ids[0], Reference: ref, Account: customerOf(r), Pieces: ids, SoldAt: s.Now()},
		product: str(obj(sh, "shipmentInfos"), "productCode")})
	doc, err := labelDocument(format, paper, ids, obj(obj(sh, "receiver"), "address"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "LABEL", err.Error())
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"shipmentId": ids[0], "parcelIds": ids,
		"label": map[string]string{"base64Data": base64.StdEncoding.EncodeToString(doc), "media-type": "application/octet-stream"}})
}

// pickup is POST /shipping/v1/pickupscheduling.
func (s *Server) pickup(w http.ResponseWriter, r *http.Request, v any) {
	m, _ := v.(map[string]any)
	day := str(obj(m, "pickup"), "date")
	switch {
	case m == nil:
		writeError(w, http.StatusBadRequest, "BAD_REQUEST", "the body must be an object")
		return
	case str(obj(m, "customerInfos"), "customerID") != customerOf(r):
		writeError(w, http.StatusBadRequest, "VALIDATION", "customerInfos.customerID is not the login's customer")
		return
	}
	if _, err := time.Parse("2006-01-02", day); err != nil {
		writeError(w, http.StatusBadRequest, "VALIDATION", "pickup.date is required")
		return
	}
	if p := checkAddress(obj(m, "pickupAddress"), "pickupAddress"); p != "" {
		writeError(w, http.StatusBadRequest, "VALIDATION", p)
		return
	}
	n, _ := m["numberOfParcels"].(float64)
	var numbers []string
	list, _ := m["parcelNumbers"].([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			numbers = append(numbers, s)
		}
	}
	var ref string
	if refs, _ := m["references"].([]any); len(refs) > 0 {
		ref, _ = refs[0].(string)
	}
	s.mu.Lock()
	s.seq++
	code := fmt.Sprintf("PU%08d", s.seq)
	s.pickups = append(s.pickups, Pickup{Reference: ref, Date: day, FromTime: str(obj(m, "pickup"), "fromTime"), ToTime: str(obj(m, "pickup"), "toTime"),
		NumberOfParcels: int(n), ParcelNumbers: numbers})
	s.mu.Unlock()
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"scheduledPickupResponse": []any{
		map[string]string{"pickupreference": code, "statusCode": "OK", "statusDescription": "Pickup scheduled"}}})
}

// Pickups are the pickups scheduled, in order.
func (s *Server) Pickups() []Pickup {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pickups)
}

// Sale is a shipment the fake created.
type Sale struct {
	ParcelIDs []string
	Product   string
}

// Sales are the shipments created with a customer reference, in order.
func (s *Server) Sales(reference string) []Sale {
	var out []Sale
	s.sales.Each(func(p *sale) {
		if p.Reference == reference {
			out = append(out, Sale{ParcelIDs: slices.Clone(p.Pieces), Product: p.product})
		}
	})
	return out
}

// HoldShipments makes every shipment answer from now on wait until
// ReleaseShipments: the shipment is created (Sales lists it) when the
// request arrives, only the answer is held.
func (s *Server) HoldShipments() { s.Hold(OpShipment) }

// ReleaseShipments sends the held answers and stops holding.
func (s *Server) ReleaseShipments() { s.Release(OpShipment) }

// labelDocument is the shipment's label: a page per parcel on the paper
// asked (A6 by default), or a ZPL label per parcel.
func labelDocument(format, paper string, ids []string, to map[string]any) ([]byte, error) {
	lines := []string{str(to, "name1"), str(to, "street"), strings.TrimSpace(str(to, "zipCode") + " " + str(to, "city")), str(to, "country")}
	if format == "ZPL" {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString("^XA\n^PW812\n^LL1218\n^FO40,40^A0N,60,60^FDDPD^FS\n")
			for i, l := range lines {
				fmt.Fprintf(&b, "^FO40,%d^A0N,40,40^FD%s^FS\n", 160+50*i, strings.NewReplacer("^", " ", "~", " ").Replace(l))
			}
			fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n^XZ\n", id)
		}
		return []byte(b.String()), nil
	}
	size := map[string]fpdf.SizeType{"A4": {Wd: 210, Ht: 297}, "A5": {Wd: 148, Ht: 210}, "A7": {Wd: 74, Ht: 105}}[paper]
	if size.Wd == 0 {
		size = fpdf.SizeType{Wd: 105, Ht: 148}
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: size})
	pdf.SetCompression(false)
	for _, id := range ids {
		pdf.AddPage()
		pdf.SetFont("Helvetica", "", 10)
		for _, l := range append([]string{"DPD", "Parcel " + id}, lines...) {
			pdf.Cell(0, 6, l)
			pdf.Ln(6)
		}
	}
	var buf bytes.Buffer
	err := pdf.Output(&buf)
	return buf.Bytes(), err
}
