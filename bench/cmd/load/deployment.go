package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver of the bench's own counts
	"github.com/jmoiron/sqlx"
)

// deployment is the shipd a phase loads: one server on a SQLite file, or one or
// more instances sharing a PostgreSQL database. Closed loops split their
// connections over the instances and open loops alternate their requests, so
// every instance takes an equal share; the results are merged.
type deployment struct {
	title    string // "SQLite", "PostgreSQL ×2"
	prefix   string // of its profile files: "" on SQLite, "pg1-", "pg2-"
	hooks    string // prefix of its webhook receiver paths: "" on SQLite, "/pg1", "/pg2"
	dir      string // its logs and files
	postgres bool
	nodes    []*shipd
	specs    []node // how each node was started, for restart
	restarts int
	pastPeak float64 // the largest VmHWM of instances stopped by restart
	db       *sql.DB // the bench's own counts: read-only on SQLite
	rejected int64   // the receiver's refused signatures when the deployment started
}

// startSQLite serves the SQLite file path with one shipd.
func startSQLite(ctx context.Context, c config, path string, rcv *receiver) (*deployment, error) {
	spec := node{db: path, log: filepath.Join(filepath.Dir(path), "shipd.log")}
	srv, err := startShipd(ctx, c, spec)
	if err != nil {
		return nil, err
	}
	t := &deployment{title: "SQLite", dir: filepath.Dir(path), nodes: []*shipd{srv}, specs: []node{spec}, rejected: rcv.rejected.Load()}
	if t.db, err = sql.Open("sqlite3", "file:"+path+"?mode=ro&_busy_timeout=10000"); err != nil {
		t.kill()
		return nil, err
	}
	t.db.SetMaxOpenConns(1)
	return t, nil
}

// startPostgres serves the PostgreSQL database dsn with instances shipd
// instances (--node-id a, b, …) sharing one label store (-pg-label-store;
// by default the database) and one webhook key, as a deployment of several
// instances would.
func startPostgres(ctx context.Context, c config, dsn, dir string, instances int, rcv *receiver) (*deployment, error) {
	labels := c.pgLabelStore
	if labels == "dir" {
		path := filepath.Join(dir, "labels")
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, err
		}
		labels = (&url.URL{Scheme: "file", Path: path}).String()
	}
	key := randomHex(32) // one webhook key for every instance
	t := &deployment{title: fmt.Sprintf("PostgreSQL ×%d", instances), prefix: fmt.Sprintf("pg%d-", instances),
		hooks: fmt.Sprintf("/pg%d", instances), dir: dir, postgres: true, rejected: rcv.rejected.Load()}
	for i := range instances {
		name := string(rune('a' + i))
		spec := node{db: dsn, log: filepath.Join(dir, "shipd-"+name+".log"), name: name,
			labels: labels, env: []string{"SHIPD_WEBHOOK_KEY=" + key}}
		srv, err := startShipd(ctx, c, spec)
		if err != nil {
			t.kill()
			return nil, err
		}
		t.nodes = append(t.nodes, srv)
		t.specs = append(t.specs, spec)
	}
	var err error
	if t.db, err = sql.Open("pgx", dsn); err != nil {
		t.kill()
		return nil, err
	}
	t.db.SetMaxOpenConns(1)
	return t, nil
}

// addr is the first instance's API address, for the requests that need one server.
func (t *deployment) addr() string { return t.nodes[0].addr }

// requests builds one request per instance (each with its own Host).
func (t *deployment) requests(method, path, token string, body []byte) [][]byte {
	out := make([][]byte, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = request(method, n.addr, path, token, body)
	}
	return out
}

// closedLoop runs closedLoop on every instance at once, conns split evenly
// (the first instances take the odd ones), and merges the results. next and
// check see a worker index unique over all the instances; next also gets the
// instance's index.
func (t *deployment) closedLoop(conns int, warm, d time.Duration, want int, next func(n, w, i int) []byte, check func(w int, status int, body []byte)) (loadResult, error) {
	rs := make([]loadResult, len(t.nodes))
	errs := make([]error, len(t.nodes))
	var wg sync.WaitGroup
	first := 0
	for n, srv := range t.nodes {
		share := conns / len(t.nodes)
		if n < conns%len(t.nodes) {
			share++
		}
		offset := first
		first += share
		wg.Add(1)
		go func() {
			defer wg.Done()
			var chk func(w, status int, body []byte)
			if check != nil {
				chk = func(w, status int, body []byte) { check(offset+w, status, body) }
			}
			rs[n], errs[n] = closedLoop(srv.addr, share, warm, d, want, func(w, i int) []byte { return next(n, offset+w, i) }, chk)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return loadResult{}, err
	}
	r := rs[0]
	for _, o := range rs[1:] {
		r = r.merge(o)
	}
	r.elapsed = d // the instances ran over the same window
	return r, nil
}

// openLoop runs openLoop with request i sent to instance i mod the number
// of instances, over conns connections split between them.
func (t *deployment) openLoop(conns, n int, interval time.Duration, reqs [][]byte) []sent {
	addrs := make([]string, len(t.nodes))
	for i, srv := range t.nodes {
		addrs[i] = srv.addr
	}
	return openLoop(addrs, conns, n, interval, reqs)
}

// count runs a count query (written with ?) on the bench's own connection.
func (t *deployment) count(ctx context.Context, query string, args ...any) (int, error) {
	if t.postgres {
		query = sqlx.Rebind(sqlx.DOLLAR, query)
	}
	var n int
	err := t.db.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// usedBytes is the database's size: on SQLite without free pages, as of the
// last commit (WAL included); on PostgreSQL pg_database_size, the files of
// the database (tables, indexes, TOAST, free space not yet reused; not the WAL).
func (t *deployment) usedBytes(ctx context.Context) (int64, error) {
	if t.postgres {
		var n int64
		err := t.db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
		return n, err
	}
	var pages, free, size int64
	for q, p := range map[string]*int64{"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free, "PRAGMA page_size": &size} {
		if err := t.db.QueryRowContext(ctx, q).Scan(p); err != nil {
			return 0, err
		}
	}
	return (pages - free) * size, nil
}

// profile takes a CPU profile of d of every instance into dir (see shipd.profile):
// name.prof on SQLite, pg1-name.prof, pg2-a-name.prof and pg2-b-name.prof on PostgreSQL.
func (t *deployment) profile(dir, name string, d time.Duration) (wait func()) {
	waits := make([]func(), len(t.nodes))
	for i, srv := range t.nodes {
		file := t.prefix + name
		if len(t.nodes) > 1 {
			file = t.prefix + srv.name + "-" + name
		}
		waits[i] = srv.profile(dir, file, d)
	}
	return func() {
		for _, w := range waits {
			w()
		}
	}
}

// peakRSSMiB is the largest peak resident set of the instances, those
// stopped by a restart included.
func (t *deployment) peakRSSMiB() float64 {
	m := t.pastPeak
	for _, srv := range t.nodes {
		m = max(m, srv.peakRSSMiB())
	}
	return m
}

// stop closes the bench's connection and stops every instance at once.
func (t *deployment) stop() error {
	if t.db != nil {
		t.db.Close()
	}
	return t.stopNodes()
}

// stopNodes stops every instance at once (SIGTERM).
func (t *deployment) stopNodes() error {
	errs := make([]error, len(t.nodes))
	var wg sync.WaitGroup
	for i, srv := range t.nodes {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = srv.stop() }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// restart stops every instance (SIGTERM) and starts each again as before,
// with flags added to its command line (none: as first started).
func (t *deployment) restart(ctx context.Context, c config, flags ...string) error {
	if err := t.stopForRestart(); err != nil {
		return err
	}
	return t.startAgain(ctx, c, flags...)
}

// stopForRestart is restart's first half: every instance stopped.
func (t *deployment) stopForRestart() error {
	t.pastPeak = t.peakRSSMiB()
	return t.stopNodes()
}

// startAgain is restart's second half: every instance started as before,
// with flags added, and ready.
func (t *deployment) startAgain(ctx context.Context, c config, flags ...string) error {
	for i, spec := range t.specs {
		spec.flags = flags
		spec.log = strings.TrimSuffix(spec.log, ".log") + fmt.Sprintf("-%d.log", t.restarts+1)
		srv, err := startShipd(ctx, c, spec)
		if err != nil {
			return err
		}
		t.nodes[i] = srv
	}
	t.restarts++
	return nil
}

func (t *deployment) kill() {
	for _, srv := range t.nodes {
		srv.kill()
	}
}

// rejectedSignatures is how many deliveries the receiver refused since the deployment started.
func (t *deployment) rejectedSignatures(rcv *receiver) int {
	return int(rcv.rejected.Load() - t.rejected)
}
