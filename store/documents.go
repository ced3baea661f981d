package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DatabaseDocuments keeps label documents in the database, in the documents
// table: the default on SQLite. A label of a few KiB costs less as a row,
// written by the purchase's own transaction (PutTx), than as a file of its
// own (a new inode and directory entry per label); the label is committed
// exactly with the purchase; and a backup of the database file holds every
// label its shipments refer to. Documents written
// before, as files, stay readable through the fallback store.
type DatabaseDocuments struct {
	s        *Store
	fallback *Blobs
}

// DocumentsIn keeps documents in s. fallback, when not nil, is read for a
// key that is not in the database (documents stored as files before).
func DocumentsIn(s *Store, fallback *Blobs) *DatabaseDocuments {
	return &DatabaseDocuments{s: s, fallback: fallback}
}

// Put stores data under key, replacing what was there, in a transaction of its own.
func (d *DatabaseDocuments) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return d.s.Tx(ctx, func(tx *Tx) error { return tx.PutDocument(ctx, key, data, time.Now()) })
}

// PutTx stores data under key in tx: it is kept exactly when tx commits.
func (d *DatabaseDocuments) PutTx(ctx context.Context, tx *Tx, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return tx.PutDocument(ctx, key, data, time.Now())
}

// Get reads the data under key; an error wrapping ErrBlobNotFound when there is none.
func (d *DatabaseDocuments) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	data, err := d.s.Document(ctx, key)
	if errors.Is(err, ErrBlobNotFound) && d.fallback != nil {
		return d.fallback.Get(ctx, key)
	}
	return data, err
}

// PutDocument stores data under key, replacing what was there.
func (t *Tx) PutDocument(ctx context.Context, key string, data []byte, now time.Time) error {
	_, err := t.exec(ctx, `INSERT INTO documents (key, data, created_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET data = excluded.data, created_at = excluded.created_at`, key, data, now.UTC())
	if err != nil {
		return fmt.Errorf("put document %q: %w", key, err)
	}
	return nil
}

// DeleteDocument removes the document under key, if there is one.
func (t *Tx) DeleteDocument(ctx context.Context, key string) error {
	_, err := t.exec(ctx, `DELETE FROM documents WHERE key = ?`, key)
	return err
}

// Document reads the document under key; an error wrapping ErrBlobNotFound when there is none.
func (r reader) Document(ctx context.Context, key string) ([]byte, error) {
	var data []byte
	err := r.get(ctx, &data, `SELECT data FROM documents WHERE key = ?`, key)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("document %q: %w", key, ErrBlobNotFound)
	}
	return data, err
}
