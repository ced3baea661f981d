package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/webhooks/signature"
)

// builtBinary is bin/shipd built once by TestMain for the tests that run it
// as a process; "" under -short, where those tests are skipped.
var builtBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Short() {
		dir, err := os.MkdirTemp("", "shipd-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		builtBinary = filepath.Join(dir, "shipd")
		if out, err := exec.Command("go", "build", "-o", builtBinary, ".").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build shipd: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// shipdBinary is the built binary, or skips the test under -short.
func shipdBinary(t *testing.T) string {
	t.Helper()
	if builtBinary == "" {
		t.Skip("builds and runs the binary")
	}
	return builtBinary
}

// TestPurchaseSurvivesKill kills the server (SIGKILL) while a purchase is
// under way and starts it again on the same database: the label ends up
// purchased, exactly once.
func TestPurchaseSurvivesKill(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")

	addr := freeAddr(t)
	first, stdout := startServeBinary(t, bin, db, addr)
	token := demoToken(t, stdout)
	waitReady(t, addr)

	// Slow Carrier holds the purchase for 3 s: long enough to kill the server mid-purchase.
	body := `{"fromAddress":{"name":"Shop","phone":"415 555 0100","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
		"toAddress":{"name":"Slow Carrier","phone":"212 555 0199","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},
		"parcel":{"weightOz":32}}`
	var created struct{ ID, Status string }
	res := call(t, "POST", "http://"+addr+"/api/v1/labels/create", token, body, &created)
	if res != http.StatusAccepted || created.Status != "paying" {
		t.Fatalf("create: %d %+v", res, created)
	}
	time.Sleep(500 * time.Millisecond) // the purchase job is now running in the slow carrier
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	second, _ := startServeBinary(t, bin, db, addr)
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	waitReady(t, addr)

	deadline := time.Now().Add(20 * time.Second)
	var got struct{ Status, TrackingNumber string }
	for time.Now().Before(deadline) {
		call(t, "GET", "http://"+addr+"/api/v1/labels/"+created.ID, token, "", &got)
		if got.Status == "purchased" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got.Status != "purchased" || got.TrackingNumber == "" {
		t.Fatalf("after restart the label is %+v, want purchased", got)
	}
	var events struct {
		Data []struct{ Type string } `json:"data"`
	}
	call(t, "GET", "http://"+addr+"/api/v1/events?type=shipment.purchased", token, "", &events)
	if len(events.Data) != 1 {
		t.Fatalf("shipment.purchased recorded %d times, want once", len(events.Data))
	}
}

// TestBatchJobSurvivesKill kills the server (SIGKILL) while a job buying
// several labels of a batch waits on the carrier for its first, and starts
// it again on the same database: every label of the batch ends up purchased,
// each once. With one purchase worker, the batch's three labels are one job.
func TestBatchJobSurvivesKill(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	addr := freeAddr(t)
	first, stdout := startServeBinary(t, bin, db, addr, "--purchase-workers", "1")
	token := demoToken(t, stdout)
	waitReady(t, addr)

	item := func(name string) string {
		return `{"fromAddress":{"name":"Shop","phone":"415 555 0100","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
			"toAddress":{"name":"` + name + `","phone":"212 555 0199","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},
			"parcel":{"weightOz":32}}`
	}
	// Slow Carrier holds the first label's purchase for 3 s.
	body := `{"shipments":[` + item("Slow Carrier") + `,` + item("Ada Lovelace") + `,` + item("Grace Hopper") + `]}`
	var batch struct{ ID, Status string }
	if res := call(t, "POST", "http://"+addr+"/api/v1/batches", token, body, &batch); res != http.StatusAccepted {
		t.Fatalf("POST /batches: %d %+v", res, batch)
	}
	time.Sleep(500 * time.Millisecond) // the batch's job is now waiting on the slow carrier
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	second, _ := startServeBinary(t, bin, db, addr, "--purchase-workers", "1")
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	waitReady(t, addr)
	var got struct {
		Status string
		Counts struct{ Total, Purchased int }
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		call(t, "GET", "http://"+addr+"/api/v1/batches/"+batch.ID, token, "", &got)
		if got.Status == "completed" {
			break
		}
	}
	if got.Status != "completed" || got.Counts.Total != 3 || got.Counts.Purchased != 3 {
		t.Fatalf("after the restart the batch is %+v, want completed with 3 purchased", got)
	}
	var events struct {
		Data []struct {
			Data struct{ ID string } `json:"data"`
		} `json:"data"`
	}
	call(t, "GET", "http://"+addr+"/api/v1/events?type=shipment.purchased", token, "", &events)
	seen := map[string]int{}
	for _, e := range events.Data {
		seen[e.Data.ID]++
	}
	if len(events.Data) != 3 || len(seen) != 3 {
		t.Fatalf("shipment.purchased recorded %d times for %d shipments, want once for each of 3: %v", len(events.Data), len(seen), seen)
	}
}

func TestServeRefusesASecondServerOnOneDatabase(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")
	addr := freeAddr(t)
	first, _ := startServeBinary(t, bin, db, addr)
	defer func() { _ = first.Process.Signal(syscall.SIGTERM); _ = first.Wait() }()
	waitReady(t, addr)

	out, err := exec.Command(bin, "serve", "--db", db, "--addr", freeAddr(t)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another shipd server is using this database") {
		t.Fatalf("second server: err %v, output %s", err, out)
	}
}

func startServeBinary(t *testing.T, bin, db, addr string, flags ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--db", db, "--addr", addr, "--sandbox-scan-interval", "1h"}, flags...)...)
	cmd.Env = append(os.Environ(), "SHIPD_WEBHOOK_KEY=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, bufio.NewReader(out)
}

// demoToken reads the token the first start prints.
func demoToken(t *testing.T, stdout *bufio.Reader) string {
	t.Helper()
	var buf bytes.Buffer
	for {
		line, err := stdout.ReadString('\n')
		buf.WriteString(line)
		if strings.HasPrefix(line, "}") {
			break
		}
		if err != nil {
			t.Fatalf("no demo token printed: %v\n%s", err, buf.String())
		}
	}
	var demo struct{ Token string }
	if err := json.Unmarshal(buf.Bytes(), &demo); err != nil || demo.Token == "" {
		t.Fatalf("demo output %q: %v", buf.String(), err)
	}
	return demo.Token
}

func waitReady(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get("http://" + addr + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server on %s never became ready", addr)
}

func call(t *testing.T, method, url, token, body string, into any) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if into != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, raw)
		}
	}
	return res.StatusCode
}

// TestDeliverySurvivesKill kills the server while a webhook delivery is in
// flight (the receiver holds the request) and starts it again: the event is
// delivered, signed, with the same event id.
func TestDeliverySurvivesKill(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")

	var (
		mu       sync.Mutex
		received []http.Header
		secret   string
	)
	inFlight := make(chan struct{}, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		first := len(received) == 0
		if err := signature.Verify(secret, r.Header, body, 0); err != nil {
			t.Errorf("delivery signature: %v", err)
		}
		received = append(received, r.Header.Clone())
		mu.Unlock()
		if first {
			inFlight <- struct{}{}
			<-r.Context().Done() // the first attempt never completes: the server is killed meanwhile
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	addr := freeAddr(t)
	first, stdout := startServeBinary(t, bin, db, addr)
	token := demoToken(t, stdout)
	waitReady(t, addr)

	var sub struct{ ID, SigningSecret string }
	if st := call(t, "POST", "http://"+addr+"/api/v1/webhooks", token,
		`{"url":"`+receiver.URL+`/hooks","events":["shipment.purchased"]}`, &sub); st != http.StatusCreated {
		t.Fatalf("subscribe: %d", st)
	}
	mu.Lock()
	secret = sub.SigningSecret
	mu.Unlock()
	body := `{"fromAddress":{"name":"Shop","phone":"415 555 0100","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
		"toAddress":{"name":"Ada","phone":"212 555 0199","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},
		"parcel":{"weightOz":32}}`
	if st := call(t, "POST", "http://"+addr+"/api/v1/labels/create", token, body, nil); st != http.StatusAccepted {
		t.Fatalf("create: %d", st)
	}
	select {
	case <-inFlight:
	case <-time.After(15 * time.Second):
		t.Fatal("the delivery never reached the receiver")
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	second, _ := startServeBinary(t, bin, db, addr)
	defer func() { _ = second.Process.Signal(syscall.SIGTERM); _ = second.Wait() }()
	waitReady(t, addr)

	deadline := time.Now().Add(20 * time.Second)
	var log struct {
		Data []struct{ Status, EventType string } `json:"data"`
	}
	for time.Now().Before(deadline) {
		call(t, "GET", "http://"+addr+"/api/v1/webhooks/"+sub.ID+"/deliveries", token, "", &log)
		if len(log.Data) == 1 && log.Data[0].Status == "delivered" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(log.Data) != 1 || log.Data[0].Status != "delivered" || log.Data[0].EventType != "shipment.purchased" {
		t.Fatalf("delivery log after restart: %+v, want one delivered shipment.purchased", log.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(received) < 2 {
		t.Fatalf("receiver got %d requests, want the interrupted one and the redelivery", len(received))
	}
	if a, b := received[0].Get("X-Service-Event-Id"), received[len(received)-1].Get("X-Service-Event-Id"); a == "" || a != b {
		t.Fatalf("event ids %q and %q: a redelivery must carry the same event id", a, b)
	}
}
