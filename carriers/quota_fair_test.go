package carriers_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/internal/fakeclock"
)

// fairCarrier is a counting carrier under a tracking budget of 60 an hour
// (USPS's default), kept by a memory limiter on the test's clock.
func fairCarrier(clock *fakeclock.Clock) carriers.Carrier {
	return carriers.Limit(&counting{}, carriers.QuotaConfig{Now: clock.Now, Limiter: carriers.NewMemoryLimiter(clock.Now),
		Quotas: carriers.Quotas{{Carrier: "fedex", API: carriers.APITracking}: {Calls: 60, Per: time.Hour}}})
}

// polls asks n times for claim (or without one, for a nil claim); how many went.
func polls(t *testing.T, c carriers.Carrier, claim *carriers.TrackingClaim, n int) int {
	t.Helper()
	went := 0
	for range n {
		ctx := context.Background()
		if claim != nil {
			ctx = carriers.WithTrackingClaim(ctx, *claim)
		}
		_, err := c.Track(ctx, "1234")
		switch {
		case err == nil:
			went++
		case !errors.Is(err, carriers.ErrOverQuota):
			t.Fatal(err)
		}
	}
	return went
}

// Numbers of the shares under 60 calls an hour: an account's share is 6, of
// which its standalone trackers take 3 and leave 3 to its labels; beyond
// it, trackers borrow down to 30 calls left, labels down to 15, and polls
// within their account's share take the budget to its last call.
func TestTrackingBudgetSharesBetweenAccounts(t *testing.T) {
	t.Parallel()
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	c := fairCarrier(clock)
	claim := func(account string, label bool) *carriers.TrackingClaim {
		return &carriers.TrackingClaim{Account: account, Label: label}
	}
	type took struct{ BusyTrackers, OtherTrackers, OtherLabels, BusyLabels, NewcomerLabels, BusyTrackersAgain int }
	got := took{
		BusyTrackers:      polls(t, c, claim("acct_busy", false), 1000),
		OtherTrackers:     polls(t, c, claim("acct_other", false), 100),
		OtherLabels:       polls(t, c, claim("acct_other", true), 100),
		BusyLabels:        polls(t, c, claim("acct_busy", true), 100),
		NewcomerLabels:    polls(t, c, claim("acct_new", true), 100),
		BusyTrackersAgain: polls(t, c, claim("acct_busy", false), 100),
	}
	want := took{
		BusyTrackers:      3 + 27, // its trackers' part of its share, then borrowed down to 30 left
		OtherTrackers:     3,      // its trackers' part of its share (27 left)
		OtherLabels:       3 + 9,  // the rest of its share, then borrowed down to 15 left
		BusyLabels:        3,      // the labels' part of its share, which its trackers left (12 left)
		NewcomerLabels:    6,      // its whole share, to the last call
		BusyTrackersAgain: 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("calls that went (-want +got):\n%s", diff)
	}
	// Without a claim a poll takes the budget as any call does: none is left.
	if n := polls(t, fairCarrier(clock), nil, 100); n != 60 {
		t.Errorf("%d polls without claims went, want the budget's 60", n)
	}
}

// An account that keeps asking for every call that frees does not delay
// another account's label: for an hour the busy account's 1,000 trackers
// ask each minute before the label's poll that falls due every 15
// minutes, and every such poll goes at once. Without claims, polls take
// the budget as they come, and the label's first poll finds nothing.
func TestTrackingBudgetKeepsALabelOnTimeBesideABusyAccount(t *testing.T) {
	t.Parallel()
	for _, fair := range []bool{true, false} {
		clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
		c := fairCarrier(clock)
		busy, label := &carriers.TrackingClaim{Account: "acct_busy"}, &carriers.TrackingClaim{Account: "acct_other", Label: true}
		if !fair {
			busy, label = nil, nil
		}
		busyWent, labelWent := 0, 0
		for minute := range 60 {
			clock.Advance(time.Minute)
			busyWent += polls(t, c, busy, 1000)
			if minute%15 == 0 {
				labelWent += polls(t, c, label, 1)
			}
		}
		if fair && (labelWent != 4 || busyWent < 60) {
			t.Errorf("shared: the label's 4 polls: %d went; the busy account's: %d went, want at least the hour's 60 of the budget less the label's", labelWent, busyWent)
		}
		if !fair && labelWent != 0 {
			t.Errorf("without claims the label's polls went %d times: the test no longer shows the starvation", labelWent)
		}
	}
}

// A batch is one call for several polls: it draws on their account's share
// when they are all of one account, and on no account's share otherwise
// (borrowing as a label's poll when one of them is a label's).
func TestTrackingBatchClaims(t *testing.T) {
	t.Parallel()
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	inner := &many{}
	// 10 calls an hour: a share of 1 (all of it for trackers too), borrowing
	// down to 5 left (trackers) or 2 (labels).
	c := carriers.Batch(carriers.Limit(inner, carriers.QuotaConfig{Now: clock.Now, Limiter: carriers.NewMemoryLimiter(clock.Now),
		Quotas: carriers.Quotas{{Carrier: "fedex", API: carriers.APITracking}: {Calls: 10, Per: time.Hour}}}), time.Hour)
	// batch sends one full batch (3 numbers) of these claims; whether it went.
	batch := func(claims ...*carriers.TrackingClaim) bool {
		errs := make([]error, len(claims))
		var wg sync.WaitGroup
		for i, claim := range claims {
			wg.Go(func() {
				ctx := context.Background()
				if claim != nil {
					ctx = carriers.WithTrackingClaim(ctx, *claim)
				}
				_, errs[i] = c.Track(ctx, "1234")
			})
		}
		wg.Wait()
		for _, err := range errs[1:] {
			if (err == nil) != (errs[0] == nil) {
				t.Fatalf("one batch, several outcomes: %v", errs)
			}
		}
		if errs[0] != nil && !errors.Is(errs[0], carriers.ErrOverQuota) {
			t.Fatal(errs[0])
		}
		return errs[0] == nil
	}
	a, b, d := &carriers.TrackingClaim{Account: "acct_a"}, &carriers.TrackingClaim{Account: "acct_b"}, &carriers.TrackingClaim{Account: "acct_d"}
	bLabel := &carriers.TrackingClaim{Account: "acct_b", Label: true}
	for range 5 {
		if !batch(nil, nil, nil) {
			t.Fatal("a batch without claims was refused with calls left")
		}
	}
	type outcome struct{ Mixed, OneAccount, OneAccountAgain, MixedWithALabel bool }
	got := outcome{
		Mixed:           batch(a, b, d), // no share: borrows, and 5 are left
		OneAccount:      batch(a, a, a), // acct_a's share, untouched by the mixed batch
		OneAccountAgain: batch(a, a, a), // its share spent: borrows
		MixedWithALabel: batch(a, bLabel, d),
	}
	if diff := cmp.Diff(outcome{Mixed: false, OneAccount: true, OneAccountAgain: false, MixedWithALabel: true}, got); diff != "" {
		t.Errorf("batches that went (-want +got):\n%s", diff)
	}
}
