package main

// Failover between instances on PostgreSQL: heartbeats, the jobs of a dead
// instance taken back within seconds, a slow purchase on a live instance
// left alone, SIGTERM's hand-back, and heartbeats across a database outage.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/store/storetest"
)

// failoverCluster is a cluster whose instances buy live UPS labels from a
// fake UPS, with default failover flags unless a test adds its own.
type failoverCluster struct {
	*cluster
	ups   *upsfake.Server
	live  string // a live token
	flags []string
}

func newFailoverCluster(t *testing.T, flags ...string) *failoverCluster {
	t.Helper()
	c := newCluster(t)
	var acct struct{ ID string }
	c.cliJSON(&acct, "accounts", "create", "--db", c.db, "--name", "Failover")
	var tok struct{ Token string }
	c.cliJSON(&tok, "tokens", "create", "--db", c.db, "--account", acct.ID, "--mode", "live",
		"--scopes", "read:shipments,write:shipments")
	fake := upsfake.New(t)
	return &failoverCluster{cluster: c, ups: fake, live: tok.Token, flags: append([]string{
		"--ups-client-id", upsfake.ClientID, "--ups-client-secret", upsfake.ClientSecret,
		"--ups-account-number", upsfake.AccountNumber, "--ups-base-url", fake.URL(),
	}, flags...)}
}

// start runs an instance with the default --job-rescue-after and
// --instance-dead-after (unlike cluster.start) and waits until it is ready.
func (c *failoverCluster) start(name string, flags ...string) *instance {
	c.t.Helper()
	in := &instance{addr: freeAddr(c.t), logs: &syncBuffer{}}
	args := append([]string{"serve", "--db", c.db, "--addr", in.addr, "--label-store", c.labels,
		"--node-id", name, "--rate-limits-disabled"}, c.flags...)
	in.cmd = exec.Command(c.bin, append(args, flags...)...)
	in.cmd.Env = append(os.Environ(), "SHIPD_WEBHOOK_KEY="+c.webhookKey)
	in.cmd.Stdout, in.cmd.Stderr = io.Discard, in.logs
	if err := in.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = in.cmd.Process.Kill(); _ = in.cmd.Wait() })
	waitReady(c.t, in.addr)
	return in
}

// create accepts a live UPS label on in.
func (c *failoverCluster) create(in *instance, weight int) string {
	c.t.Helper()
	body := liveFedExBody()
	body["carrier"], body["service"] = "UPS", "Ground"
	body["parcel"] = map[string]any{"weightOz": weight}
	raw, err := json.Marshal(body)
	if err != nil {
		c.t.Fatal(err)
	}
	var created struct{ ID string }
	if code := call(c.t, "POST", in.url("/labels/create"), c.live, string(raw), &created); code != http.StatusAccepted {
		c.t.Fatalf("create: %d", code)
	}
	return created.ID
}

func (c *failoverCluster) status(in *instance, id string) string {
	var sh struct{ Status string }
	call(c.t, "GET", in.url("/labels/"+id), c.live, "", &sh)
	return sh.Status
}

// readyz is an instance's readiness payload.
type readyz struct {
	Status         string
	NodeID         string
	InstancesAlive []string
	JobsReclaimed  int64
}

func (in *instance) readyz(t *testing.T) readyz {
	t.Helper()
	var r readyz
	res, err := http.Get("http://" + in.addr + "/readyz")
	if err != nil {
		return r
	}
	defer res.Body.Close()
	_ = json.NewDecoder(res.Body).Decode(&r)
	return r
}

// waitSold waits until UPS has sold a label for each of ids (their answers held).
func (c *failoverCluster) waitSold(ids ...string) {
	c.t.Helper()
	waitFor(c.t, "UPS to sell the labels", func() bool {
		for _, id := range ids {
			if len(c.ups.Sales(id)) == 0 {
				return false
			}
		}
		return true
	})
}

// checkOnce: each label was sold by UPS exactly once.
func (c *failoverCluster) checkOnce(ids ...string) {
	c.t.Helper()
	for _, id := range ids {
		if n := len(c.ups.Sales(id)); n != 1 {
			c.t.Errorf("UPS sold %d labels for %s, want 1", n, id)
		}
	}
}

// TestKilledInstancesPurchasesResumeWithinSeconds: with the default flags,
// the purchases an instance was running when it was killed (SIGKILL) are
// finished by the survivor within 15 s of the kill, each bought once;
// River's rescuer alone would take more than 2 minutes.
func TestKilledInstancesPurchasesResumeWithinSeconds(t *testing.T) {
	t.Parallel()
	c := newFailoverCluster(t)
	a := c.start("a")
	c.ups.HoldShips()
	var ids []string
	for i := range 5 {
		ids = append(ids, c.create(a, 16+i))
	}
	c.waitSold(ids...) // a is running all five, each waiting for UPS's answer
	metricsAddr := freeAddr(t)
	b := c.start("b", "--metrics-addr", metricsAddr)
	waitFor(t, "b to see a alive", func() bool { return slices.Contains(b.readyz(t).InstancesAlive, "a") })

	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = a.cmd.Wait()
	c.ups.ReleaseShips()
	for _, id := range ids {
		for c.status(b, id) != "purchased" {
			if time.Since(killed) > time.Minute {
				t.Fatalf("label %s: %s a minute after the kill\n%s", id, c.status(b, id), b.logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	took := time.Since(killed)
	t.Logf("the killed instance's %d purchases finished %.1f s after the kill", len(ids), took.Seconds())
	if took > 15*time.Second {
		t.Errorf("the killed instance's purchases finished %.1f s after the kill, want within 15 s", took.Seconds())
	}
	c.checkOnce(ids...)
	// The purchases at least: an upkeep job a was running at the kill is taken back too.
	if r := b.readyz(t); r.JobsReclaimed < int64(len(ids)) || !slices.Equal(r.InstancesAlive, []string{"b"}) {
		t.Errorf("b's readyz %+v, want %d jobs reclaimed or more and only b alive", r, len(ids))
	}
	res, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	scrape, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(scrape), "\nshipd_instances_alive 1\n") {
		t.Errorf("b's metrics lack %q", "shipd_instances_alive 1")
	}
	var reclaimed int
	if i := strings.Index(string(scrape), "\n"+`shipd_jobs_reclaimed_total{reason="dead_instance"} `); i < 0 {
		t.Errorf("b's metrics lack shipd_jobs_reclaimed_total for a dead instance")
	} else if _, err := fmt.Sscan(string(scrape[i+len(`shipd_jobs_reclaimed_total{reason="dead_instance"} `)+1:]), &reclaimed); err != nil || reclaimed < len(ids) {
		t.Errorf("b's metrics count %d jobs reclaimed from a dead instance (%v), want %d or more", reclaimed, err, len(ids))
	}
	if !strings.Contains(b.logs.String(), `"took back the jobs of a dead instance"`) {
		t.Errorf("b did not log the take-back:\n%s", b.logs.String())
	}
}

// TestSlowPurchaseOnALiveInstanceIsNotTakenBack: a purchase whose carrier
// takes longer than the bound, on an instance that is alive, is left to it.
func TestSlowPurchaseOnALiveInstanceIsNotTakenBack(t *testing.T) {
	t.Parallel()
	c := newFailoverCluster(t)
	a, b := c.start("a"), c.start("b")
	c.ups.HoldShips()
	id := c.create(a, 20)
	c.waitSold(id)
	// UPS answers after 15 s: past the 10 s bound, within UPS's 20 s
	// time-out. Both instances heartbeat throughout.
	time.Sleep(15 * time.Second)
	c.ups.ReleaseShips()
	waitFor(t, "the slow purchase", func() bool { return c.status(b, id) == "purchased" })
	c.checkOnce(id)
	if n := c.ups.Requests(upsfake.OpShip); n != 1 {
		t.Errorf("UPS got %d ship requests, want 1", n)
	}
	for _, in := range []*instance{a, b} {
		r := in.readyz(t)
		if r.JobsReclaimed != 0 || !slices.Equal(r.InstancesAlive, []string{"a", "b"}) {
			t.Errorf("%s's readyz %+v, want nothing reclaimed and a, b alive", r.NodeID, r)
		}
		if strings.Contains(in.logs.String(), "took back") {
			t.Errorf("%s took a job back:\n%s", r.NodeID, in.logs.String())
		}
	}
}

// TestShutdownHandsBackUnfinishedJobs: SIGTERM with a purchase still
// waiting for the carrier when the grace ends hands it back, says so, and
// the other instance finishes it at once, bought once.
func TestShutdownHandsBackUnfinishedJobs(t *testing.T) {
	t.Parallel()
	c := newFailoverCluster(t)
	a := c.start("a", "--shutdown-grace", "1s")
	c.ups.HoldShips()
	id := c.create(a, 24)
	c.waitSold(id)
	b := c.start("b")
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	c.ups.ReleaseShips()
	if !strings.Contains(a.logs.String(), `"msg":"handed back unfinished jobs","jobs":1`) {
		t.Errorf("a did not log handing back its purchase:\n%s", a.logs.String())
	}
	waitFor(t, "b to finish the purchase", func() bool { return c.status(b, id) == "purchased" })
	c.checkOnce(id)
	// a marked itself gone: b sees it at its next heartbeat, not a bound later.
	waitFor(t, "b to see a gone", func() bool { return slices.Equal(b.readyz(t).InstancesAlive, []string{"b"}) })
}

// TestHeartbeatsSurviveADatabaseOutage: while the database refuses
// connections for longer than the bound, no instance can heartbeat; when it
// is back, they resume, and nobody takes back the other's live purchase.
func TestHeartbeatsSurviveADatabaseOutage(t *testing.T) {
	t.Parallel()
	const bound = 3 * time.Second
	c := newFailoverCluster(t, "--instance-dead-after", bound.String())
	a, b := c.start("a"), c.start("b")
	c.ups.HoldShips()
	id := c.create(a, 28)
	c.waitSold(id)
	name := c.db[strings.LastIndex(c.db, "/")+1:]
	if i := strings.Index(name, "?"); i >= 0 {
		name = name[:i]
	}
	admin := os.Getenv(storetest.DatabaseURLEnv)
	psql := func(sql string) {
		t.Helper()
		if out, err := exec.Command("psql", admin, "-c", sql).CombinedOutput(); err != nil {
			t.Fatalf("psql %s: %v\n%s", sql, err, out)
		}
	}
	psql("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false")
	psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'")
	time.Sleep(2 * bound) // every heartbeat is stale by the bound
	psql("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS true")
	for _, in := range []*instance{a, b} {
		waitFor(t, "heartbeats to resume", func() bool {
			return slices.Equal(in.readyz(t).InstancesAlive, []string{"a", "b"})
		})
	}
	time.Sleep(2 * bound) // long enough for a wrongful take-back to happen
	c.ups.ReleaseShips()
	waitFor(t, "the purchase", func() bool { return c.status(b, id) == "purchased" })
	c.checkOnce(id)
	if n := c.ups.Requests(upsfake.OpShip); n != 1 {
		t.Errorf("UPS got %d ship requests, want 1", n)
	}
	for _, in := range []*instance{a, b} {
		if r := in.readyz(t); r.JobsReclaimed != 0 {
			t.Errorf("%s's readyz %+v, want nothing reclaimed", r.NodeID, r)
		}
		if strings.Contains(in.logs.String(), "took back") {
			t.Errorf("an instance took a job back:\n%s", in.logs.String())
		}
	}
}
