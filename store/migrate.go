package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/riverqueue/river/rivermigrate"
)

// shipd's schema changes form one line, numbered once for both databases
// (as River numbers its migrations once for every driver): the change
// numbered 0009 is migrations/sqlite/0009_batches.sql on SQLite and
// migrations/postgres/0009_batches.sql on PostgreSQL, and schema_migrations
// records the same names on both. TestMigrationLine keeps the two
// directories to the same names, and TestSchemaParity (on PostgreSQL) the
// two schemas to the same tables, columns, indexes and constraints.
//
// SQLite used to have its own numbering: seven migrations where PostgreSQL,
// which came later, had one (0001_schema), so SQLite's change n was
// PostgreSQL's n-6. A database migrated by that numbering is renumbered
// when it is opened (renumberOldSQLite): PostgreSQL's numbering is the one
// line, so a PostgreSQL database needs nothing.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql migrations/legacy-sqlite/*.sql
var migrationFS embed.FS

// Migrations are shipd's schema migrations, per dialect (tests fingerprint
// them), and SQLite's first seven of the old numbering (legacy-sqlite).
func Migrations() fs.FS { return migrationFS }

// legacySQLiteSchema are the first seven migrations of SQLite's old
// numbering, which the one line's 0001_schema.sql applies as one. They stay
// embedded for a database that stopped part way through them.
var legacySQLiteSchema = []string{
	"0001_accounts_tokens.sql",
	"0002_labels.sql",
	"0003_webhook_deliveries.sql",
	"0004_idempotency.sql",
	"0005_idempotency_committed.sql",
	"0006_idempotency_results.sql",
	"0007_carrier_shipment_id.sql",
}

// oldSQLiteNames maps the rest of SQLite's old numbering onto the one line
// (old n is new n-6, the name otherwise the same).
var oldSQLiteNames = map[string]string{
	"0008_ui.sql":                          "0002_ui.sql",
	"0009_webhook_deliveries_retrying.sql": "0003_webhook_deliveries_retrying.sql",
	"0010_documents.sql":                   "0004_documents.sql",
	"0011_purchase_attempts.sql":           "0005_purchase_attempts.sql",
	"0012_returns.sql":                     "0006_returns.sql",
	"0013_standalone_trackers.sql":         "0007_standalone_trackers.sql",
	"0014_label_formats.sql":               "0008_label_formats.sql",
	"0015_batches.sql":                     "0009_batches.sql",
	"0016_instances.sql":                   "0010_instances.sql",
	"0017_manifests.sql":                   "0011_manifests.sql",
	"0018_pickups.sql":                     "0012_pickups.sql",
	"0019_carrier_accounts.sql":            "0013_carrier_accounts.sql",
	"0020_packages.sql":                    "0014_packages.sql",
	"0021_tracker_carrier_accounts.sql":    "0015_tracker_carrier_accounts.sql",
	"0022_shipment_delivery_dates.sql":     "0016_shipment_delivery_dates.sql",
	"0023_end_of_day_carrier_accounts.sql": "0017_end_of_day_carrier_accounts.sql",
	"0024_batch_customs_items.sql":         "0018_batch_customs_items.sql",
	"0025_carrier_account_credentials.sql": "0019_carrier_account_credentials.sql",
	"0026_tracker_ends.sql":                "0020_tracker_ends.sql",
}

// newSchemaName is the one line's first migration, which stands for the
// seven of legacySQLiteSchema.
const newSchemaName = "0001_schema.sql"

// migrationLockKey names the PostgreSQL advisory lock that makes instances
// starting at once apply migrations one after the other.
const migrationLockKey = 7320113

func (s *Store) migrate(ctx context.Context) error {
	dir := "migrations/sqlite"
	if s.dialect == postgresDialect {
		dir = "migrations/postgres"
		conn, err := s.w.Conn(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockKey); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockKey)
	}
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at TIMESTAMP NOT NULL)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	names, err := fs.Glob(migrationFS, dir+"/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if s.dialect == sqliteDialect {
		if err := s.Tx(ctx, func(tx *Tx) error { return renumberOldSQLite(ctx, tx, names) }); err != nil {
			return fmt.Errorf("migrate: renumber: %w", err)
		}
	}
	for _, name := range names {
		base := strings.TrimPrefix(name, dir+"/")
		err := s.Tx(ctx, func(tx *Tx) error {
			var applied int
			if err := tx.get(ctx, &applied, `SELECT count(*) FROM schema_migrations WHERE name = ?`, base); err != nil {
				return err
			}
			if applied > 0 {
				return nil
			}
			return applyMigration(ctx, tx, name, base)
		})
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	migrator, err := rivermigrate.New(s.driver, nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrate: %w", err)
	}
	return nil
}

// applyMigration runs the file path of migrationFS in tx and records it as name.
func applyMigration(ctx context.Context, tx *Tx, path, name string) error {
	body, err := migrationFS.ReadFile(path)
	if err != nil {
		return err
	}
	// Without arguments the statements go as one simple query, so a
	// file may hold several.
	if _, err := tx.tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("apply %s: %w", name, err)
	}
	_, err = tx.exec(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, time.Now().UTC())
	return err
}

// renumberOldSQLite rewrites, in tx, the schema_migrations of a SQLite
// database migrated by the old numbering into the one line's names, so the
// loop that follows applies exactly the changes it lacks. Every database of
// the old numbering holds 0001_accounts_tokens.sql (migrations apply in
// order), and none of the one line does. A database that stopped inside the
// first seven gets the rest of them first, as they were, so that together
// they are 0001_schema.sql. A name neither line knows stops the start: that
// database was migrated by a newer shipd, and renumbering it would guess.
// paths are the one line's files (migrations/sqlite/*.sql).
func renumberOldSQLite(ctx context.Context, tx *Tx, paths []string) error {
	var recorded []struct {
		Name      string    `db:"name"`
		AppliedAt time.Time `db:"applied_at"`
	}
	if err := tx.sel(ctx, &recorded, `SELECT name, applied_at FROM schema_migrations`); err != nil {
		return err
	}
	applied := make(map[string]time.Time, len(recorded))
	for _, r := range recorded {
		applied[r.Name] = r.AppliedAt
	}
	first, old := applied[legacySQLiteSchema[0]]
	if !old {
		return nil
	}
	known := make(map[string]bool, len(paths))
	for _, p := range paths {
		known[p[strings.LastIndex(p, "/")+1:]] = true
	}
	for _, name := range legacySQLiteSchema {
		if _, ok := applied[name]; ok {
			continue
		}
		if err := applyMigration(ctx, tx, "migrations/legacy-sqlite/"+name, name); err != nil {
			return err
		}
	}
	for _, name := range legacySQLiteSchema {
		if _, err := tx.exec(ctx, `DELETE FROM schema_migrations WHERE name = ?`, name); err != nil {
			return err
		}
	}
	if _, err := tx.exec(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, newSchemaName, first); err != nil {
		return err
	}
	for _, r := range recorded {
		if slices.Contains(legacySQLiteSchema, r.Name) {
			continue
		}
		renamed, ok := oldSQLiteNames[r.Name]
		if !ok || !known[renamed] {
			return fmt.Errorf("%w: %s is not a migration of this shipd's (migrated by a newer one?)", ErrUnknownMigration, r.Name)
		}
		if _, err := tx.exec(ctx, `UPDATE schema_migrations SET name = ? WHERE name = ?`, renamed, r.Name); err != nil {
			return err
		}
	}
	return nil
}

// ErrUnknownMigration is why a database of the old SQLite numbering that
// records a migration this shipd does not know is not opened.
var ErrUnknownMigration = errors.New("unknown migration")
