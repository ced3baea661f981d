package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// standaloneRow is a tracker without a shipment (POST /trackers).
func standaloneRow(accountID, mode, carrier, number string) *store.Tracker {
	return &store.Tracker{ID: store.NewID("trk"), AccountID: accountID, Mode: mode,
		Carrier: carrier, TrackingNumber: number, Status: "unknown", Plan: `[]`, CreatedAt: t0, UpdatedAt: t0}
}

func insertStandalone(t *testing.T, s *store.Store, tr *store.Tracker) bool {
	t.Helper()
	var inserted bool
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		var err error
		inserted, err = tx.InsertStandaloneTracker(ctx, tr)
		return err
	})
	return inserted
}

// testStandaloneTrackers covers the trackers without a shipment: one per
// account, mode, carrier and number, listed with labels' trackers, deleted.
func testStandaloneTrackers(t *testing.T, open Opener) {
	leaf(t, open, "one per account, mode, carrier and number", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		tr := standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456784")
		if !insertStandalone(t, s, tr) {
			t.Fatal("InsertStandaloneTracker of a new number = false")
		}
		if tr.Seq == 0 {
			t.Error("InsertStandaloneTracker left Seq 0")
		}
		got, err := s.TrackerByID(ctx, tr.ID)
		noErr(t, "TrackerByID", err)
		if d := diff(*tr, got); d != "" {
			t.Errorf("TrackerByID (-want +got):\n%s", d)
		}
		if insertStandalone(t, s, standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456784")) {
			t.Error("a second standalone tracker of the same number was inserted")
		}
		// Another mode, account, carrier or number is another tracker.
		for _, r := range []*store.Tracker{
			standaloneRow(acct.ID, "live", "UPS", "1Z999AA10123456784"),
			standaloneRow(other.ID, "test", "UPS", "1Z999AA10123456784"),
			standaloneRow(acct.ID, "test", "FedEx", "1Z999AA10123456784"),
			standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456785"),
		} {
			if !insertStandalone(t, s, r) {
				t.Errorf("InsertStandaloneTracker(%s %s %s %s) = false", r.AccountID, r.Mode, r.Carrier, r.TrackingNumber)
			}
		}
		// A label's tracker of the same number is outside the rule, and
		// TrackerByNumber prefers the standalone one.
		label := trackerRow(newShipment(t, s, acct.ID, "test", "purchased"))
		label.Carrier, label.TrackingNumber = "UPS", "1Z999AA10123456784"
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertTracker(ctx, label) })
		found, err := s.TrackerByNumber(ctx, acct.ID, "test", "UPS", "1Z999AA10123456784")
		noErr(t, "TrackerByNumber", err)
		if found.ID != tr.ID {
			t.Errorf("TrackerByNumber = %s, want the standalone %s", found.ID, tr.ID)
		}
		_, err = s.TrackerByNumber(ctx, acct.ID, "test", "USPS", "1Z999AA10123456784")
		wantErr(t, "TrackerByNumber of another carrier", err, store.ErrNotFound)
		// With no standalone tracker, the label's.
		l2 := trackerRow(newShipment(t, s, acct.ID, "test", "purchased"))
		l2.TrackingNumber = "9400111899223344556677"
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertTracker(ctx, l2) })
		found, err = s.TrackerByNumber(ctx, acct.ID, "test", l2.Carrier, l2.TrackingNumber)
		noErr(t, "TrackerByNumber", err)
		if found.ID != l2.ID {
			t.Errorf("TrackerByNumber = %s, want the label's %s", found.ID, l2.ID)
		}
		// A standalone insert refuses a tracker with a shipment.
		withShipment := trackerRow(newShipment(t, s, acct.ID, "test", "purchased"))
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			if _, err := tx.InsertStandaloneTracker(ctx, withShipment); err == nil {
				t.Error("InsertStandaloneTracker of a label's tracker: no error")
			}
			return nil
		})
	})

	leaf(t, open, "concurrent inserts of one number store one", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		const n = 8
		inserted := make([]bool, n)
		errs := race(n, func(i int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				var err error
				inserted[i], err = tx.InsertStandaloneTracker(ctx, standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456784"))
				return err
			})
		})
		count := 0
		for i, err := range errs {
			noErr(t, "InsertStandaloneTracker", err)
			if inserted[i] {
				count++
			}
		}
		if count != 1 {
			t.Errorf("%d of %d concurrent inserts stored a tracker, want 1", count, n)
		}
		rows, _, err := s.ListTrackers(ctx, acct.ID, "test", "", paging.Request{Limit: 100})
		noErr(t, "ListTrackers", err)
		if len(rows) != 1 {
			t.Errorf("%d trackers stored, want 1", len(rows))
		}
	})

	leaf(t, open, "the limit of active trackers", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		limit := store.ActiveTrackers{Max: 2, Since: at(-30 * 24 * time.Hour)}
		insert := func(tr *store.Tracker) (bool, error) {
			var inserted bool
			err := s.Tx(ctx, func(tx *store.Tx) error {
				var err error
				inserted, err = tx.InsertStandaloneTrackerWithin(ctx, tr, limit)
				return err
			})
			return inserted, err
		}
		old := standaloneRow(acct.ID, "live", "UPS", "1Z999AA10000000001")
		old.CreatedAt = at(-31 * 24 * time.Hour) // made before Since: no longer followed
		a := standaloneRow(acct.ID, "live", "UPS", "1Z999AA10000000002")
		b := standaloneRow(acct.ID, "live", "UPS", "1Z999AA10000000003")
		for _, tr := range []*store.Tracker{old, a, b} {
			if ok, err := insert(tr); !ok || err != nil {
				t.Fatalf("insert %s under the limit: %v, %v", tr.TrackingNumber, ok, err)
			}
		}
		// A label's tracker, another mode or another account count apart.
		newTracker(t, s, acct.ID)
		for _, tr := range []*store.Tracker{standaloneRow(acct.ID, "test", "UPS", "1Z999AA10000000004"), standaloneRow(other.ID, "live", "UPS", "1Z999AA10000000004")} {
			if ok, err := insert(tr); !ok || err != nil {
				t.Fatalf("insert %s %s: %v, %v", tr.AccountID, tr.Mode, ok, err)
			}
		}
		c := standaloneRow(acct.ID, "live", "UPS", "1Z999AA10000000004")
		ok, err := insert(c)
		wantErr(t, "a third active tracker of a limit of 2", err, store.ErrActiveTrackersLimit)
		if ok {
			t.Error("the third active tracker was stored")
		}
		// A number already followed is that tracker, at the limit too.
		if ok, err := insert(standaloneRow(acct.ID, "live", "UPS", a.TrackingNumber)); ok || err != nil {
			t.Errorf("insert of a followed number at the limit: %v, %v; want false, nil", ok, err)
		}
		// An ended tracker no longer counts, and keeps its first end.
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.EndTracker(ctx, a.ID, "unknown_number", at(time.Hour))
		})
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.EndTracker(ctx, a.ID, "expired", at(2*time.Hour))
		})
		got, err := s.TrackerByID(ctx, a.ID)
		noErr(t, "TrackerByID", err)
		if d := diff(struct {
			EndedAt   *time.Time
			EndReason *string
			UpdatedAt time.Time
		}{ptr(at(time.Hour)), ptr("unknown_number"), at(time.Hour)}, struct {
			EndedAt   *time.Time
			EndReason *string
			UpdatedAt time.Time
		}{got.EndedAt, got.EndReason, got.UpdatedAt}); d != "" {
			t.Errorf("the ended tracker (-want +got):\n%s", d)
		}
		if ok, err := insert(c); !ok || err != nil {
			t.Errorf("insert after a tracker ended: %v, %v", ok, err)
		}
	})

	leaf(t, open, "concurrent inserts at the limit store the limit", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		const n, most = 12, 5
		errs := race(n, func(i int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				if _, err := tx.LockAccount(ctx, acct.ID); err != nil {
					return err
				}
				_, err := tx.InsertStandaloneTrackerWithin(ctx, standaloneRow(acct.ID, "live", "USPS", fmt.Sprintf("94001118992230000000%02d", i)),
					store.ActiveTrackers{Max: most, Since: at(-time.Hour)})
				return err
			})
		})
		refused := 0
		for _, err := range errs {
			if errors.Is(err, store.ErrActiveTrackersLimit) {
				refused++
			} else {
				noErr(t, "InsertStandaloneTracker", err)
			}
		}
		rows, _, err := s.ListTrackers(ctx, acct.ID, "live", "", paging.Request{Limit: 100})
		noErr(t, "ListTrackers", err)
		if len(rows) != most || refused != n-most {
			t.Errorf("%d concurrent inserts under a limit of %d: %d stored, %d refused", n, most, len(rows), refused)
		}
	})

	leaf(t, open, "ListTrackers", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		label := newTracker(t, s, acct.ID) // live, pre_transit
		a := standaloneRow(acct.ID, "live", "UPS", "1Z999AA10123456784")
		b := standaloneRow(acct.ID, "live", "FedEx", "123456789012")
		insertStandalone(t, s, a)
		insertStandalone(t, s, b)
		insertStandalone(t, s, standaloneRow(acct.ID, "test", "FedEx", "123456789012"))
		insertStandalone(t, s, standaloneRow(other.ID, "live", "FedEx", "123456789012"))
		ids := func(rows []store.Tracker) []string {
			out := make([]string, len(rows))
			for i, r := range rows {
				out[i] = r.ID
			}
			return out
		}
		rows, more, err := s.ListTrackers(ctx, acct.ID, "live", "", paging.Request{Limit: 2})
		noErr(t, "ListTrackers", err)
		if d := diff([]string{b.ID, a.ID}, ids(rows)); d != "" || !more {
			t.Errorf("first page (-want +got):\n%s more %v", d, more)
		}
		rows, more, err = s.ListTrackers(ctx, acct.ID, "live", "", paging.Request{Limit: 2, After: a.ID})
		noErr(t, "ListTrackers", err)
		if d := diff([]string{label.ID}, ids(rows)); d != "" || more {
			t.Errorf("second page (-want +got):\n%s more %v", d, more)
		}
		rows, _, err = s.ListTrackers(ctx, acct.ID, "live", "pre_transit", paging.Request{Limit: 10})
		noErr(t, "ListTrackers", err)
		if d := diff([]string{label.ID}, ids(rows)); d != "" {
			t.Errorf("status pre_transit (-want +got):\n%s", d)
		}
		_, _, err = s.ListTrackers(ctx, other.ID, "live", "", paging.Request{Limit: 2, After: a.ID})
		wantErr(t, "a cursor of another account", err, paging.ErrInvalidCursor)
	})

	leaf(t, open, "DeleteStandaloneTracker", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		tr := standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456784")
		insertStandalone(t, s, tr)
		label := newTracker(t, s, acct.ID)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, id := range []string{tr.ID, label.ID} {
				if _, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: id, ScanIndex: 0, Status: "pre_transit",
					Message: "Shipping label created", OccurredAt: at(time.Hour)}); err != nil {
					return err
				}
			}
			return nil
		})
		// Read once, so a cache has the scans.
		if evs, err := s.CachedTrackingEvents(ctx, tr.ID, 10); err != nil || len(evs) != 1 {
			t.Fatalf("CachedTrackingEvents = %v, %v", evs, err)
		}
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteStandaloneTracker(ctx, label.ID) })
		wantErr(t, "DeleteStandaloneTracker of a label's tracker", err, store.ErrNotFound)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.DeleteStandaloneTracker(ctx, tr.ID) })
		_, err = s.TrackerByID(ctx, tr.ID)
		wantErr(t, "TrackerByID after the delete", err, store.ErrNotFound)
		if evs, err := s.CachedTrackingEvents(ctx, tr.ID, 10); err != nil || len(evs) != 0 {
			t.Errorf("scans after the delete = %v, %v", evs, err)
		}
		if evs, err := s.CachedTrackingEvents(ctx, label.ID, 10); err != nil || len(evs) != 1 {
			t.Errorf("the label's scans = %v, %v", evs, err)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteStandaloneTracker(ctx, tr.ID) })
		wantErr(t, "DeleteStandaloneTracker again", err, store.ErrNotFound)
		// The number is free again.
		if !insertStandalone(t, s, standaloneRow(acct.ID, "test", "UPS", "1Z999AA10123456784")) {
			t.Error("the number of a deleted tracker was not free")
		}
		// The scans still need their tracker.
		err = s.Tx(ctx, func(tx *store.Tx) error {
			_, err := tx.InsertTrackingEvent(ctx, &store.TrackingEvent{TrackerID: tr.ID, ScanIndex: 1, Status: "in_transit", OccurredAt: at(time.Hour)})
			return err
		})
		if err == nil || errors.Is(err, store.ErrNotFound) {
			t.Errorf("a scan of a deleted tracker: err = %v, want a foreign key violation", err)
		}
	})
}
