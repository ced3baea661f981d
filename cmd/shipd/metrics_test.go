package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestServeMetricsAddr: --metrics-addr serves the Prometheus metrics on a
// listener of its own; the API's port never does (404 not_found, JSON).
// The shutdown is reported in the log with what was drained: a purchase
// running at the stop is let finish.
func TestServeMetricsAddr(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "shipd.db")
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", db, "--metrics-addr", metricsAddr}, &stdout, &stderr)
	}()
	stopped := false
	t.Cleanup(func() {
		cancel()
		if !stopped {
			<-done
		}
	})
	get := func(url string) (int, string, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			return 0, "", err.Error()
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(raw)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if status, _, _ := get("http://" + addr + "/healthz"); status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready\nstderr: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	status, _, body := get("http://" + addr + "/metrics")
	var apiErr map[string]any
	if status != http.StatusNotFound || json.Unmarshal([]byte(body), &apiErr) != nil || apiErr["code"] != "not_found" {
		t.Errorf("GET /metrics on the API port: %d %s, want 404 not_found", status, body)
	}
	status, contentType, body := get("http://" + metricsAddr + "/metrics")
	if status != http.StatusOK || !strings.HasPrefix(contentType, "text/plain") {
		t.Fatalf("GET /metrics on the metrics port: %d %s", status, contentType)
	}
	for _, want := range []string{
		`shipd_http_requests_total{method="GET",operation="healthz",status_class="2xx"}`,
		`shipd_http_requests_total{method="GET",operation="unknown",status_class="4xx"} 1`,
		"go_goroutines ", "process_resident_memory_bytes ", `go_sql_open_connections{db_name="writer"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
	if status, _, _ := get("http://" + metricsAddr + "/healthz"); status != http.StatusNotFound {
		t.Errorf("the metrics port serves /healthz: %d", status)
	}

	// a purchase that takes 3 s is running when the stop comes
	var demo struct{ Token string }
	if err := json.Unmarshal([]byte(stdout.String()), &demo); err != nil {
		t.Fatalf("no demo token: %v", err)
	}
	s := &serveProc{base: "http://" + addr}
	create := map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": "Slow Carrier", "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32},
	}
	if status, body := s.call(t, "POST", "/api/v1/labels/create", demo.Token, create); status != http.StatusAccepted {
		t.Fatalf("create: %d %v", status, body)
	}
	for {
		if _, _, body := get("http://" + metricsAddr + "/metrics"); strings.Contains(body, "\nshipd_jobs_running 1\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the purchase never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}

	cancel()
	stopped = true
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d\nstderr: %s", code, stderr.String())
	}
	var report struct {
		Requests map[string]float64 `json:"requests"`
		App      map[string]any     `json:"app"`
	}
	for line := range strings.Lines(stderr.String()) {
		if strings.Contains(line, `"msg":"shut down"`) {
			if err := json.Unmarshal([]byte(line), &report); err != nil {
				t.Fatal(err)
			}
		}
	}
	delete(report.Requests, "took_ms")
	delete(report.App, "took_ms")
	if diff := cmp.Diff(map[string]float64{"in_flight": 0, "finished": 0, "cut_off": 0}, report.Requests); diff != "" {
		t.Errorf("shutdown report, requests (-want +got):\n%s", diff)
	}
	want := map[string]any{"jobs_running": 1.0, "jobs_finished": 1.0, "jobs_cancelled": 0.0, "jobs_handed_back": 0.0, "token_usage_flushed": true}
	if diff := cmp.Diff(want, report.App); diff != "" {
		t.Errorf("shutdown report, app (-want +got):\n%s\nstderr: %s", diff, stderr.String())
	}
}
