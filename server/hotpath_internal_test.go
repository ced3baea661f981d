package server

// Micro-benchmarks of the parts of the request hot path that are the HTTP
// layer's own: contract validation, the body fingerprint, rendering.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
)

var benchCreateBody = []byte(`{"serviceCategory":"standard",` +
	`"fromAddress":{"name":"Shop","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
	`"toAddress":{"name":"Ada Lovelace","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},` +
	`"parcel":{"weightOz":32,"lengthIn":10,"widthIn":8,"heightIn":4}}`)

// bareServer is a Server with the contract loaded and nothing else: enough
// for the middleware that only reads the contract.
func bareServer(tb testing.TB) (*Server, *echo.Echo) {
	tb.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		tb.Fatal(err)
	}
	ops, err := loadOperations(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return &Server{ops: ops, cfg: Config{MaxBodyBytes: 1 << 20}}, echo.New()
}

// validateRequest on a POST /labels/create body: JSON checks, the
// fingerprint and the contract.
func BenchmarkValidateRequestCreate(b *testing.B) {
	s, e := bareServer(b)
	h := s.validateRequest(func(echo.Context) error { return nil })
	b.SetBytes(int64(len(benchCreateBody)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, BasePath+"/labels/create", bytes.NewReader(benchCreateBody))
		req.Header.Set("Content-Type", "application/json")
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath(BasePath + "/labels/create")
		if err := h(c); err != nil {
			b.Fatal(err)
		}
	}
}

// validateRequest on GET /labels/{id}: a path parameter, no body.
func BenchmarkValidateRequestGetLabel(b *testing.B) {
	s, e := bareServer(b)
	h := s.validateRequest(func(echo.Context) error { return nil })
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, BasePath+"/labels/shp_0123456789abcdef01234567", nil)
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath(BasePath + "/labels/:id")
		c.SetParamNames("id")
		c.SetParamValues("shp_0123456789abcdef01234567")
		if err := h(c); err != nil {
			b.Fatal(err)
		}
	}
}

func benchShipment() shipping.Shipment {
	now := time.Now().UTC()
	tn, trk, ts := "9400SANDBOX012345678901", "trk_0123456789abcdef01234567", "delivered"
	sh := shipping.Shipment{
		ID: "shp_0123456789abcdef01234567", Mode: "test", Status: shipping.Purchased, CreatedAt: now, UpdatedAt: now,
		Carrier: "USPS", Service: "Priority", ServiceCategory: "standard", CarrierRateCents: 1965, PlatformFeeCents: 8,
		CustomerPriceCents: 1973, ChargeAmountCents: 1973, Currency: "USD", EstimatedDays: 2, Source: "api",
		Input: shipping.Input{
			From:   shipping.Address{Street1: "1 Market St", City: "San Francisco", Zip: "94105", Country: "US"},
			To:     shipping.Address{Street1: "350 Fifth Avenue", City: "New York", Zip: "10118", Country: "US"},
			Parcel: shipping.Parcel{WeightOz: new(32.0)},
		},
		TrackingNumber: &tn, TrackerID: &trk, TrackingStatus: &ts, HasLabel: true, PurchasedAt: &now, Detail: true,
	}
	for _, st := range []string{"delivered", "out_for_delivery", "in_transit", "in_transit", "pre_transit"} {
		sh.TrackingEvents = append(sh.TrackingEvents, shipping.TrackingEvent{Status: st, Message: "Departed origin facility", Location: "New York, NY", OccurredAt: now})
	}
	return sh
}

// shipmentView builds the API shape of a shipment with its tracking.
func BenchmarkShipmentView(b *testing.B) {
	sh := benchShipment()
	b.ReportAllocs()
	for b.Loop() {
		_ = shipmentView("http://127.0.0.1:8080", sh)
	}
}

// JSON encoding of a gen.Shipment, as the strict handler writes GET /labels/{id}.
func BenchmarkShipmentJSON(b *testing.B) {
	v := gen.GetLabel200JSONResponse(shipmentView("http://127.0.0.1:8080", benchShipment()))
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := json.NewEncoder(io.Discard).Encode(v); err != nil {
			b.Fatal(err)
		}
	}
}

// The fingerprint of an idempotent request's body ignores key order,
// whitespace and escapes, and nothing else.
func TestBodyFingerprint(t *testing.T) {
	t.Parallel()
	a, err := bodyFingerprint([]byte(`{"b":[1,2,{"y":true,"x":null}],"a":"\u00e9","idempotencyKey":"k","n":12345678901234567890}`))
	if err != nil {
		t.Fatal(err)
	}
	same, _ := bodyFingerprint([]byte("{ \"n\": 12345678901234567890, \"idempotencyKey\": \"k\", \"a\": \"é\",\n\"b\": [1, 2, {\"x\": null, \"y\": true}] }"))
	bigger, _ := bodyFingerprint([]byte(`{"b":[1,2,{"y":true,"x":null}],"a":"é","idempotencyKey":"k","n":12345678901234567891}`))
	reordered, _ := bodyFingerprint([]byte(`{"b":[2,1,{"y":true,"x":null}],"a":"é","idempotencyKey":"k","n":12345678901234567890}`))
	if !bytes.Equal(a, same) {
		t.Errorf("key order, whitespace and escapes changed the fingerprint")
	}
	if bytes.Equal(a, bigger) {
		t.Errorf("a large integer lost precision")
	}
	if bytes.Equal(a, reordered) {
		t.Errorf("array order was ignored")
	}
	if want := sha256.Sum256([]byte(`{"a":"é","b":[1,2,{"x":null,"y":true}],"idempotencyKey":"k","n":12345678901234567890}`)); !bytes.Equal(a, want[:]) {
		t.Errorf("the fingerprint is not the SHA-256 of the canonical form")
	}
}

func BenchmarkBodyFingerprint(b *testing.B) {
	b.SetBytes(int64(len(benchCreateBody)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bodyFingerprint(benchCreateBody); err != nil {
			b.Fatal(err)
		}
	}
}
