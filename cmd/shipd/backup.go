package main

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/shipd-dev/shipd/store"
)

// backup writes a consistent copy of a SQLite database while servers keep
// serving it (store.BackupSQLite). The webhook key is not in the database:
// the report names it, since a restore without it cannot read stored
// signing secrets or idempotent results.
func backup(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stderr)
	db := dbFlag(fs)
	to := fs.String("to", "", "the file to write (must not exist)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *to == "" {
		return usageError("backup: --to FILE is required")
	}
	if store.IsPostgres(*db) {
		return usageError("backup: --db is a PostgreSQL URL: back it up with pg_dump, plus the label store and the webhook key (see README, Deploying)")
	}
	if err := store.BackupSQLite(ctx, *db, *to); err != nil {
		return err
	}
	fi, err := os.Stat(*to)
	if err != nil {
		return err
	}
	report := map[string]any{"db": *db, "to": *to, "bytes": fi.Size()}
	if key := filepath.Join(filepath.Dir(*db), "webhook.key"); fileExists(key) {
		report["webhookKey"] = key
		report["message"] = "keep a copy of webhookKey with the backup: without it stored signing secrets and idempotent results cannot be read"
	}
	return printJSON(stdout, report)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
