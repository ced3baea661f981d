package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

func TestSQLite(t *testing.T) { storetest.Run(t, openSQLite) }

// The whole suite again as a server opens its database: holding the
// ServerLock, with shipment rows and scans cached (store.CacheDetails).
func TestSQLiteCachingDetails(t *testing.T) { storetest.Run(t, openSQLiteServing) }

func openSQLiteServing(t *testing.T) *store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shipd.db")
	lock, err := store.LockForServing(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })
	s := openSQLiteAt(t, path)
	s.CacheDetails(lock)
	return s
}

// openSQLite opens a fresh database file in the test's temporary directory.
func openSQLite(t *testing.T) *store.Store {
	t.Helper()
	return openSQLiteAt(t, filepath.Join(t.TempDir(), "shipd.db"))
}

func openSQLiteAt(t *testing.T, path string) *store.Store {
	t.Helper()
	s, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func TestReopenKeepsDataAndMigrations(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shipd.db")
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	acct := store.Account{ID: store.NewID("acct"), Name: "Kept", HasPaymentMethod: true, Currency: "USD", CreatedAt: time.Now().UTC()}
	if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertAccount(ctx, acct) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// A second start applies no migration twice (a re-run would fail on
	// CREATE TABLE) and finds the data.
	s, err = store.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.Account(ctx, acct.ID); err != nil {
		t.Errorf("Account after reopening: %v", err)
	}
}

func TestLockForServing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "shipd.db")
	lock, err := store.LockForServing(path)
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if _, err := store.LockForServing(path); !errors.Is(err, store.ErrLocked) {
		t.Errorf("second lock of the same database: got %v, want ErrLocked", err)
	}
	other, err := store.LockForServing(filepath.Join(dir, "other.db"))
	if err != nil {
		t.Errorf("lock of another database: %v", err)
	} else if err := other.Release(); err != nil {
		t.Errorf("release of the other lock: %v", err)
	}
	if err := lock.Release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	again, err := store.LockForServing(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Errorf("release: %v", err)
	}
}

// blockingArgs is a job whose first run blocks until released, so that it
// stays running as if its process had died mid-job.
type blockingArgs struct{}

func (blockingArgs) Kind() string { return "store_test_blocking" }

func TestReclaimOrphanedJobs(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shipd.db")
	s, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lock, err := store.LockForServing(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()

	if n, err := s.ReclaimOrphanedJobs(ctx, lock); err != nil || n != 0 {
		t.Fatalf("ReclaimOrphanedJobs of an empty queue = %d, %v; want 0, nil", n, err)
	}

	// A real River client puts the job in the running state, without SQL on
	// River's table. One worker slot keeps it from fetching the job again
	// while the first run is blocked.
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[blockingArgs]) error {
		if runs.Add(1) == 1 {
			close(started)
			<-release
		}
		return nil
	}))
	client, err := s.JobClient(&river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}},
		Workers:           workers,
		FetchCooldown:     5 * time.Millisecond,
		FetchPollInterval: 20 * time.Millisecond,
		TestOnly:          true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var jobID int64
	err = s.Tx(ctx, func(tx *store.Tx) error {
		return tx.Enqueue(ctx, river.InsertManyParams{Args: blockingArgs{}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := client.Stop(stopCtx); err != nil {
			t.Errorf("stop River client: %v", err)
		}
	}
	released := false
	defer func() {
		if !released {
			close(release)
		}
		stop()
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the job never started")
	}
	res, err := client.JobList(ctx, river.NewJobListParams().Kinds(blockingArgs{}.Kind()))
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].State != rivertype.JobStateRunning {
		t.Fatalf("JobList while the job runs = %+v, %v; want one running job", res, err)
	}
	jobID = res.Jobs[0].ID

	n, err := s.ReclaimOrphanedJobs(ctx, lock)
	if err != nil || n != 1 {
		t.Fatalf("ReclaimOrphanedJobs = %d, %v; want 1, nil", n, err)
	}
	job, err := client.JobGet(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	if job.State != rivertype.JobStateAvailable {
		t.Errorf("state of the reclaimed job = %s, want %s", job.State, rivertype.JobStateAvailable)
	}
	if n, err := s.ReclaimOrphanedJobs(ctx, lock); err != nil || n != 0 {
		t.Errorf("second ReclaimOrphanedJobs = %d, %v; want 0, nil", n, err)
	}
	close(release)
	released = true
	stop()
}

// A database made by an older shipd with the umask's 0644 is tightened at start.
func TestAnOpenDatabaseIsOwnerOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s is %v, want -rw-------", filepath.Base(f), perm)
		}
	}
}

// What the writer commits reaches the database file without the writer
// checkpointing: 8 MiB written stay far below where it would (64 MiB of WAL),
// yet the checkpointer copies them into the file.
func TestCheckpointsRunBesideTheWriter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shipd.db")
	s := openSQLiteAt(t, path)
	ctx := t.Context()
	doc := bytes.Repeat([]byte("%PDF label bytes "), 3000) // ~50 KiB
	const docs = 160
	for i := range docs {
		if err := s.Tx(ctx, func(tx *store.Tx) error {
			return tx.PutDocument(ctx, fmt.Sprintf("labels/00/shp_%d.pdf", i), doc, time.Now())
		}); err != nil {
			t.Fatal(err)
		}
	}
	want := int64(docs * len(doc))
	deadline := time.Now().Add(20 * time.Second)
	for {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file at %d bytes after writing %d: the WAL was not checkpointed", fi.Size(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
