package main

// Several shipd processes on one PostgreSQL database, as behind a load
// balancer (make test-postgres gives the tests a throwaway server).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store/storetest"
	"github.com/shipd-dev/shipd/webhooks/signature"
)

// instance is one `shipd serve` process.
type instance struct {
	cmd  *exec.Cmd
	addr string
	logs *syncBuffer
}

// cluster is shipd on one PostgreSQL database with shared label storage and key.
type cluster struct {
	t          *testing.T
	bin, db    string
	labels     string
	token      string
	instances  []*instance
	webhookKey string
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres) to run several instances on PostgreSQL")
	}
	bin := shipdBinary(t)
	c := &cluster{t: t, bin: bin, db: storetest.NewDatabase(t),
		labels: "file://" + t.TempDir(), webhookKey: strings.Repeat("ab", 32)}
	var acct struct{ ID string }
	c.cliJSON(&acct, "accounts", "create", "--db", c.db, "--name", "Multi")
	var tok struct{ Token string }
	c.cliJSON(&tok, "tokens", "create", "--db", c.db, "--account", acct.ID, "--mode", "test",
		"--scopes", "read:shipments,write:shipments,read:webhooks,write:webhooks")
	c.token = tok.Token
	return c
}

func (c *cluster) cliJSON(into any, args ...string) {
	c.t.Helper()
	out, err := exec.Command(c.bin, args...).Output()
	if err != nil {
		c.t.Fatalf("shipd %s: %v", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out, into); err != nil {
		c.t.Fatalf("shipd %s: %v: %s", args[0], err, out)
	}
}

// start runs one more instance, with extra flags, and waits until it is ready.
func (c *cluster) start(name string, flags ...string) *instance {
	c.t.Helper()
	in := &instance{addr: freeAddr(c.t), logs: &syncBuffer{}}
	args := []string{"serve", "--db", c.db, "--addr", in.addr,
		"--node-id", name, "--sandbox-scan-interval", "200ms", "--rate-limits-disabled"}
	if c.labels != "" {
		args = append(args, "--label-store", c.labels)
	}
	in.cmd = exec.Command(c.bin, append(args, flags...)...)
	in.cmd.Env = append(os.Environ(), "SHIPD_WEBHOOK_KEY="+c.webhookKey)
	in.cmd.Stdout, in.cmd.Stderr = io.Discard, in.logs
	if err := in.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = in.cmd.Process.Kill(); _ = in.cmd.Wait() })
	waitReady(c.t, in.addr)
	c.instances = append(c.instances, in)
	return in
}

func (in *instance) url(path string) string { return "http://" + in.addr + "/api/v1" + path }

// receiver counts signed deliveries per event id.
type receiver struct {
	mu     sync.Mutex
	secret string
	got    map[string]int
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: map[string]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := signature.Verify(r.secret, req.Header, body, 0); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.got[req.Header.Get(signature.HeaderEventID)]++
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.got))
	for k, v := range r.got {
		out[k] = v
	}
	return out
}

const multiBody = `{"fromAddress":{"name":"Shop","phone":"415 555 0100","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
	"toAddress":{"name":"Ada","phone":"212 555 0199","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},
	"parcel":{"weightOz":%d}}`

// TestInstancesSurviveAKill runs two instances on one database, spreads
// creates over both, kills one (SIGKILL) in the middle of its purchases and
// deliveries, and checks that every accepted label is purchased exactly once
// and every purchase event delivered, by whichever instance is left. With the
// default flags: the killed instance's purchases are taken back once its
// heartbeat is 10 s stale, so every label is purchased within 15 s of the kill.
func TestInstancesSurviveAKill(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a, b := c.start("a"), c.start("b")
	rc := newReceiver(t)
	var hook struct{ SigningSecret string }
	if code := call(t, "POST", a.url("/webhooks"), c.token, fmt.Sprintf(`{"url":%q,"events":["shipment.purchased"]}`, rc.srv.URL+"/hook"), &hook); code != http.StatusCreated {
		t.Fatalf("subscribe: %d", code)
	}
	rc.mu.Lock()
	rc.secret = hook.SigningSecret
	rc.mu.Unlock()

	const labels = 80
	ids := make([]string, 0, labels)
	var killed time.Time
	for i := range labels {
		target := a
		if i%2 == 1 {
			target = b
		}
		if i == labels/2 {
			// Kill a while its purchases and deliveries are in flight.
			if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = time.Now()
		}
		if i >= labels/2 {
			target = b
		}
		var created struct{ ID string }
		if code := call(t, "POST", target.url("/labels/create"), c.token, fmt.Sprintf(multiBody, 16+i), &created); code != http.StatusAccepted {
			t.Fatalf("create %d: %d", i, code)
		}
		ids = append(ids, created.ID)
	}

	// Every label is purchased, by whichever instance is left.
	deadline := time.Now().Add(90 * time.Second)
	for _, id := range ids {
		for {
			var sh struct{ Status string }
			call(t, "GET", b.url("/labels/"+id), c.token, "", &sh)
			if sh.Status == "purchased" {
				break
			}
			if sh.Status == "failed" || time.Now().After(deadline) {
				t.Fatalf("label %s: %s\n%s", id, sh.Status, b.logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	took := time.Since(killed)
	t.Logf("every label purchased %.1f s after the kill", took.Seconds())
	if took > 15*time.Second {
		t.Errorf("every label purchased %.1f s after the kill, want within 15 s", took.Seconds())
	}
	// Exactly one purchase event per label, each delivered.
	events := map[string]string{} // event id → shipment id
	perShipment := map[string]int{}
	cursor := ""
	for {
		var page struct {
			Data []struct {
				ID   string
				Data struct{ ID string }
			}
			NextCursor *string
		}
		call(t, "GET", b.url("/events?type=shipment.purchased&limit=100"+cursor), c.token, "", &page)
		for _, e := range page.Data {
			events[e.ID] = e.Data.ID
			perShipment[e.Data.ID]++
		}
		if page.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *page.NextCursor
	}
	for _, id := range ids {
		if perShipment[id] != 1 {
			t.Errorf("label %s has %d shipment.purchased events, want 1", id, perShipment[id])
		}
	}
	deadline = time.Now().Add(90 * time.Second)
	for {
		got := rc.received()
		missing := 0
		for id := range events {
			if got[id] == 0 {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d purchase events never delivered", missing, len(events))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestInstancesShareLabelsInTheDatabase starts two instances without
// --label-store: labels are rows of PostgreSQL, so a label bought by one
// instance is served by the other. The instance taking the create buys
// nothing (--purchase-workers 0), so the document it serves was written by
// the other.
func TestInstancesShareLabelsInTheDatabase(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.labels = ""
	api := c.start("api", "--purchase-workers", "0")
	buyer := c.start("buyer")
	var created struct{ ID string }
	if code := call(t, "POST", api.url("/labels/create"), c.token, fmt.Sprintf(multiBody, 20), &created); code != http.StatusAccepted {
		t.Fatalf("create: %d", code)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var sh struct{ Status string }
		call(t, "GET", api.url("/labels/"+created.ID), c.token, "", &sh)
		if sh.Status == "purchased" {
			break
		}
		if sh.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("label %s: %s\n%s", created.ID, sh.Status, buyer.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, in := range []*instance{api, buyer} {
		req, _ := http.NewRequest("GET", in.url("/labels/"+created.ID+"/label.pdf"), nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "%PDF-") {
			t.Errorf("GET label.pdf from %s: %d %.80q", in.addr, res.StatusCode, body)
		}
	}
}

// TestIdempotentCreatesAcrossInstances sends 50 identical creates with one
// idempotency key at once, spread over two instances: one label.
func TestIdempotentCreatesAcrossInstances(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a, b := c.start("a"), c.start("b")
	body := strings.Replace(fmt.Sprintf(multiBody, 32), `"parcel"`, `"idempotencyKey":"order-42","parcel"`, 1)
	ids := make([]string, 50)
	var wg sync.WaitGroup
	for i := range ids {
		target := a
		if i%2 == 1 {
			target = b
		}
		wg.Go(func() {
			var created struct{ ID string }
			code := call(t, "POST", target.url("/labels/create"), c.token, body, &created)
			if code != http.StatusAccepted && code != http.StatusConflict {
				t.Errorf("create: %d", code)
			}
			ids[i] = created.ID
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			seen[id] = true
		}
	}
	var list struct{ Data []struct{ ID string } }
	call(t, "GET", b.url("/labels"), c.token, "", &list)
	if len(seen) != 1 || len(list.Data) != 1 {
		t.Fatalf("%d distinct ids answered, %d labels stored; want 1 and 1", len(seen), len(list.Data))
	}
}

// TestReadyzFollowsTheDatabase: not ready while the database refuses
// connections, ready again by itself once it is back.
func TestReadyzFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	a := c.start("a")
	name := c.db[strings.LastIndex(c.db, "/")+1:]
	if i := strings.Index(name, "?"); i >= 0 {
		name = name[:i]
	}
	admin := os.Getenv(storetest.DatabaseURLEnv)
	psql := func(sql string) {
		t.Helper()
		if out, err := exec.CommandContext(context.Background(), "psql", admin, "-c", sql).CombinedOutput(); err != nil {
			t.Fatalf("psql %s: %v\n%s", sql, err, out)
		}
	}
	readyz := func() int {
		res, err := http.Get("http://" + a.addr + "/readyz")
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	psql("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false")
	psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'")
	waitFor(t, "readyz to fail", func() bool { return readyz() == http.StatusServiceUnavailable })
	psql("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS true")
	waitFor(t, "readyz to recover", func() bool { return readyz() == http.StatusOK })
	var created struct{ ID string }
	if code := call(t, "POST", a.url("/labels/create"), c.token, fmt.Sprintf(multiBody, 20), &created); code != http.StatusAccepted {
		t.Fatalf("create after the database came back: %d", code)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
