package server_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// Two instances on one database and one S3-compatible bucket: a label bought
// through one is downloaded from the other, and lives in the bucket. Not
// parallel: it sets the AWS environment.
func TestLabelBoughtOnOneInstanceDownloadedFromTheOther(t *testing.T) {
	const bucket = "shipd-labels"
	s3URL, backend := storetest.FakeS3(t, bucket)
	withS3 := func(c *app.Config) {
		docs, err := store.OpenBlobs(context.Background(), s3URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { docs.Close() })
		c.Documents = docs
	}

	dsn := storetest.NewDatabase(t)
	clock := fakeclock.New(time.Now().UTC())
	// On SQLite, which serve gives one server, neither instance serves the
	// file as serve would: no ServerLock, nothing cached.
	one := startInstance(t, dsn, t.TempDir(), clock, false, withS3, withoutRateLimits())
	other := startInstance(t, dsn, t.TempDir(), clock, false, withS3, withoutRateLimits())
	one.account = one.newAccount("Acme", true)
	one.tokenID, one.token = one.newToken(one.account.ID, "test", allScopes...)
	other.account, other.tokenID, other.token = one.account, one.tokenID, one.token

	s := createLabel(t, one, one.token, labelBody())
	waitForStatus(t, other, other.token, s.ID, "purchased")
	for name, b := range map[string]*bundle{"the instance that took the create": one, "the other instance": other} {
		r := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label.pdf", b.token, nil)
		wantStatus(t, r, http.StatusOK)
		if !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Errorf("label from %s is not a PDF: %q", name, r.Body[:min(16, len(r.Body))])
		}
	}
	if _, err := backend.HeadObject(bucket, shipping.LabelKey(s.ID)); err != nil {
		t.Errorf("the label is not in the bucket: %v", err)
	}
}
