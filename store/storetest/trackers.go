package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testTrackers covers trackers.go.
func testTrackers(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		withETA := newTracker(t, s, acct.ID)
		withoutETA := trackerRow(newShipment(t, s, acct.ID, "live", "purchased"))
		withoutETA.EstimatedDeliveryAt = nil
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertTracker(ctx, withoutETA) })
		for _, want := range []store.Tracker{withETA, *withoutETA} {
			got, err := s.Tracker(ctx, acct.ID, want.ID)
			noErr(t, "Tracker", err)
			if d := diff(want, got); d != "" {
				t.Errorf("Tracker(%s) (-want +got):\n%s", want.ID, d)
			}
			got, err = s.TrackerByID(ctx, want.ID)
			noErr(t, "TrackerByID", err)
			if d := diff(want, got); d != "" {
				t.Errorf("TrackerByID(%s) (-want +got):\n%s", want.ID, d)
			}
		}
		_, err := s.Tracker(ctx, other.ID, withETA.ID)
		wantErr(t, "Tracker of another account", err, store.ErrNotFound)
		_, err = s.Tracker(ctx, acct.ID, "trk_missing")
		wantErr(t, "Tracker", err, store.ErrNotFound)
		_, err = s.TrackerByID(ctx, "trk_missing")
		wantErr(t, "TrackerByID", err, store.ErrNotFound)
	})

	leaf(t, open, "UpdateTrackerStatus", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		tr, bystander := newTracker(t, s, acct.ID), newTracker(t, s, acct.ID)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.UpdateTrackerStatus(ctx, tr.ID, "in_transit", at(time.Hour))
		})
		tr.Status, tr.UpdatedAt = "in_transit", at(time.Hour)
		for _, want := range []store.Tracker{tr, bystander} {
			got, err := s.TrackerByID(ctx, want.ID)
			noErr(t, "TrackerByID", err)
			if d := diff(want, got); d != "" {
				t.Errorf("TrackerByID(%s) (-want +got):\n%s", want.ID, d)
			}
		}
	})

	leaf(t, open, "UpdateTrackerEstimate", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		estimated, bystander := newTracker(t, s, acct.ID), newTracker(t, s, acct.ID)
		unestimated := trackerRow(newShipment(t, s, acct.ID, "live", "purchased"))
		unestimated.EstimatedDeliveryAt = nil
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertTracker(ctx, unestimated) })
		// The carrier's new estimate replaces the purchase-time one, or is the first.
		for i, tr := range []store.Tracker{estimated, *unestimated} {
			eta, now := at(time.Duration(96+i)*time.Hour), at(time.Duration(i+1)*time.Hour)
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				return tx.UpdateTrackerEstimate(ctx, tr.ID, eta, now)
			})
			tr.EstimatedDeliveryAt, tr.UpdatedAt = &eta, now
			got, err := s.TrackerByID(ctx, tr.ID)
			noErr(t, "TrackerByID", err)
			if d := diff(tr, got); d != "" {
				t.Errorf("TrackerByID(%s) after UpdateTrackerEstimate (-want +got):\n%s", tr.ID, d)
			}
		}
		got, err := s.TrackerByID(ctx, bystander.ID)
		noErr(t, "TrackerByID", err)
		if d := diff(bystander, got); d != "" {
			t.Errorf("UpdateTrackerEstimate changed another tracker (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "tracking events once per scan, newest first", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		tr, other := newTracker(t, s, acct.ID), newTracker(t, s, acct.ID)
		scan := func(trackerID string, index int) *store.TrackingEvent {
			return &store.TrackingEvent{TrackerID: trackerID, ScanIndex: index, Status: "in_transit",
				Message: fmt.Sprintf("scan %d", index), Location: "Memphis, TN", OccurredAt: at(time.Duration(index) * time.Hour)}
		}
		var want []store.TrackingEvent
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			// Scans recorded out of order: the list orders by scan index.
			for _, i := range []int{1, 0, 2} {
				e := scan(tr.ID, i)
				inserted, err := tx.InsertTrackingEvent(ctx, e)
				noErr(t, "InsertTrackingEvent", err)
				if !inserted {
					t.Errorf("InsertTrackingEvent of new scan %d = false", i)
				}
				want = append(want, *e)
				// The same index on another tracker is another scan.
				inserted, err = tx.InsertTrackingEvent(ctx, scan(other.ID, i))
				noErr(t, "InsertTrackingEvent", err)
				if !inserted {
					t.Errorf("InsertTrackingEvent of scan %d of another tracker = false", i)
				}
			}
			return nil
		})
		// A retried scan job records nothing new, even with other contents.
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			again := scan(tr.ID, 1)
			again.Message = "duplicate"
			inserted, err := tx.InsertTrackingEvent(ctx, again)
			noErr(t, "InsertTrackingEvent", err)
			if inserted {
				t.Error("InsertTrackingEvent of an already recorded scan = true")
			}
			return nil
		})
		got, err := s.CachedTrackingEvents(ctx, tr.ID, 10)
		noErr(t, "TrackingEvents", err)
		// Seq is assigned by the database; compare it only for being set.
		for i := range got {
			if got[i].Seq == 0 {
				t.Errorf("TrackingEvents[%d].Seq = 0", i)
			}
			got[i].Seq = 0
		}
		if d := diff([]store.TrackingEvent{want[2], want[0], want[1]}, got); d != "" {
			t.Errorf("TrackingEvents (-want +got):\n%s", d)
		}
		got, err = s.CachedTrackingEvents(ctx, tr.ID, 2)
		noErr(t, "TrackingEvents", err)
		if len(got) != 2 || got[0].ScanIndex != 2 || got[1].ScanIndex != 1 {
			t.Errorf("TrackingEvents with limit 2 = %+v, want scans 2 and 1", got)
		}
	})
}

// trackerRow is a tracker of sh with an estimated delivery.
func trackerRow(sh store.Shipment) *store.Tracker {
	return &store.Tracker{ID: store.NewID("trk"), AccountID: sh.AccountID, Mode: sh.Mode, ShipmentID: &sh.ID,
		Carrier: "usps", TrackingNumber: "9400111899223344556677", Status: "pre_transit",
		EstimatedDeliveryAt: ptr(at(72 * time.Hour)), Plan: `[{"after":"1h","status":"in_transit"}]`,
		CreatedAt: t0, UpdatedAt: t0}
}

// newTracker inserts a tracker of a new purchased shipment of accountID.
func newTracker(t *testing.T, s *store.Store, accountID string) store.Tracker {
	t.Helper()
	tr := trackerRow(newShipment(t, s, accountID, "live", "purchased"))
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertTracker(ctx, tr) })
	return *tr
}
