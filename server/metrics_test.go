package server_test

// Metrics, as an operator's Prometheus scrapes them: traffic is driven
// through the public API, then the App's /metrics handler is scraped and
// parsed, and the counters are read by name and labels.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/server"
)

// scrape is one scrape of an App's metrics: the exposition text and its families.
type scrape struct {
	text     string
	families map[string]*dto.MetricFamily
}

func scrapeMetrics(t *testing.T, b *bundle) scrape {
	t.Helper()
	srv := httptest.NewServer(b.app.Telemetry().Handler(nil))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %s", res.StatusCode, raw)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	return scrape{text: string(raw), families: families}
}

// value is the sample of name with exactly these labels (0 when absent);
// for a histogram, its count.
func (s scrape) value(name string, labels map[string]string) float64 {
	f := s.families[name]
	if f == nil {
		return 0
	}
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		if !cmp.Equal(got, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return 0
}

// want compares samples: each key is name{label="value",...} as the exposition writes it.
func (s scrape) want(t *testing.T, want map[string]float64) {
	t.Helper()
	got := map[string]float64{}
	for key := range want {
		name, labels := parseSeries(t, key)
		got[key] = s.value(name, labels)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func parseSeries(t *testing.T, key string) (string, map[string]string) {
	t.Helper()
	name, rest, ok := strings.Cut(key, "{")
	labels := map[string]string{}
	if !ok {
		return name, labels
	}
	for pair := range strings.SplitSeq(strings.TrimSuffix(rest, "}"), ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			t.Fatalf("series %q: bad label %q", key, pair)
		}
		labels[k] = strings.Trim(v, `"`)
	}
	return name, labels
}

// waitForMetrics scrapes until the samples are as wanted (a job's outcome is
// counted once River has its result, a moment after the API shows it), and
// returns that scrape; after 10 s it reports the difference.
func waitForMetrics(t *testing.T, b *bundle, want map[string]float64) scrape {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := scrapeMetrics(t, b)
		if time.Now().After(deadline) {
			m.want(t, want)
			return m
		}
		ok := true
		for key, v := range want {
			name, labels := parseSeries(t, key)
			ok = ok && m.value(name, labels) == v
		}
		if ok {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lint fails on anything promtool's rules find wrong in the exposition.
func (s scrape) lint(t *testing.T) {
	t.Helper()
	problems, err := promlint.New(strings.NewReader(s.text)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range problems {
		out = append(out, p.Metric+": "+p.Text)
	}
	sort.Strings(out)
	if len(out) > 0 {
		t.Errorf("promlint:\n%s", strings.Join(out, "\n"))
	}
}

// TestMetricsAfterTraffic drives an idempotent replay and collision, a
// purchase whose shipment.purchased its receiver answers 500, a 429 and a
// request no route matches, then scrapes: every counter moved with the
// labels an alert would select, the gauges read at scrape time see the
// queued retry and the failing endpoint, and the exposition passes promlint.
func TestMetricsAfterTraffic(t *testing.T) {
	t.Parallel()
	b := setup(t, withRateLimits(map[server.Group]server.RateLimit{server.GroupAddressWrites: {Rate: 0.001, Burst: 1}}))

	// a replay and a collision of one idempotency key
	body := labelBody(withField("idempotencyKey", "metrics-1"))
	first := createLabel(t, b, b.token, body)
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, body), http.StatusAccepted)
	other := labelBody(withField("idempotencyKey", "metrics-1"), withToName("Someone Else"))
	wantError(t, b.doT(t, "POST", "/api/v1/labels/create", b.token, other), http.StatusConflict, "idempotency_key_collision")
	replayed := waitForStatus(t, b, b.token, first.ID, "purchased")

	// a purchase, whose shipment.purchased the receiver refuses
	rc := newReceiver(t)
	rc.setHandle(func(*http.Request, int) int { return http.StatusInternalServerError })
	sub := subscribe(t, b, rc, "/broken", "shipment.purchased")
	id := purchase(t, b)
	s := waitForStatus(t, b, b.token, id, "purchased")
	onlyDelivery(t, b, sub, "the first attempt failed", func(d gen.WebhookDelivery) bool { return d.Attempts == 1 })

	// a 429: the bucket holds one address write
	wantStatus(t, b.doT(t, "POST", "/api/v1/addresses", b.token, validAddress()), http.StatusCreated)
	wantError(t, b.doT(t, "POST", "/api/v1/addresses", b.token, validAddress()), http.StatusTooManyRequests, "rate_limited")

	// a path no route matches
	wantError(t, b.doT(t, "GET", "/api/v1/nowhere/123", b.token, nil), http.StatusNotFound, "not_found")

	buys := map[string]float64{}
	buys[replayed.Carrier]++
	buys[s.Carrier]++
	want := map[string]float64{
		// HTTP: operationId, method and status class, never the raw path
		`shipd_http_requests_total{operation="createWebhook",method="POST",status_class="2xx"}`:         1,
		`shipd_http_requests_total{operation="createAddress",method="POST",status_class="2xx"}`:         1,
		`shipd_http_requests_total{operation="createAddress",method="POST",status_class="4xx"}`:         1,
		`shipd_http_requests_total{operation="createLabel",method="POST",status_class="2xx"}`:           3,
		`shipd_http_requests_total{operation="createLabel",method="POST",status_class="4xx"}`:           1,
		`shipd_http_requests_total{operation="unknown",method="GET",status_class="4xx"}`:                1,
		`shipd_http_request_duration_seconds{operation="createLabel",method="POST",status_class="2xx"}`: 3,
		`shipd_http_request_size_bytes{operation="createLabel",method="POST"}`:                          4,
		`shipd_http_response_size_bytes{operation="createLabel",method="POST"}`:                         4,
		// 429s per group; idempotency
		`shipd_rate_limited_requests_total{group="address_writes"}`:   1,
		`shipd_rate_limited_requests_total{group="buys"}`:             0,
		`shipd_idempotency_replays_total{operation="createLabel"}`:    1,
		`shipd_idempotency_collisions_total{operation="createLabel"}`: 1,
		// the purchase jobs ran and the carriers sold the labels
		`shipd_job_run_seconds{kind="purchase_label",queue="purchases"}`:                          2,
		`shipd_job_wait_seconds{kind="purchase_label",queue="purchases"}`:                         2,
		`shipd_jobs_finished_total{kind="purchase_label",queue="purchases",outcome="completed"}`:  2,
		`shipd_jobs_finished_total{kind="purchase_label",queue="purchases",outcome="retried"}`:    0,
		`shipd_jobs_finished_total{kind="webhook_fan_out",queue="webhooks",outcome="completed"}`:  1,
		`shipd_jobs_finished_total{kind="webhook_delivery",queue="webhooks",outcome="completed"}`: 0,
		// the failed delivery: attempt 1, a retry queued; the endpoint is failing
		`shipd_webhook_deliveries_total{outcome="retrying",attempt="1"}`:                    1,
		`shipd_webhook_deliveries_total{outcome="delivered",attempt="1"}`:                   0,
		`shipd_webhook_delivery_latency_seconds`:                                            0,
		`shipd_webhook_endpoints{mode="test",state="failing"}`:                              1,
		`shipd_webhook_endpoints{mode="test",state="paused"}`:                               0,
		`shipd_webhook_endpoints{mode="live",state="failing"}`:                              0,
		`shipd_job_queue_depth{queue="webhooks",kind="webhook_delivery",state="scheduled"}`: 1,
		`shipd_job_queue_depth{queue="webhooks",kind="webhook_delivery",state="available"}`: 0,
		`shipd_job_oldest_available_age_seconds{queue="webhooks",kind="webhook_delivery"}`:  0,
	}
	for carrier, n := range buys {
		want[`shipd_carrier_calls_total{carrier="`+carrier+`",operation="buy"}`] = n
		want[`shipd_carrier_call_duration_seconds{carrier="`+carrier+`",operation="buy"}`] = n
		want[`shipd_carrier_errors_total{carrier="`+carrier+`",operation="buy",kind="failed"}`] = 0
	}
	m := waitForMetrics(t, b, want)
	for _, family := range []string{"go_goroutines", "process_cpu_seconds_total", "go_sql_open_connections", "shipd_http_requests_in_flight", "shipd_jobs_running"} {
		if m.families[family] == nil {
			t.Errorf("no %s in the scrape", family)
		}
	}
	m.lint(t)
}

// TestMetricsCountPurchases: purchases by carrier and outcome, the time from
// create to purchased, label documents stored, and refunds. It needs the
// shipping service to report purchases (shipping/labeljobs/purchase.go calls the
// Observer after each outcome).
func TestMetricsCountPurchases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := purchase(t, b)
	s := waitForStatus(t, b, b.token, id, "purchased")
	failed := createLabel(t, b, b.token, labelBody(withToName("Fail Purchase")))
	f := waitForStatus(t, b, b.token, failed.ID, "failed")
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+id+"/refund", b.token, nil), http.StatusAccepted)
	waitForStatus(t, b, b.token, id, "voided")

	waitForMetrics(t, b, map[string]float64{
		`shipd_purchases_total{carrier="` + s.Carrier + `",outcome="purchased"}`: 1,
		`shipd_purchases_total{carrier="` + f.Carrier + `",outcome="failed"}`:    1,
		`shipd_purchase_duration_seconds{carrier="` + s.Carrier + `"}`:           1,
		`shipd_label_documents_stored_total`:                                     1,
		`shipd_refunds_total{carrier="` + s.Carrier + `",outcome="voided"}`:      1,
	})
}

// TestMetricsScrapeSurvivesTheDatabase: with the database closed the scrape
// still answers, with the metrics that need no query.
func TestMetricsScrapeSurvivesTheDatabase(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.store.Close(); err != nil {
		t.Fatal(err)
	}
	m := scrapeMetrics(t, b)
	if m.families["go_goroutines"] == nil || m.families["shipd_http_requests_in_flight"] == nil {
		t.Fatalf("scrape without a database lost the process metrics:\n%s", m.text)
	}
	if m.families["shipd_job_queue_depth"] != nil {
		t.Errorf("job queue depth reported without a database")
	}
}

// TestReadyzSaysWhatIsWrong: /readyz is 503 once the job workers stop, and
// then also for the database, with each check's state in the body.
func TestReadyzSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	b := setup(t)
	wantStatus(t, b.doT(t, "GET", "/readyz", "", nil), http.StatusOK)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.app.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	checks := func() map[string]any {
		t.Helper()
		r := b.doT(t, "GET", "/readyz", "", nil)
		m := wantError(t, r, http.StatusServiceUnavailable, "not_ready")
		if m["status"] != "unready" {
			t.Errorf("status %v, want unready", m["status"])
		}
		c, _ := m["checks"].(map[string]any)
		return c
	}
	if diff := cmp.Diff(map[string]any{"database": "ok", "jobs": "stopping"}, checks()); diff != "" {
		t.Errorf("checks with the jobs stopped (-want +got):\n%s", diff)
	}
	if err := b.store.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"database": "the database does not answer within 1s", "jobs": "stopping"}, checks()); diff != "" {
		t.Errorf("checks with the database closed too (-want +got):\n%s", diff)
	}
	wantStatus(t, b.doT(t, "GET", "/healthz", "", nil), http.StatusOK)
}
