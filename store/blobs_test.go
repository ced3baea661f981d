package store_test

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// openBlobs opens rawURL and closes the store when the test ends.
func openBlobs(t *testing.T, rawURL string) *store.Blobs {
	t.Helper()
	b, err := store.OpenBlobs(t.Context(), rawURL)
	if err != nil {
		t.Fatalf("OpenBlobs(%q): %v", rawURL, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// fileURL names dir as a file:// URL, escaping what a temporary directory's
// name may hold (t.TempDir keeps "#", "%" and spaces from test names).
func fileURL(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}

// refusedKeys could escape a file:// store's directory; every scheme refuses
// them so a key valid on one store is valid on all.
var refusedKeys = []string{"", "../escape.pdf", "labels/../../escape.pdf", "labels/..", "/etc/passwd", `labels\x.pdf`}

// checkBlobs is what every store must do: put and get back, replace,
// report a missing key as ErrBlobNotFound, refuse keys that could escape.
// put and get may be two instances opened on the same URL.
func checkBlobs(t *testing.T, put, get *store.Blobs) {
	t.Helper()
	ctx := t.Context()
	pdf := []byte("%PDF-1.7 label for shp_1")
	const key = "labels/2025/shp_1.pdf"

	if err := put.Put(ctx, key, pdf); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if got, err := get.Get(ctx, key); err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("Get = %q, %v; want %q", got, err, pdf)
	}

	// Overwrite through the reading instance, read back through the writing one.
	if err := get.Put(ctx, key, []byte("v2")); err != nil {
		t.Fatalf("second Put: %v", err)
	}
	if got, err := put.Get(ctx, key); err != nil || string(got) != "v2" {
		t.Errorf("Get after replacing = %q, %v; want \"v2\"", got, err)
	}

	// An empty document is stored, not mistaken for a missing one.
	if err := put.Put(ctx, "labels/empty.pdf", nil); err != nil {
		t.Fatalf("Put of an empty document: %v", err)
	}
	if got, err := get.Get(ctx, "labels/empty.pdf"); err != nil || len(got) != 0 {
		t.Errorf("Get of an empty document = %q, %v; want \"\", nil", got, err)
	}

	if _, err := get.Get(ctx, "labels/missing.pdf"); !errors.Is(err, store.ErrBlobNotFound) {
		t.Errorf("Get of a missing key: got %v, want ErrBlobNotFound", err)
	}

	for _, bad := range refusedKeys {
		if err := put.Put(ctx, bad, pdf); err == nil {
			t.Errorf("Put(%q) succeeded, want it refused", bad)
		}
		if _, err := get.Get(ctx, bad); err == nil || errors.Is(err, store.ErrBlobNotFound) {
			t.Errorf("Get(%q): got %v, want a refusal", bad, err)
		}
	}
}

func TestBlobsMem(t *testing.T) {
	t.Parallel()
	b := openBlobs(t, "mem://")
	checkBlobs(t, b, b)

	// Each mem:// store is its own: nothing is shared between two of them.
	other := openBlobs(t, "mem://")
	if _, err := other.Get(t.Context(), "labels/2025/shp_1.pdf"); !errors.Is(err, store.ErrBlobNotFound) {
		t.Errorf("Get from a second mem:// store: got %v, want ErrBlobNotFound", err)
	}
}

func TestBlobsFile(t *testing.T) {
	t.Parallel()
	// The directory does not exist yet: OpenBlobs creates it.
	dir := filepath.Join(t.TempDir(), "shipd data #1", "blobs")
	dirURL := fileURL(dir)
	checkBlobs(t, openBlobs(t, dirURL), openBlobs(t, dirURL))

	// Nothing but the documents is left: no temporary file, no sidecar.
	entries, err := os.ReadDir(filepath.Join(dir, "labels", "2025"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "shp_1.pdf" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("blob directory holds %q, want only shp_1.pdf", names)
	}
	// Refused keys wrote nothing beside the store's directory.
	if entries, err := os.ReadDir(filepath.Dir(dir)); err != nil || len(entries) != 1 {
		t.Errorf("the store's parent holds %d entries (%v), want only the store", len(entries), err)
	}
}

// TestBlobsFileModes: labels hold names and addresses, so only the owner may
// list or read them.
func TestBlobsFileModes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	dir := filepath.Join(root, "blobs")
	b := openBlobs(t, fileURL(dir))

	const key = "labels/shp_1.pdf"
	if err := b.Put(ctx, key, []byte("%PDF-1.7")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	checkMode(t, dir, 0o700)
	checkMode(t, filepath.Join(dir, "labels"), 0o700)
	checkMode(t, filepath.Join(dir, "labels", "shp_1.pdf"), 0o600)
	// Replacing a document writes a new file; it is narrowed as well.
	if err := b.Put(ctx, key, []byte("%PDF-1.7 v2")); err != nil {
		t.Fatalf("second Put: %v", err)
	}
	checkMode(t, filepath.Join(dir, "labels", "shp_1.pdf"), 0o600)

	// The checks above only prove something when the umask would have let
	// group or others read: say so when it would not have.
	control := filepath.Join(root, "control")
	if err := os.WriteFile(control, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(control); err == nil && fi.Mode().Perm()&0o077 == 0 {
		t.Logf("umask already hides files from group and others (%v); the 0600 check proves less here", fi.Mode().Perm())
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("mode of %s = %v, want %v", path, got, want)
	}
}

func TestBlobsFileExistingDir(t *testing.T) {
	t.Parallel()
	// A directory that already exists is used as it is.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kept"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := openBlobs(t, "file://"+dir)
	if err := b.Put(t.Context(), "labels/shp_2.pdf", []byte("%PDF")); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kept")); err != nil {
		t.Errorf("existing file: %v", err)
	}

	// A file where the directory should be is an error when opening.
	if _, err := store.OpenBlobs(t.Context(), "file://"+filepath.Join(dir, "kept")); err == nil {
		t.Error("OpenBlobs on a regular file succeeded, want an error")
	}
}

func TestOpenBlobsErrors(t *testing.T) {
	t.Parallel()
	const secret = "wJalrXUtnFEMI-K7MDENG"
	for _, tc := range []struct {
		url  string
		want string // in the error
	}{
		{"", "no scheme"},
		{"/var/lib/shipd", "no scheme"},
		{"gs://bucket", `unknown scheme "gs"`},
		{"ftp://AKIAEXAMPLE:" + secret + "@host/x", "credentials do not belong in the URL"},
		{"file://./labels", "must be an absolute path"},
		{"file://labels/2025", "must be an absolute path"},
		{"file:labels", "must be an absolute path"},
		{"file:///var/lib/shipd?mode=0777", "take no query parameters"},
		{"file:///var/lib/shipd#1/labels", "fragment"},
		{"mem://?x=1", "take no query parameters"},
		{"s3://?endpoint=http://127.0.0.1:9000", "no bucket"},
		{"s3://AKIAEXAMPLE:" + secret + "@bucket?endpoint=http://127.0.0.1:9000", "credentials do not belong in the URL"},
		{"s3://bucket/prefix", "path after the bucket"},
		{"s3://bucket?use_path_style=maybe", "use_path_style"},
		{"s3://bucket?secret_access_key=" + secret, "secret_access_key"},
		// A "/" in a password ends the host early; the parse error must not
		// quote what follows.
		{"s3://AKIAEXAMPLE:abc/" + secret + "@bucket", "not a valid URL"},
		{"s3://AKIAEXAMPLE:" + secret + "%zz@bucket", "not a valid URL"},
		{"file:///var/lib/shipd/100%", `not a valid URL: invalid URL escape "%"`},
	} {
		b, err := store.OpenBlobs(t.Context(), tc.url)
		if err == nil {
			b.Close()
			t.Errorf("OpenBlobs(%q) succeeded, want an error", tc.url)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OpenBlobs(%q) = %v, want it to say %q", tc.url, err, tc.want)
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "AKIAEXAMPLE") {
			t.Errorf("OpenBlobs(%q) = %v: the error shows a credential", tc.url, err)
		}
	}
}

// TestBlobsS3 runs against a real S3 protocol implementation (gofakes3)
// over HTTP: two instances on the same URL share their documents. Not
// parallel: it sets the AWS environment.
func TestBlobsS3(t *testing.T) {
	const bucket = "shipd-labels"
	s3URL, backend := storetest.FakeS3(t, bucket)
	a, b := openBlobs(t, s3URL), openBlobs(t, s3URL)
	checkBlobs(t, a, b)

	// The documents are in the S3 bucket, typed for whoever reads them there.
	obj, err := backend.HeadObject(bucket, "labels/2025/shp_1.pdf")
	if err != nil {
		t.Fatalf("the label is not in the S3 bucket: %v", err)
	}
	if ct := obj.Metadata["Content-Type"]; ct != "application/pdf" {
		t.Errorf("Content-Type in S3 = %q, want application/pdf", ct)
	}

	// A bucket name is the URL's host: another bucket does not see them.
	if err := backend.CreateBucket("other"); err != nil {
		t.Fatal(err)
	}
	other := openBlobs(t, strings.Replace(s3URL, bucket, "other", 1))
	if _, err := other.Get(t.Context(), "labels/2025/shp_1.pdf"); !errors.Is(err, store.ErrBlobNotFound) {
		t.Errorf("Get from another bucket: got %v, want ErrBlobNotFound", err)
	}
}

// A cancelled context stops a Put rather than writing a document.
func TestBlobsCancelled(t *testing.T) {
	t.Parallel()
	b := openBlobs(t, fileURL(filepath.Join(t.TempDir(), "blobs")))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := b.Put(ctx, "labels/shp_3.pdf", []byte("%PDF")); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
	if _, err := b.Get(t.Context(), "labels/shp_3.pdf"); !errors.Is(err, store.ErrBlobNotFound) {
		t.Errorf("Get after a cancelled Put: got %v, want ErrBlobNotFound", err)
	}
}
