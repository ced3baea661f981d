package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrBackupExists is returned when a backup's destination already exists:
// a backup never overwrites a file (it may be the previous good copy).
var ErrBackupExists = errors.New("backup destination exists")

// BackupSQLite writes a consistent copy of the SQLite database at path to
// the file to, while servers keep reading and writing it. VACUUM INTO reads
// the database in one read transaction (a snapshot in WAL mode: writers go on
// beside it) and writes a compact, self-contained file with no WAL, so the
// copy is the database as of one commit, label documents included since they
// are rows of it. It writes beside to and renames, so a copy cut off midway
// never sits under the final name.
func BackupSQLite(ctx context.Context, path, to string) error {
	if IsPostgres(path) {
		return errors.New("backup: on PostgreSQL use pg_dump (see README, Deploying)")
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("backup: %s: %w", to, ErrBackupExists)
	}
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".partial")
	_ = os.Remove(tmp) // a previous attempt cut off
	db, err := sql.Open("sqlite3", dsn(path, true))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	f, err := os.Open(tmp)
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, to)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}
