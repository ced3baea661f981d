package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// metricLine is the first line of the metrics at addr that has every part, "" when none.
func metricLine(t *testing.T, addr string, parts ...string) string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	for line := range strings.SplitSeq(string(raw), "\n") {
		all := !strings.HasPrefix(line, "#")
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return line
		}
	}
	return ""
}

// counted reports whether a metric line counts more than 0.
func counted(line string) bool { return line != "" && !strings.HasSuffix(line, " 0") }

// waitUntil polls cond for up to 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 30 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With FedEx's tracking budget spent (--carrier-quota FedEx:tracking=1/h),
// a label's next tracking poll is snoozed, not failed and not sent, while
// a purchase still goes through.
func TestServeCarrierQuotaDefersTracking(t *testing.T) {
	t.Parallel()
	fake := fedexfake.New(t)
	metrics := freeAddr(t)
	s, token := startLiveFedEx(t, fake, "--live-tracking-interval", "1s", "--carrier-quota", "FedEx:tracking=1/h", "--metrics-addr", metrics)
	label := func() string {
		status, created := s.call(t, "POST", "/api/v1/labels/create", token, liveFedExBody())
		if status != 202 {
			t.Fatalf("create: %d %v", status, created)
		}
		id, _ := created["id"].(string)
		return id
	}
	get := func(id string) map[string]any {
		_, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil)
		if got["status"] == "failed" {
			t.Fatalf("label failed: %v", got["errorMessage"])
		}
		return got
	}
	first := label()
	waitUntil(t, "first tracking poll", func() bool { return get(first)["trackingStatus"] == "pre_transit" })
	waitUntil(t, "deferred tracking poll", func() bool {
		return metricLine(t, metrics, "shipd_carrier_quota_decisions_total", `api="tracking"`, `carrier="FedEx"`, `decision="deferred"`) != "" &&
			counted(metricLine(t, metrics, "shipd_jobs_finished_total", `kind="tracking_poll"`, `outcome="snoozed"`))
	})

	second := label()
	waitUntil(t, "second label purchased", func() bool { return get(second)["status"] == "purchased" })
	if n := fake.Requests(fedexfake.OpTrack); n != 1 {
		t.Errorf("FedEx was asked to track %d times within a budget of 1 an hour", n)
	}
	if got := get(first)["trackingStatus"]; got != "pre_transit" {
		t.Errorf("the first label's tracking moved to %v past the budget", got)
	}
	if line := metricLine(t, metrics, "shipd_jobs_finished_total", `kind="tracking_poll"`, `outcome="discarded"`); counted(line) {
		t.Errorf("a deferred poll failed: %s", line)
	}
}
