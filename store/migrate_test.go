package store_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// oldSQLiteNumbering is SQLite's numbering before the one line, as
// databases of that time recorded it in schema_migrations.
var oldSQLiteNumbering = []string{
	"0001_accounts_tokens.sql", "0002_labels.sql", "0003_webhook_deliveries.sql", "0004_idempotency.sql",
	"0005_idempotency_committed.sql", "0006_idempotency_results.sql", "0007_carrier_shipment_id.sql",
	"0008_ui.sql", "0009_webhook_deliveries_retrying.sql", "0010_documents.sql", "0011_purchase_attempts.sql",
	"0012_returns.sql", "0013_standalone_trackers.sql", "0014_label_formats.sql", "0015_batches.sql",
	"0016_instances.sql", "0017_manifests.sql", "0018_pickups.sql", "0019_carrier_accounts.sql",
	"0020_packages.sql", "0021_tracker_carrier_accounts.sql", "0022_shipment_delivery_dates.sql",
	"0023_end_of_day_carrier_accounts.sql", "0024_batch_customs_items.sql", "0025_carrier_account_credentials.sql",
	"0026_tracker_ends.sql",
}

func migrationFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := fs.Glob(store.Migrations(), "migrations/"+dir+"/*.sql")
	must(t, err, "glob")
	sort.Strings(paths)
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = path.Base(p)
	}
	return names
}

// One line: every change has one number, the same file name on both
// databases, and no number is used twice.
func TestMigrationLine(t *testing.T) {
	sqlite, postgres := migrationFiles(t, "sqlite"), migrationFiles(t, "postgres")
	if diff := cmp.Diff(sqlite, postgres); diff != "" {
		t.Errorf("SQLite's and PostgreSQL's migrations differ (-sqlite +postgres):\n%s", diff)
	}
	seen := map[string]string{}
	for _, n := range sqlite {
		num, _, _ := strings.Cut(n, "_")
		if other, ok := seen[num]; ok {
			t.Errorf("%s and %s share a number", other, n)
		}
		seen[num] = n
	}
}

// oldSQLiteFile is the file that made the old numbering's migration old:
// one of the first seven kept in legacy-sqlite, or the one line's file of
// the same name after its number.
func oldSQLiteFile(t *testing.T, old string) string {
	t.Helper()
	if _, err := fs.Stat(store.Migrations(), "migrations/legacy-sqlite/"+old); err == nil {
		return "migrations/legacy-sqlite/" + old
	}
	_, rest, _ := strings.Cut(old, "_")
	for _, n := range migrationFiles(t, "sqlite") {
		if _, r, _ := strings.Cut(n, "_"); r == rest {
			return "migrations/sqlite/" + n
		}
	}
	t.Fatalf("no file makes %s", old)
	return ""
}

// makeOldSQLite makes the SQLite database path as a shipd of the old
// numbering left it after its migrations up to and including upTo, with an
// account in it.
func makeOldSQLite(t *testing.T, ctx context.Context, path string, names []string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=on")
	must(t, err, "open")
	defer db.Close()
	_, err = db.ExecContext(ctx, `CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMP NOT NULL)`)
	must(t, err, "schema_migrations")
	for _, old := range names {
		body, err := fs.ReadFile(store.Migrations(), oldSQLiteFile(t, old))
		must(t, err, old)
		_, err = db.ExecContext(ctx, string(body))
		must(t, err, "apply ", old)
		_, err = db.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, old, time.Now().UTC())
		must(t, err, "record ", old)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO accounts (id, name, created_at) VALUES ('acct_old', 'Old', ?)`, time.Now().UTC())
	must(t, err, "account")
}

func freshSQLiteSchema(t *testing.T, ctx context.Context) schema {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fresh.db")
	s, err := store.Open(ctx, path)
	must(t, err, "open fresh")
	must(t, s.Close(), "close fresh")
	db, err := sql.Open("sqlite3", "file:"+path)
	must(t, err, "open fresh")
	defer db.Close()
	return sqliteSchema(t, ctx, db)
}

// A SQLite database of the old numbering, wherever its migrations stopped,
// opens: its schema_migrations is renumbered in one transaction, the
// changes it lacked are applied, its rows are kept, and it ends with the
// schema of a database made today, recorded by the one line's names.
func TestSQLiteUpgradeFromOldNumbering(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	want := freshSQLiteSchema(t, ctx)
	line := migrationFiles(t, "sqlite")
	for _, stop := range []int{26, 25, 15, 4, 1} {
		t.Run(oldSQLiteNumbering[stop-1], func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "old.db")
			makeOldSQLite(t, ctx, path, oldSQLiteNumbering[:stop])
			for range 2 { // a second start finds nothing to do
				s, err := store.Open(ctx, path)
				must(t, err, "open a database of the old numbering")
				if _, err := s.Account(ctx, "acct_old"); err != nil {
					t.Errorf("the account made before the renumbering: %v", err)
				}
				must(t, s.Close(), "close")
			}
			db, err := sql.Open("sqlite3", "file:"+path)
			must(t, err, "open")
			defer db.Close()
			if diff := cmp.Diff(line, migrationNames(t, ctx, db)); diff != "" {
				t.Errorf("schema_migrations after the upgrade (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, sqliteSchema(t, ctx, db)); diff != "" {
				t.Errorf("schema after the upgrade differs from a fresh database's (-fresh +upgraded):\n%s", diff)
			}
		})
	}
}

// A database of the old numbering that records a migration this shipd
// does not know (a newer shipd's) is left as it is.
func TestSQLiteOldNumberingWithUnknownMigration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	makeOldSQLite(t, ctx, path, oldSQLiteNumbering)
	db, err := sql.Open("sqlite3", "file:"+path)
	must(t, err, "open")
	_, err = db.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ('0099_future.sql', ?)`, time.Now().UTC())
	must(t, err, "record")
	must(t, db.Close(), "close")
	s, err := store.Open(ctx, path)
	if err == nil {
		s.Close()
	}
	if !errors.Is(err, store.ErrUnknownMigration) {
		t.Fatalf("open = %v, want ErrUnknownMigration", err)
	}
}

// postgresDB opens the fresh, empty PostgreSQL database dsn names, for SQL of the test's own.
func postgresDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	must(t, err, "open PostgreSQL")
	t.Cleanup(func() { db.Close() })
	return db
}

// emptyPostgres makes an empty PostgreSQL database (no template, no migration).
func emptyPostgres(t *testing.T) string {
	t.Helper()
	dsn := storetest.NewDatabase(t)
	db := postgresDB(t, dsn)
	// The test databases are copies of a migrated template: empty this one.
	_, err := db.ExecContext(t.Context(), `DROP SCHEMA public CASCADE; CREATE SCHEMA public`)
	must(t, err, "empty the database")
	return dsn
}

// A PostgreSQL database migrated before the one line recorded the names it
// has today (PostgreSQL's numbering is the line): it opens with nothing to
// rename, applies nothing twice, and ends with a fresh database's schema.
func TestPostgresUpgradeFromOldNumbering(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres)")
	}
	t.Parallel()
	ctx := t.Context()
	fresh := postgresDB(t, storetest.NewDatabase(t))
	want := postgresSchema(t, ctx, fresh)
	line := migrationFiles(t, "postgres")

	dsn := emptyPostgres(t)
	db := postgresDB(t, dsn)
	_, err := db.ExecContext(ctx, `CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMP NOT NULL)`)
	must(t, err, "schema_migrations")
	for _, name := range line {
		body, err := fs.ReadFile(store.Migrations(), "migrations/postgres/"+name)
		must(t, err, name)
		_, err = db.ExecContext(ctx, string(body))
		must(t, err, "apply ", name)
		_, err = db.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)`, name, time.Now().UTC())
		must(t, err, "record ", name)
	}
	_, err = db.ExecContext(ctx, `INSERT INTO accounts (id, name, created_at) VALUES ('acct_old', 'Old', now())`)
	must(t, err, "account")
	s, err := store.Open(ctx, dsn)
	must(t, err, "open a database of the old numbering")
	if _, err := s.Account(ctx, "acct_old"); err != nil {
		t.Errorf("the account made before: %v", err)
	}
	must(t, s.Close(), "close")
	if diff := cmp.Diff(line, migrationNames(t, ctx, db)); diff != "" {
		t.Errorf("schema_migrations after the upgrade (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, postgresSchema(t, ctx, db)); diff != "" {
		t.Errorf("schema after the upgrade differs from a fresh database's (-fresh +upgraded):\n%s", diff)
	}
}

// Both databases end with the same tables, columns (type class, NOT NULL,
// primary key), indexes, foreign keys and CHECK constraints, as far as the
// dialects allow (see typeClass).
func TestSchemaParity(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("set " + storetest.DatabaseURLEnv + " (or run make test-postgres)")
	}
	t.Parallel()
	ctx := t.Context()
	pg := postgresSchema(t, ctx, postgresDB(t, storetest.NewDatabase(t)))
	lite := spellAsPostgres(freshSQLiteSchema(t, ctx))
	if diff := cmp.Diff(lite, pg); diff != "" {
		t.Errorf("the schemas differ (-sqlite +postgres):\n%s", diff)
	}
}

// spellAsPostgres turns what SQLite cannot say as PostgreSQL does into
// PostgreSQL's words, each for its reason; everything else must match.
func spellAsPostgres(lite schema) schema {
	// SQLite numbers rows only through an INTEGER PRIMARY KEY, so its
	// trackers' key is seq (in creation order, for the list) and id is
	// unique; PostgreSQL's key is id, and seq a unique identity.
	if tb, ok := lite["trackers"]; ok {
		id, seq := tb.Columns["id"], tb.Columns["seq"]
		id.Key, seq.Key = true, false
		tb.Columns["id"], tb.Columns["seq"] = id, seq
		for i, ix := range tb.Indexes {
			if ix == "(id) unique" {
				tb.Indexes[i] = "(seq) unique"
			}
		}
		sort.Strings(tb.Indexes)
	}
	// Heartbeats are written and compared by datetime() on SQLite, as
	// text; no code reads them into a time.
	if tb, ok := lite["instances"]; ok {
		for _, c := range []string{"seen_at", "alive_since"} {
			col := tb.Columns[c]
			col.Type = "time"
			tb.Columns[c] = col
		}
	}
	return lite
}
