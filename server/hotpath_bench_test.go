package server_test

// Benchmarks of whole requests through the middleware chain, in process
// (go test -bench . ./server/). `make bench` measures the server over HTTP;
// server/hotpath_internal_test.go isolates its parts.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/server"
)

var benchCreateBody = []byte(`{"serviceCategory":"standard",` +
	`"fromAddress":{"name":"Shop","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
	`"toAddress":{"name":"Ada Lovelace","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},` +
	`"parcel":{"weightOz":32,"lengthIn":10,"widthIn":8,"heightIn":4}}`)

// benchBundle is a bundle for benchmarks: rate limits off, one label
// purchased with its tracking scans recorded.
func benchBundle(b *testing.B) (*bundle, string) {
	b.Helper()
	bd := setup(b, withoutRateLimits(), withSandbox(time.Millisecond))
	r, err := bd.send("POST", "/api/v1/labels/create", bd.token, benchCreateBody)
	if err != nil || r.Status != http.StatusAccepted {
		b.Fatalf("create: %v %d %s", err, r.Status, r.Body)
	}
	var sh struct{ ID string }
	if err := json.Unmarshal(r.Body, &sh); err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, _ := bd.send("GET", "/api/v1/labels/"+sh.ID, bd.token, nil)
		var got struct{ TrackingStatus string }
		_ = json.Unmarshal(r.Body, &got)
		if got.TrackingStatus == "delivered" {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the bench label never reached delivered: %s", r.Body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return bd, sh.ID
}

// GET /labels/{id} through the whole middleware chain, in process (no network).
func BenchmarkGetLabel(b *testing.B) {
	bd, id := benchBundle(b)
	h := bd.app.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, server.BasePath+"/labels/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+bd.token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET: %d %s", rec.Code, rec.Body)
		}
	}
}

// The same from concurrent requests (the reader pool, the limiter shards, the GC).
func BenchmarkGetLabelParallel(b *testing.B) {
	bd, id := benchBundle(b)
	h := bd.app.Handler()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, server.BasePath+"/labels/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+bd.token)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
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
	bd, _ := benchBundle(b)
	h := bd.app.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, server.BasePath+"/labels/create", bytes.NewReader(benchCreateBody))
		req.Header.Set("Authorization", "Bearer "+bd.token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusAccepted {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
}
