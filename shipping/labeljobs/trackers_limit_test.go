package labeljobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/shipping/trackers"
)

// An account follows at most Config.TrackerLimit packages at once per
// mode, however many creates arrive together: the creates past it fail
// with trackers.ErrTrackerLimit, a number already followed is still that tracker,
// and a tracker that ended or was deleted frees its place. Before the
// limit, all twenty concurrent creates stored a tracker.
func TestTrackerLimitUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	const limit, n = 5, 20
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	ts := shippingtest.New(t, accounts.Test, shipping.Config{Now: clock.Now, JobNow: clock.Now, TrackerLimit: limit,
		Carriers: carriers.NewRegistry(sandbox.New(sandbox.Config{Now: clock.Now, ScanInterval: time.Minute}), nil)})
	svc, c, ctx := ts.Shipping, ts.Caller, context.Background()
	lj := New(ts.Store, svc)
	trk := trackers.New(ts.Store, svc, lj, ts.Accounts, ts.Idempotency)
	number := func(i int) string { return fmt.Sprintf("9400111899223%09d", i) }
	create := func(i int) (trackers.CreatedTracker, error) {
		got, _, err := trk.CreateTracker(ctx, c, trackers.NewTracker{TrackingNumber: number(i), Carrier: "USPS"})
		return got, err
	}

	created := make([]trackers.CreatedTracker, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			created[i], errs[i] = create(i)
		})
	}
	close(start)
	wg.Wait()
	var ids []string
	refused := 0
	for i, err := range errs {
		switch {
		case errors.Is(err, trackers.ErrTrackerLimit):
			refused++
		case err != nil:
			t.Fatal(err)
		case created[i].Created:
			ids = append(ids, created[i].Tracker.ID)
		}
	}
	if len(ids) != limit || refused != n-limit {
		t.Fatalf("%d concurrent creates under a limit of %d: %d trackers created, %d refused", n, limit, len(ids), refused)
	}
	rows, _, err := trk.Trackers(ctx, c, "", paging.Request{Limit: 100})
	if err != nil || len(rows) != limit {
		t.Fatalf("%d trackers listed, want %d (%v)", len(rows), limit, err)
	}

	// A number the account follows is its tracker, at the limit too.
	again, _, err := trk.CreateTracker(ctx, c, trackers.NewTracker{TrackingNumber: rows[0].TrackingNumber, Carrier: "USPS"})
	if err != nil || again.Created || again.Tracker.ID != rows[0].ID {
		t.Fatalf("the same number at the limit: %+v, %v; want its tracker", again, err)
	}
	// A deleted tracker frees its place, and so does one that ended: the
	// sandbox's last scan of a plan.
	if err := trk.DeleteTracker(ctx, c, rows[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := create(100); err != nil {
		t.Fatalf("create after a delete: %v", err)
	}
	if _, err := create(101); !errors.Is(err, trackers.ErrTrackerLimit) {
		t.Fatalf("create at the limit again: %v, want trackers.ErrTrackerLimit", err)
	}
	jobs, err := ts.Store.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ended := rows[1].ID
	for range 10 {
		// The tracker's latest scan job: each scan queues the next.
		res, err := jobs.JobList(ctx, river.NewJobListParams().Kinds(scanArgs{}.Kind()).First(1000))
		if err != nil {
			t.Fatal(err)
		}
		var next *river.Job[scanArgs]
		for _, row := range res.Jobs {
			var args scanArgs
			if err := json.Unmarshal(row.EncodedArgs, &args); err != nil {
				t.Fatal(err)
			}
			if args.TrackerID == ended && (next == nil || args.Index > next.Args.Index) {
				next = &river.Job[scanArgs]{JobRow: row, Args: args}
			}
		}
		if err := (&scanWorker{s: lj}).Work(ctx, next); err != nil {
			t.Fatal(err)
		}
		tr, err := svc.Tracker(ctx, c, ended)
		if err != nil {
			t.Fatal(err)
		}
		if tr.EndedAt != nil {
			if tr.Status != carriers.StatusDelivered || tr.EndReason != shipping.EndFinalStatus {
				t.Fatalf("the tracker at its plan's end: %+v", tr)
			}
			break
		}
	}
	if _, err := create(101); err != nil {
		t.Fatalf("create after a tracker ended: %v", err)
	}
}
