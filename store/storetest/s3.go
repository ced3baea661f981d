package storetest

import (
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// FakeS3 serves an S3-compatible API (gofakes3, in memory) over HTTP for the
// test, creates bucket in it and points the AWS SDK's environment at fake
// credentials, away from the developer's own AWS files. It returns the
// label-store URL of the bucket and the backend, to look at the objects.
// The caller cannot run in parallel: it sets the environment.
func FakeS3(t *testing.T, bucket string) (string, *s3mem.Backend) {
	t.Helper()
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-for-the-fake")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_PROFILE", "")
	return "s3://" + bucket + "?endpoint=" + url.QueryEscape(srv.URL) + "&use_path_style=true&region=us-east-1", backend
}
