package server_test

// What a stolen copy of the data directory gives away: no signing secret in
// the clear anywhere in the database files, and files only their owner reads.

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/store"
)

func TestNoSecretInTheDatabaseFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if store.IsPostgres(b.dsn) {
		t.Skip("the database is a PostgreSQL server, not files of shipd's")
	}
	// Keyed creates record their 201 (signing secret included) for replays:
	// the recorded response must be sealed like the subscription's column.
	var secrets []string
	for i := range 5 {
		body := map[string]any{"url": fmt.Sprintf("https://example.com/hooks/%d", i), "events": []string{"shipment.purchased"}, "idempotencyKey": fmt.Sprintf("hook-%d", i)}
		first := b.doT(t, "POST", "/api/v1/webhooks", b.token, body)
		wantStatus(t, first, http.StatusCreated)
		replay := b.doT(t, "POST", "/api/v1/webhooks", b.token, body)
		wantStatus(t, replay, http.StatusCreated)
		if !bytes.Equal(first.Body, replay.Body) {
			t.Fatalf("replay differs from the first answer:\n%s\n%s", first.Body, replay.Body)
		}
		secrets = append(secrets, strings.TrimPrefix(first.JSON(t)["signingSecret"].(string), "whsec_"))
	}
	s := createLabel(t, b, b.token, labelBody())
	waitForStatus(t, b, b.token, s.ID, "purchased")

	// The server is still running: the WAL holds the latest pages.
	files := []string{b.dsn, b.dsn + "-wal", b.dsn + "-shm"}
	if err := filepath.WalkDir(b.docs, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s is %v: readable by others than its owner", filepath.Base(f), perm)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("whsec_")) {
			t.Errorf("%s holds a signing secret in the clear", filepath.Base(f))
		}
		for _, secret := range secrets {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the signing secret %s…", filepath.Base(f), secret[:6])
			}
		}
	}
}
