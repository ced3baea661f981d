package store_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/store"
)

// A write killed between fileblob's temporary file and its rename leaves
// "<name>.<hex>.tmp" behind: opening the file:// store removes those older
// than StaleTempAge, and leaves young ones (another instance's write in
// progress on a shared volume), documents and other files alone.
func TestBlobsFileSweepsStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-store.StaleTempAge - time.Minute)
	files := []struct {
		name string
		old  bool
	}{
		{"labels/ab/shp_1.pdf.18a2b3c4d5e6f708.tmp", true},  // stale: removed
		{"labels/cd/shp_2.pdf.18a2b3c4d5e6f709.tmp", false}, // young: kept
		{"labels/ab/shp_1.pdf", true},                       // a document: kept
		{"labels/ab/notes.tmp", true},                       // not fileblob's: kept
		{"labels/ab/shp_3.pdf.18A2B3C4D5E6F70Z.tmp", true},  // not hex: kept
		{"shp_4.pdf.1.tmp", true},                           // at the top: removed
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if f.old {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	b := openBlobs(t, fileURL(dir))
	b.WaitSwept()

	var left []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(left)
	want := []string{"labels/ab/notes.tmp", "labels/ab/shp_1.pdf", "labels/ab/shp_3.pdf.18A2B3C4D5E6F70Z.tmp", "labels/cd/shp_2.pdf.18a2b3c4d5e6f709.tmp"}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("files after opening the store (-want +got):\n%s", diff)
	}

	// A key named like a temporary file is refused: the sweep would take it
	// for an abandoned write.
	if err := b.Put(t.Context(), "labels/ab/x.pdf.1f.tmp", []byte("%PDF")); err == nil {
		t.Error("Put accepted a key named like a temporary file")
	}
}
