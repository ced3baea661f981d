package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shipd-dev/shipd/store"
)

// pgPhases are the phases that run again on PostgreSQL (not the 1M scale).
var pgPhases = []string{"read", "write", "purchase", "e2e", "fanout"}

// postgresRuns runs the read, write, end-to-end and fan-out phases on a fresh
// PostgreSQL database with one shipd instance, then on another with two
// instances, with the PostgreSQL durations (-pg-*-duration). The databases
// are dropped at the end unless -keep.
func postgresRuns(ctx context.Context, c config, res *results, dir string, rcv *receiver) error {
	admin, err := sql.Open("pgx", c.postgres)
	if err != nil {
		return errors.New("-postgres: the URL does not parse (not shown: it may hold a password)")
	}
	defer admin.Close()
	if err := admin.QueryRowContext(ctx, "SHOW server_version").Scan(&res.PostgresVersion); err != nil {
		return fmt.Errorf("PostgreSQL at %s: %w", redact(c.postgres), err)
	}
	logf("PostgreSQL %s at %s", res.PostgresVersion, redact(c.postgres))
	pc := c
	pc.readDuration, pc.writeDuration, pc.e2eDuration = c.pgReadDuration, c.pgWriteDuration, c.pgE2EDuration
	pc.purchaseLabels = c.pgPurchaseLabels
	for _, instances := range []int{1, 2} {
		out, err := postgresRun(ctx, pc, admin, filepath.Join(dir, fmt.Sprintf("pg%d", instances)), instances, res, rcv)
		if err != nil {
			return fmt.Errorf("PostgreSQL ×%d: %w", instances, err)
		}
		res.Postgres = append(res.Postgres, out)
	}
	return nil
}

// postgresRun seeds a new database and runs the phases on instances shipd instances.
func postgresRun(ctx context.Context, c config, admin *sql.DB, dir string, instances int, res *results, rcv *receiver) (postgresResult, error) {
	out := postgresResult{Instances: instances}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, err
	}
	name := "shipd_bench_" + randomHex(8)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return out, fmt.Errorf("create database: %w", err)
	}
	if c.keep {
		logf("PostgreSQL ×%d: database %s (kept)", instances, name)
	} else {
		defer func() {
			if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
				logf("drop database %s: %v", name, err)
			}
		}()
	}
	dsn, err := withDatabase(c.postgres, name)
	if err != nil {
		return out, err
	}
	logf("PostgreSQL ×%d: seeding %d shipments into %s", instances, c.smallRows, name)
	db, err := preparePostgres(ctx, dsn, c.smallRows)
	if err != nil {
		return out, fmt.Errorf("seed: %w", err)
	}
	out.Rows, out.SeedSeconds = db.Rows, db.Duration.Seconds()
	srv, err := startPostgres(ctx, c, dsn, dir, instances, rcv)
	if err != nil {
		return out, err
	}
	defer srv.kill()
	var baseline *stat
	if c.runs("read") {
		baseline = &res.Read.Baseline
	}
	if err := runPhases(ctx, c, srv, []step{
		{"read", fmt.Sprintf("read path: shipd at %d connections", c.readConns), func() error { return readPhase(ctx, c, srv, db, &out.Read, baseline) }},
		{"write", fmt.Sprintf("write path: %d connections", c.writeConns), func() error {
			return writePhase(ctx, c, srv, db, &out.Write, &out.DBBytesPerAPIShipment)
		}},
		{"purchase", fmt.Sprintf("purchases: %d labels queued, then the workers started", c.purchaseLabels), func() error { return purchasePhase(ctx, c, srv, db, &out.Purchase) }},
		{"e2e", fmt.Sprintf("end to end: %d creates/s for %s", c.e2eRate, c.e2eDuration), func() error { return e2ePhase(ctx, c, srv, db, rcv, &out.EndToEnd) }},
		{"fanout", fmt.Sprintf("fan-out: %d shipments to %d subscriptions", c.fanoutShipments, c.fanoutSubs), func() error { return fanoutPhase(ctx, c, srv, db, rcv, &out.Fanout) }},
	}); err != nil {
		return out, err
	}
	out.PeakRSSMiB = srv.peakRSSMiB()
	return out, srv.stop()
}

// preparePostgres gives the empty database dsn shipd's schema (store.Open
// applies the migrations), the bench accounts (through the accounts
// service) and rows purchased shipments of the scale account, each with a
// tracker (PostgreSQL enforces the foreign key of the events) and two
// tracking events: the same rows as the SQLite seeding, copied in with COPY
// in one transaction, then ANALYZE.
func preparePostgres(ctx context.Context, dsn string, rows int) (*seeded, error) {
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	out := &seeded{Path: dsn, Accounts: map[string]benchAccount{}, Rows: rows}
	err = createAccounts(ctx, st, out)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}

	start := time.Now()
	gen, err := newSeedRows(out, rows)
	if err != nil {
		return nil, err
	}
	acct := out.Accounts["scale"].ID
	shipments := make([][]any, 0, rows)
	trackers := make([][]any, 0, rows)
	events := make([][]any, 0, 2*rows)
	for k := range rows {
		r := gen.row(k)
		shipments = append(shipments, []any{r.id, acct, "test", "purchased", r.created, r.purchased,
			r.carrier, r.service, r.category, r.rate, int64(8), r.price, int64(0), r.price, "USD", int32(r.days), r.request, "api",
			r.trackingNumber, r.labelKey, r.tracker, "in_transit", r.purchased})
		eta := r.purchased.Add(time.Duration(r.days) * 24 * time.Hour)
		trackers = append(trackers, []any{r.tracker, acct, "test", r.id, r.carrier, r.trackingNumber, "in_transit", eta, "[]", r.purchased, r.purchased})
		events = append(events,
			[]any{r.tracker, int32(0), "pre_transit", "Shipping label created", "San Francisco, CA", r.purchased.Add(time.Hour)},
			[]any{r.tracker, int32(1), "in_transit", "Departed origin facility", "San Francisco, CA", r.purchased.Add(2 * time.Hour)})
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.Background())
	for _, t := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"shipments", []string{"id", "account_id", "mode", "status", "created_at", "updated_at",
			"carrier", "service", "service_category", "carrier_rate_cents", "platform_fee_cents", "customer_price_cents", "balance_applied_cents",
			"charge_amount_cents", "currency", "estimated_days", "request", "source",
			"tracking_number", "label_key", "tracker_id", "tracking_status", "purchased_at"}, shipments},
		{"trackers", []string{"id", "account_id", "mode", "shipment_id", "carrier", "tracking_number", "status", "estimated_delivery_at", "plan", "created_at", "updated_at"}, trackers},
		{"tracking_events", []string{"tracker_id", "scan_index", "status", "message", "location", "occurred_at"}, events},
	} {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.table}, t.cols, pgx.CopyFromRows(t.rows)); err != nil {
			return nil, fmt.Errorf("copy %s: %w", t.table, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		return nil, err
	}
	out.Duration = time.Since(start)
	return out, nil
}

// withDatabase is the admin URL pointed at another database.
func withDatabase(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil || !store.IsPostgres(admin) {
		return "", errors.New("-postgres: want a postgres:// URL (not shown: it may hold a password)")
	}
	u.Path = "/" + name
	return u.String(), nil
}

// redact is a URL safe to log: its password is replaced.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(an unparsable URL)"
	}
	return u.Redacted()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
