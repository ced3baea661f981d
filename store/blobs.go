package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// ErrBlobNotFound is returned when a stored document is missing.
var ErrBlobNotFound = errors.New("blob not found")

// Blobs keeps documents (label PDFs) in a bucket named by a URL, so several
// shipd instances can share them through S3-compatible storage. It is safe for
// concurrent use.
type Blobs struct {
	bucket *blob.Bucket
	// A file:// store sweeps stale temporary files in the background after
	// it opens (sweepTemp); Close ends the sweep and waits for it.
	stopSweep context.CancelFunc
	swept     chan struct{}
}

// Modes of what the file:// store creates: labels carry names and addresses,
// so nobody but the account running shipd may list or read them.
const (
	blobDirMode  os.FileMode = 0o700
	blobFileMode os.FileMode = 0o600
)

// OpenBlobs opens the document store named by rawURL:
//
//   - file:///abs/dir: files under dir, created with mode 0700 when missing.
//   - mem://: in memory, for tests; every call opens a new, empty store.
//   - s3://bucket?endpoint=http://host:port&use_path_style=true&region=us-east-1:
//     any S3-compatible store, with credentials from the standard AWS
//     environment variables (or shared config); see gocloud.dev/blob/s3blob
//     for the other query parameters.
//
// A URL with user information is refused and errors never repeat it, and s3
// takes only gocloud's known (non-secret) query parameters, so an error can
// be logged without leaking a secret; credentials come from the environment.
func OpenBlobs(ctx context.Context, rawURL string) (*Blobs, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the whole URL, and with user information in it
		// the cause can quote part of a password (a "/" in one ends the host
		// early): the cause is shown only for a URL without any.
		var ue *url.Error
		if !strings.Contains(rawURL, "@") && errors.As(err, &ue) {
			return nil, fmt.Errorf("blob URL: not a valid URL: %w", ue.Err)
		}
		return nil, errors.New("blob URL: not a valid URL (not shown: it may hold credentials)")
	}
	if u.User != nil {
		return nil, fmt.Errorf("blob URL %s: credentials do not belong in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", describeURL(u))
	}
	if u.Fragment != "" {
		// A "#" in a directory name would otherwise cut the path short silently.
		return nil, fmt.Errorf("blob URL %s: has a fragment (#...); escape a # in the path as %%23", describeURL(u))
	}
	var bucket *blob.Bucket
	switch u.Scheme {
	case "file":
		if bucket, err = openFileBucket(u); err == nil {
			return withSweep(ctx, bucket, filepath.FromSlash(u.Path), time.Now), nil
		}
	case "mem":
		if err = noQuery(u); err == nil {
			bucket = memblob.OpenBucket(nil)
		}
	case "s3":
		bucket, err = openS3Bucket(ctx, u)
	case "":
		return nil, errors.New("blob URL: no scheme; want file:///abs/dir (a directory), mem:// or s3://bucket")
	default:
		return nil, fmt.Errorf("blob URL %s: unknown scheme %q; want file, mem or s3", describeURL(u), u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	return &Blobs{bucket: bucket}, nil
}

func openFileBucket(u *url.URL) (*blob.Bucket, error) {
	// fileblob reads "file://labels/x" as the directory /x (the host is
	// ignored) and "file://./labels" as relative to wherever shipd happens to
	// start; both are refused so the documents land where the operator meant.
	if u.Opaque != "" || (u.Host != "" && u.Host != "localhost") || !path.IsAbs(u.Path) {
		return nil, fmt.Errorf("blob URL %s: the directory must be an absolute path, as in file:///var/lib/shipd/labels", describeURL(u))
	}
	if err := noQuery(u); err != nil {
		return nil, err
	}
	bucket, err := fileblob.OpenBucket(filepath.FromSlash(u.Path), &fileblob.Options{
		CreateDir:   true,
		DirFileMode: blobDirMode,
		// Temporary files next to the final ones, as FileBlobs did: a rename
		// from os.TempDir fails when the directory is on another mount.
		NoTempDir: true,
		// No ".attrs" sidecar files: fileblob creates them with the default
		// mode (0644 under the usual umask), and Get needs only the bytes.
		Metadata: fileblob.MetadataDontWrite,
	})
	if err != nil {
		return nil, fmt.Errorf("blob URL %s: %w", describeURL(u), err)
	}
	return bucket, nil
}

func openS3Bucket(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if u.Host == "" {
		return nil, fmt.Errorf("blob URL %s: no bucket (want s3://BUCKET?endpoint=URL)", describeURL(u))
	}
	if u.Path != "" && u.Path != "/" {
		// s3blob would ignore the path; a prefix the operator thinks applies
		// but does not would mix instances' documents.
		return nil, fmt.Errorf("blob URL %s: a path after the bucket is not supported", describeURL(u))
	}
	// s3blob's errors repeat the whole URL; with user information refused and
	// only these parameters let through, that URL holds no secret.
	for name := range u.Query() {
		if !s3Params[name] {
			return nil, fmt.Errorf("blob URL %s: unknown query parameter %q for s3", describeURL(u), name)
		}
	}
	// A fresh opener each time: s3blob's URLOpener keeps per-URL options in
	// itself.
	bucket, err := (&s3blob.URLOpener{}).OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("blob URL %s: %w", describeURL(u), err)
	}
	return bucket, nil
}

// s3Params are the query parameters gocloud.dev/blob/s3blob and
// gocloud.dev/aws accept (v0.47); none of them carries a secret.
var s3Params = map[string]bool{
	"endpoint": true, "region": true, "use_path_style": true, "s3ForcePathStyle": true,
	"disable_https": true, "hostname_immutable": true, "profile": true, "dualstack": true,
	"fips": true, "rate_limiter_capacity": true, "anonymous": true, "role": true,
	"request_checksum_calculation": true, "response_checksum_validation": true,
	"ssetype": true, "kmskeyid": true, "accelerate": true, "awssdk": true,
}

func noQuery(u *url.URL) error {
	if u.RawQuery == "" {
		return nil
	}
	return fmt.Errorf("blob URL %s: %s URLs take no query parameters", describeURL(u), u.Scheme)
}

// describeURL names a URL for an error: scheme, host, path and the names (not
// the values) of its query parameters, never its user information.
func describeURL(u *url.URL) string {
	s := u.Scheme + "://" + u.Host + u.Path
	if u.Opaque != "" {
		s = u.Scheme + ":" + u.Opaque
	}
	if q := u.Query(); len(q) > 0 {
		names := make([]string, 0, len(q))
		for name := range q {
			names = append(names, name)
		}
		sort.Strings(names)
		s += "?" + strings.Join(names, "&")
	}
	return fmt.Sprintf("%q", s)
}

// checkKey refuses keys that could name something outside the store's
// directory on file://, and keeps the same rule for every scheme so a key
// valid on one store is valid on all.
func checkKey(key string) error {
	if key == "" || strings.Contains(key, "..") || strings.Contains(key, `\`) || path.IsAbs(key) || filepath.IsAbs(key) {
		return fmt.Errorf("blob key %q: not a relative key", key)
	}
	if isTempName(path.Base(key)) {
		// The file:// store's sweep would take it for an abandoned write.
		return fmt.Errorf("blob key %q: named like a temporary file", key)
	}
	return nil
}

// Put stores data under key, replacing what was there. A reader never sees
// half a document: fileblob renames a complete file into place, and S3 and
// memory replace an object whole.
func (b *Blobs) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	opts := &blob.WriterOptions{
		// fileblob creates its temporary file with mode 0666 and offers no
		// option for it, but hands that file to BeforeWrite before anything
		// is written: narrowing it there means the document is never readable
		// by others, and the rename keeps the mode. Other drivers do not
		// offer an *os.File and are left alone.
		BeforeWrite: func(as func(any) bool) error {
			var f *os.File
			if as(&f) {
				return f.Chmod(blobFileMode)
			}
			return nil
		},
	}
	if strings.EqualFold(path.Ext(key), ".pdf") {
		// Without it, S3 keeps whatever gocloud sniffs from the bytes.
		opts.ContentType = "application/pdf"
	}
	if err := b.bucket.WriteAll(ctx, key, data, opts); err != nil {
		return fmt.Errorf("put blob %q: %w", key, err)
	}
	return nil
}

// Get reads the data under key; an error wrapping ErrBlobNotFound when there
// is none.
func (b *Blobs) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	data, err := b.bucket.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("get blob %q: %w", key, ErrBlobNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get blob %q: %w", key, err)
	}
	return data, nil
}

// Close releases the bucket; the Blobs must not be used afterwards.
func (b *Blobs) Close() error {
	if b.stopSweep != nil {
		b.stopSweep()
		<-b.swept
	}
	return b.bucket.Close()
}

// staleTempAge is how old a temporary file of the file:// store must be for
// the sweep to remove it. fileblob writes a document to
// "<name>.<hex nanoseconds>.tmp" beside it and renames it into place
// within the one Put; a SIGKILL or a crash in between leaves the temporary
// file behind. Several instances may share the directory (a network volume)
// and write at the moment one of them starts, so a young temporary file may
// be another instance's write in progress: only those unmodified for an hour
// are removed, an age no write of a label of at most a few MiB approaches,
// with room for clocks of the instances and the file server that disagree
// by minutes. Younger ones wait for the next start.
const staleTempAge = time.Hour

// isTempName says whether a file name is one of fileblob's temporary files:
// "<name>.<1 to 16 hex digits>.tmp".
func isTempName(name string) bool {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	hex := rest[i+1:]
	if i < 0 || len(hex) == 0 || len(hex) > 16 {
		return false
	}
	return strings.Trim(hex, "0123456789abcdef") == ""
}

// withSweep wraps a file:// bucket and starts sweeping dir's stale
// temporary files in the background: a store of a million labels on a
// network volume takes a while to walk, and serving need not wait for it.
func withSweep(ctx context.Context, bucket *blob.Bucket, dir string, now func() time.Time) *Blobs {
	ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	b := &Blobs{bucket: bucket, stopSweep: stop, swept: make(chan struct{})}
	go func() {
		defer close(b.swept)
		// Best effort: a file that cannot be removed now is tried again at
		// the next start, and nothing depends on its absence.
		_, _ = sweepTemp(ctx, dir, now().Add(-staleTempAge))
	}()
	return b
}

// sweepTemp removes the temporary files under dir last modified before
// cutoff, and says how many it removed. Documents, and files not named like
// fileblob's temporary ones, are never touched.
func sweepTemp(ctx context.Context, dir string, cutoff time.Time) (int, error) {
	removed := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err != nil {
			// An unreadable directory is skipped, not the whole sweep.
			if d != nil && d.IsDir() && p != dir {
				return fs.SkipDir
			}
			return err
		}
		if !d.Type().IsRegular() || !isTempName(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); err == nil {
			removed++
		}
		return nil
	})
	return removed, err
}
