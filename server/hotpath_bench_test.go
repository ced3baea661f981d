package server

// Micro-benchmarks of the request hot paths (go test -bench . ./server/).
// `make bench` measures the whole server over HTTP; these isolate its parts.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

var benchAllScopes = []string{"read:shipments", "write:shipments", "read:addresses", "write:addresses", "read:webhooks", "write:webhooks"}

var benchCreateBody = []byte(`{"serviceCategory":"standard",` +
	`"fromAddress":{"name":"Shop","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
	`"toAddress":{"name":"Ada Lovelace","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},` +
	`"parcel":{"weightOz":32,"lengthIn":10,"widthIn":8,"heightIn":4}}`)

type benchServer struct {
	e       *echo.Echo
	s       *Server
	st      *store.Store
	account store.Account
	token   string
}

// newBenchServer builds a server on a fresh database without starting its
// jobs (inserts still work) and with rate limits off.
func newBenchServer(b *testing.B) *benchServer {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "shipd.db"))
	if err != nil {
		b.Fatal(err)
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		b.Fatal(err)
	}
	e, s, err := Setup(Config{Store: st, WebhookCipher: cipher, UsageFlushInterval: time.Hour,
		Labels: store.FileBlobs{Dir: b.TempDir()}, RateLimits: RateLimitConfig{Disabled: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	a, err := st.CreateAccount(ctx, "bench", true, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	_, tok, err := st.CreateToken(ctx, a.ID, "test", benchAllScopes, nil, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return &benchServer{e: e, s: s, st: st, account: a, token: tok}
}

// purchasedShipment is a shipment as the purchase job leaves it, with two scans.
func (bs *benchServer) purchasedShipment(b *testing.B) (store.Shipment, []store.TrackingEvent) {
	b.Helper()
	ctx := context.Background()
	var in shipmentInput
	if err := json.Unmarshal(benchCreateBody, &in); err != nil {
		b.Fatal(err)
	}
	req, _ := json.Marshal(in)
	now := time.Now().UTC()
	tn, key, status := "9400100000000000000001", "labels/x.pdf", "in_transit"
	sh := store.Shipment{ID: store.NewID("shp"), AccountID: bs.account.ID, Mode: "test", Status: "purchased",
		CreatedAt: now, UpdatedAt: now, Carrier: "USPS", Service: "Priority", ServiceCategory: "standard",
		CarrierRateCents: 985, PlatformFeeCents: 8, CustomerPriceCents: 993, ChargeAmountCents: 993, Currency: "USD",
		EstimatedDays: 3, Request: string(req), Source: "api", TrackingNumber: &tn, LabelKey: &key, TrackingStatus: &status,
		PurchasedAt: &now}
	tr := store.Tracker{ID: store.NewID("trk"), AccountID: bs.account.ID, Mode: "test", ShipmentID: sh.ID, Carrier: "USPS",
		TrackingNumber: tn, Status: status, Plan: "[]", CreatedAt: now, UpdatedAt: now}
	sh.TrackerID = &tr.ID
	var events []store.TrackingEvent
	err := bs.st.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := store.InsertShipment(ctx, tx, &sh); err != nil {
			return err
		}
		if err := store.InsertTracker(ctx, tx, &tr); err != nil {
			return err
		}
		// InsertShipment writes the columns of a new shipment; the purchase's are an update.
		if err := store.UpdateShipment(ctx, tx, &sh); err != nil {
			return err
		}
		for i, s := range []string{"pre_transit", "in_transit"} {
			ev := store.TrackingEvent{TrackerID: tr.ID, ScanIndex: i, Status: s, Message: "Departed origin facility",
				Location: "San Francisco, CA", OccurredAt: now.Add(time.Duration(i) * time.Hour)}
			if _, err := store.InsertTrackingEvent(ctx, tx, &ev); err != nil {
				return err
			}
			events = append([]store.TrackingEvent{ev}, events...)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return sh, events
}

// principalFor is the token lookup of every authenticated request.
func BenchmarkPrincipalFor(b *testing.B) {
	bs := newBenchServer(b)
	header := "Bearer " + bs.token
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bs.s.principalFor(ctx, header); err != nil {
			b.Fatal(err)
		}
	}
}

// validateRequest on a POST /labels/create body: JSON checks and the contract.
func BenchmarkValidateRequestCreate(b *testing.B) {
	bs := newBenchServer(b)
	h := bs.s.validateRequest(func(echo.Context) error { return nil })
	b.SetBytes(int64(len(benchCreateBody)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, BasePath+"/labels/create", bytes.NewReader(benchCreateBody))
		req.Header.Set("Content-Type", "application/json")
		c := bs.e.NewContext(req, httptest.NewRecorder())
		c.SetPath(BasePath + "/labels/create")
		if err := h(c); err != nil {
			b.Fatal(err)
		}
	}
}

// validateRequest on GET /labels/{id}: a path parameter, no body.
func BenchmarkValidateRequestGetLabel(b *testing.B) {
	bs := newBenchServer(b)
	h := bs.s.validateRequest(func(echo.Context) error { return nil })
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, BasePath+"/labels/shp_0123456789abcdef01234567", nil)
		c := bs.e.NewContext(req, httptest.NewRecorder())
		c.SetPath(BasePath + "/labels/:id")
		c.SetParamNames("id")
		c.SetParamValues("shp_0123456789abcdef01234567")
		if err := h(c); err != nil {
			b.Fatal(err)
		}
	}
}

// shipmentView builds the API shape from a row (it decodes the stored request).
func BenchmarkShipmentView(b *testing.B) {
	bs := newBenchServer(b)
	sh, events := bs.purchasedShipment(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = bs.s.shipmentView(sh, events, true)
	}
}

// JSON encoding of a gen.Shipment, as the strict handler writes GET /labels/{id}.
func BenchmarkShipmentJSON(b *testing.B) {
	bs := newBenchServer(b)
	sh, events := bs.purchasedShipment(b)
	v := gen.GetLabel200JSONResponse(bs.s.shipmentView(sh, events, true))
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

// GET /labels/{id} through the whole middleware chain, in process (no network).
func BenchmarkGetLabel(b *testing.B) {
	bs := newBenchServer(b)
	sh, _ := bs.purchasedShipment(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, BasePath+"/labels/"+sh.ID, nil)
		req.Header.Set("Authorization", "Bearer "+bs.token)
		rec := httptest.NewRecorder()
		bs.e.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET: %d %s", rec.Code, rec.Body)
		}
	}
}

// The same from concurrent requests (the reader pool, the limiter shards, the GC).
func BenchmarkGetLabelParallel(b *testing.B) {
	bs := newBenchServer(b)
	sh, _ := bs.purchasedShipment(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, BasePath+"/labels/"+sh.ID, nil)
			req.Header.Set("Authorization", "Bearer "+bs.token)
			rec := httptest.NewRecorder()
			bs.e.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("GET: %d %s", rec.Code, rec.Body)
				return
			}
		}
	})
}

// POST /labels/create through the whole chain: rates, the write transaction
// (token re-check, balance, shipment, purchase job) and the 202.
func BenchmarkCreateLabel(b *testing.B) {
	bs := newBenchServer(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, BasePath+"/labels/create", bytes.NewReader(benchCreateBody))
		req.Header.Set("Authorization", "Bearer "+bs.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		bs.e.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
}
