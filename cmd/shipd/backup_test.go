package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shipd backup copies a live database while the server goes on serving
// label purchases; the copy, served by a second server, answers for every
// label and event it holds: each label is one the original accepted, each
// purchased label downloads as a PDF (labels are rows of the database), each
// event is one the original recorded.
func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")
	s := startServe(t, db, "--job-poll-interval", "10ms", "--rate-limits-disabled")
	token := s.demoToken(t)

	// Labels purchased before the backup are in it, whatever the load does.
	var before []string
	for range 3 {
		status, created := s.call(t, "POST", "/api/v1/labels/create", token, labelBody())
		if status != 202 {
			t.Fatalf("create: %d %v", status, created)
		}
		before = append(before, created["id"].(string))
	}
	for _, id := range before {
		waitStatus(t, s, token, id, "purchased")
	}

	// Load: creates (and their purchases) from four clients until the backup is done.
	var (
		mu       sync.Mutex
		accepted = map[string]bool{}
		stop     atomic.Bool
		wg       sync.WaitGroup
		failures atomic.Int64
	)
	for _, id := range before {
		accepted[id] = true
	}
	body, err := json.Marshal(labelBody())
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				id, err := createLabel(s.base, token, body)
				if err != nil {
					failures.Add(1)
					t.Errorf("create during the backup: %v", err)
					return
				}
				mu.Lock()
				accepted[id] = true
				mu.Unlock()
			}
		}()
	}
	// The backup starts once the load is under way (20 creates in).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(accepted)
		mu.Unlock()
		if n >= len(before)+20 || failures.Load() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the load made %d creates in 30 s", n)
		}
	}
	copyDir := t.TempDir()
	copyDB := filepath.Join(copyDir, "shipd.db")
	var report struct {
		To         string `json:"to"`
		Bytes      int64  `json:"bytes"`
		WebhookKey string `json:"webhookKey"`
	}
	cliOK(t, &report, "backup", "--db", db, "--to", copyDB)
	stop.Store(true)
	wg.Wait()
	if failures.Load() > 0 {
		t.FailNow()
	}
	if report.To != copyDB || report.Bytes == 0 || report.WebhookKey != filepath.Join(dir, "webhook.key") {
		t.Fatalf("backup report: %+v", report)
	}
	if code, _, stderr := cli(t, "backup", "--db", db, "--to", copyDB); code == 0 || !strings.Contains(stderr, "exists") {
		t.Fatalf("a second backup onto the first: exit %d, %s", code, stderr)
	}
	originalEvents := listAll(t, s, token, "/api/v1/events")

	// Restore as the README says: the copy and the key side by side. The
	// copy's server buys nothing and scans nothing, so it holds only what
	// was copied.
	key, err := os.ReadFile(report.WebhookKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(copyDir, "webhook.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	c := startServe(t, copyDB, "--purchase-workers", "0", "--sandbox-scan-interval", "1h")

	labels := listAll(t, c, token, "/api/v1/labels")
	purchased := 0
	for id, label := range labels {
		if !accepted[id] {
			t.Errorf("label %s in the copy was never accepted by the original", id)
		}
		if status, got := c.call(t, "GET", "/api/v1/labels/"+id, token, nil); status != 200 || got["status"] != label["status"] {
			t.Errorf("GET label %s from the copy: %d %v", id, status, got)
		}
		if label["status"] == "purchased" {
			purchased++
			if pdf := downloadLabel(t, c, token, id); !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Errorf("label %s from the copy: not a PDF", id)
			}
		}
	}
	for _, id := range before {
		if labels[id]["status"] != "purchased" {
			t.Errorf("label %s, purchased before the backup: %v in the copy", id, labels[id]["status"])
		}
	}
	events := listAll(t, c, token, "/api/v1/events")
	for id, ev := range events {
		if diff := cmp.Diff(originalEvents[id], ev); diff != "" {
			t.Errorf("event %s in the copy differs from the original's (-original +copy):\n%s", id, diff)
		}
	}
	if len(events) == 0 || purchased < len(before) {
		t.Fatalf("the copy holds %d events and %d purchased labels", len(events), purchased)
	}
	t.Logf("copy: %d labels (%d purchased) of %d accepted, %d events of %d", len(labels), purchased, len(accepted), len(events), len(originalEvents))
}

func waitStatus(t *testing.T, s *serveProc, token, id, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil)
		if got["status"] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("label %s: %v, not %s", id, got["status"], want)
		}
	}
}

// listAll reads every page of a list, by id.
func listAll(t *testing.T, s *serveProc, token, path string) map[string]map[string]any {
	t.Helper()
	all := map[string]map[string]any{}
	cursor := ""
	for {
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		status, page := s.call(t, "GET", path+"?"+q.Encode(), token, nil)
		if status != 200 {
			t.Fatalf("GET %s: %d %v", path, status, page)
		}
		data, _ := page["data"].([]any)
		for _, item := range data {
			m := item.(map[string]any)
			all[m["id"].(string)] = m
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			return all
		}
		cursor = next
	}
}

// createLabel is a label create that reports instead of failing the test:
// it runs on goroutines of the test's load.
func createLabel(base, token string, body []byte) (string, error) {
	req, err := http.NewRequest("POST", base+"/api/v1/labels/create", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var created struct {
		ID string `json:"id"`
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusAccepted || json.Unmarshal(raw, &created) != nil || created.ID == "" {
		return "", fmt.Errorf("%d %s", res.StatusCode, raw)
	}
	return created.ID, nil
}
