package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// By default on SQLite, label documents are rows of the database: a label
// bought through serve downloads as a PDF and no file is written beside the
// database. A label that an earlier version wrote as a file there (its key
// recorded on the shipment) is still served.
func TestServeKeepsLabelsInTheDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "shipd.db")
	s := startServe(t, db, "--job-poll-interval", "10ms")
	demo := struct{ Token string }{s.demoToken(t)}
	body := labelBody()
	var ids []string
	for range 2 {
		status, created := s.call(t, "POST", "/api/v1/labels/create", demo.Token, body)
		if status != 202 {
			t.Fatalf("create: %d %v", status, created)
		}
		id := created["id"].(string)
		ids = append(ids, id)
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, got := s.call(t, "GET", "/api/v1/labels/"+id, demo.Token, nil); got["status"] == "purchased" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("label %s not purchased", id)
			}
		}
		if pdf := downloadLabel(t, s, demo.Token, id); !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("label %s: not a PDF: %q", id, pdf[:min(16, len(pdf))])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "labels")); !os.IsNotExist(err) {
		t.Fatalf("label files were written beside the database: %v", err)
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// An upgrade from a version that wrote files: the first label's document
	// is a file under labels/ instead of a row.
	key := shipping.LabelKey(ids[0])
	legacy := []byte("%PDF-1.4 written as a file by an earlier version")
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(key)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, key), legacy, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(t.Context(), func(tx *store.Tx) error { return tx.DeleteDocument(t.Context(), key) })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	s2 := startServe(t, db)
	if got := downloadLabel(t, s2, demo.Token, ids[0]); !bytes.Equal(got, legacy) {
		t.Fatalf("label stored as a file: got %q", got)
	}
	if pdf := downloadLabel(t, s2, demo.Token, ids[1]); !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("label stored as a row, after the restart: %q", pdf[:min(16, len(pdf))])
	}
}

func downloadLabel(t *testing.T, s *serveProc, token, id string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", s.base+"/api/v1/labels/"+id+"/label.pdf", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET label %s: %d %v %s", id, res.StatusCode, err, raw)
	}
	return raw
}
