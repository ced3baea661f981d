package storetest

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/shipd-dev/shipd/store"
)

func testDocuments(t *testing.T, open Opener) {
	leaf(t, open, "a document is read back, replaced, and missing ones are ErrBlobNotFound", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		docs := store.DocumentsIn(s, nil)
		pdf := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0, 0xff, 'x'}, 3000)...)
		noErr(t, "put", docs.Put(ctx, "labels/ab/shp_1.pdf", pdf))
		got, err := docs.Get(ctx, "labels/ab/shp_1.pdf")
		noErr(t, "get", err)
		if !bytes.Equal(got, pdf) {
			t.Fatalf("read back %d bytes, not the %d written", len(got), len(pdf))
		}
		noErr(t, "replace", docs.Put(ctx, "labels/ab/shp_1.pdf", []byte("%PDF-2")))
		if got, err := docs.Get(ctx, "labels/ab/shp_1.pdf"); err != nil || string(got) != "%PDF-2" {
			t.Fatalf("after replacing: %q, %v", got, err)
		}
		_, err = docs.Get(ctx, "labels/ab/shp_2.pdf")
		wantErr(t, "missing document", err, store.ErrBlobNotFound)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.DeleteDocument(ctx, "labels/ab/shp_1.pdf") })
		_, err = docs.Get(ctx, "labels/ab/shp_1.pdf")
		wantErr(t, "deleted document", err, store.ErrBlobNotFound)
		if err := docs.Put(ctx, "../escape.pdf", pdf); err == nil {
			t.Error("a key outside the store was accepted")
		}
	})

	leaf(t, open, "documents written as files before stay readable", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		files, err := store.OpenBlobs(ctx, (&url.URL{Scheme: "file", Path: t.TempDir()}).String())
		noErr(t, "open files", err)
		t.Cleanup(func() { files.Close() })
		noErr(t, "put file", files.Put(ctx, "labels/cd/shp_old.pdf", []byte("%PDF-old")))

		docs := store.DocumentsIn(s, files)
		if got, err := docs.Get(ctx, "labels/cd/shp_old.pdf"); err != nil || string(got) != "%PDF-old" {
			t.Fatalf("document stored as a file: %q, %v", got, err)
		}
		noErr(t, "put", docs.Put(ctx, "labels/cd/shp_new.pdf", []byte("%PDF-new")))
		if _, err := files.Get(ctx, "labels/cd/shp_new.pdf"); !errors.Is(err, store.ErrBlobNotFound) {
			t.Fatalf("a new document went to the files: %v", err)
		}
		_, err = docs.Get(ctx, "labels/cd/shp_none.pdf")
		wantErr(t, "missing in both", err, store.ErrBlobNotFound)
	})

	leaf(t, open, "a document put in a rolled-back transaction is not kept", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		errUndo := errors.New("undo")
		err := s.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.PutDocument(ctx, "labels/ef/shp_3.pdf", []byte("%PDF"), t0); err != nil {
				return err
			}
			return errUndo
		})
		wantErr(t, "rolled back", err, errUndo)
		_, err = s.Document(context.Background(), "labels/ef/shp_3.pdf")
		wantErr(t, "document of a rolled-back transaction", err, store.ErrBlobNotFound)
	})
}
