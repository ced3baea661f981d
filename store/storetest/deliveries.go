package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// testDeliveries covers deliveries.go; pages.go walks ListDeliveries.
func testDeliveries(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		// Every nullable column set in one delivery and nil in the other.
		full := deliveryRow(sub, newEvent(t, s, acct.ID, "test", "label.purchased").ID)
		full.EventData = ptr(`{"test":true}`)
		full.Status, full.Attempts, full.AutoAttempts = "failed", 3, 2
		full.RetryRequest, full.RetryRequestedAt = ptr("nonce-1"), ptr(at(time.Minute))
		full.LastError = ptr("connection refused")
		bare := deliveryRow(sub, newEvent(t, s, acct.ID, "test", "label.purchased").ID)
		bare.NextAttemptAt = nil
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, d := range []*store.Delivery{full, bare} {
				inserted, err := tx.InsertDelivery(ctx, d)
				noErr(t, "InsertDelivery", err)
				if !inserted {
					t.Errorf("InsertDelivery of a new (subscription, event) = false")
				}
			}
			return nil
		})
		if full.Seq == 0 || bare.Seq <= full.Seq {
			t.Errorf("InsertDelivery seqs %d then %d, want increasing and set", full.Seq, bare.Seq)
		}
		for _, want := range []*store.Delivery{full, bare} {
			checkDelivery(t, s, *want)
		}
		rows, _, err := s.ListDeliveries(t.Context(), acct.ID, sub.ID, paging.Request{Limit: 10})
		noErr(t, "ListDeliveries", err)
		if d := diff([]store.Delivery{*bare, *full}, rows); d != "" {
			t.Errorf("ListDeliveries (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "missing delivery", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		other := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		d := newDelivery(t, s, sub, "evt_1")
		_, err := s.Delivery(ctx, "whd_missing")
		wantErr(t, "Delivery", err, store.ErrNotFound)
		_, err = s.DeliveryToSend(ctx, "whd_missing")
		wantErr(t, "DeliveryToSend", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { _, err := tx.LockDelivery(ctx, "whd_missing"); return err })
		wantErr(t, "LockDelivery", err, store.ErrNotFound)
		// A delivery names its subscription: the caller compares it with the one it was asked for.
		got, err := s.DeliveryToSend(ctx, d.ID)
		noErr(t, "DeliveryToSend", err)
		if got.Subscription.ID != sub.ID || got.Subscription.ID == other.ID {
			t.Errorf("DeliveryToSend(%s).Subscription.ID = %s, want %s", d.ID, got.Subscription.ID, sub.ID)
		}
	})

	leaf(t, open, "DeliveryToSend reads the subscription and the event with the delivery", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		ev := newEvent(t, s, acct.ID, "test", "label.purchased")
		fromHistory := newDelivery(t, s, sub, ev.ID)
		got, err := s.DeliveryToSend(ctx, fromHistory.ID)
		noErr(t, "DeliveryToSend", err)
		want := store.DeliveryToSend{SubscribedDelivery: store.SubscribedDelivery{Delivery: fromHistory, Subscription: sub},
			EventAPIVersion: &ev.APIVersion, EventCreatedAt: &ev.CreatedAt, EventRecord: &ev.Data}
		if d := diff(want, got); d != "" {
			t.Errorf("DeliveryToSend of a delivery of a recorded event (-want +got):\n%s", d)
		}

		// A delivery with its own data (webhook.test's) reads no event,
		// even one of the same id; nor does one whose event is gone.
		own := deliveryRow(sub, ev.ID)
		own.SubscriptionID, own.EventData = newSubscription(t, s, acct.ID, "test", "https://example.com/other").ID, ptr(`{"test":true}`)
		missing := deliveryRow(sub, "evt_gone")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.InsertDeliveries(ctx, []*store.Delivery{own, missing})
			return err
		})
		for _, want := range []*store.Delivery{own, missing} {
			got, err := s.DeliveryToSend(ctx, want.ID)
			noErr(t, "DeliveryToSend", err)
			if d := diff(*want, got.Delivery); d != "" {
				t.Errorf("DeliveryToSend(%s).Delivery (-want +got):\n%s", want.ID, d)
			}
			if got.EventAPIVersion != nil || got.EventCreatedAt != nil || got.EventRecord != nil {
				t.Errorf("DeliveryToSend(%s) read an event: %v %v %v", want.ID, got.EventAPIVersion, got.EventCreatedAt, got.EventRecord)
			}
		}
	})

	leaf(t, open, "LockDelivery holds the delivery until the transaction ends", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		d := newDelivery(t, s, sub, "evt_1")
		// Each writer reads the count and writes it plus one: without the
		// lock, two read the same count and one increment is lost.
		const writers = 8
		errs := race(writers, func(int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				locked, err := tx.LockDelivery(ctx, d.ID)
				if err != nil {
					return err
				}
				if locked.Subscription.ID != sub.ID {
					return fmt.Errorf("LockDelivery read subscription %s, want %s", locked.Subscription.ID, sub.ID)
				}
				row := locked.Delivery
				row.Attempts++
				time.Sleep(5 * time.Millisecond) // widen the window between the read and the write
				return tx.UpdateDelivery(ctx, &row)
			})
		})
		for _, err := range errs {
			noErr(t, "locked increment", err)
		}
		got, err := s.Delivery(ctx, d.ID)
		noErr(t, "Delivery", err)
		if got.Attempts != writers {
			t.Errorf("%d locked increments left attempts at %d", writers, got.Attempts)
		}
	})

	leaf(t, open, "InsertDelivery once per subscription and event", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		other := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		first := newDelivery(t, s, sub, "evt_1")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			again := deliveryRow(sub, "evt_1")
			again.Status = "delivered"
			inserted, err := tx.InsertDelivery(ctx, again)
			noErr(t, "InsertDelivery", err)
			if inserted {
				t.Error("second InsertDelivery of the same (subscription, event) = true")
			}
			// The same event to another subscription is another delivery.
			inserted, err = tx.InsertDelivery(ctx, deliveryRow(other, "evt_1"))
			noErr(t, "InsertDelivery", err)
			if !inserted {
				t.Error("InsertDelivery of the event to another subscription = false")
			}
			return nil
		})
		checkDelivery(t, s, first)
		page, _, err := s.ListDeliveries(ctx, acct.ID, sub.ID, paging.Request{Limit: 10})
		noErr(t, "ListDeliveries", err)
		if len(page) != 1 {
			t.Errorf("ListDeliveries after a repeated insert = %d deliveries, want 1", len(page))
		}
	})

	leaf(t, open, "InsertDeliveries: an event's fan-out in one statement", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		subs := []store.Subscription{
			newSubscription(t, s, acct.ID, "test", "https://example.com/a"),
			newSubscription(t, s, acct.ID, "test", "https://example.com/b"),
			newSubscription(t, s, acct.ID, "test", "https://example.com/c"),
		}
		existing := newDelivery(t, s, subs[1], "evt_1")
		batch := []*store.Delivery{deliveryRow(subs[0], "evt_1"), deliveryRow(subs[1], "evt_1"), deliveryRow(subs[2], "evt_1")}
		var inserted []bool
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			none, err := tx.InsertDeliveries(ctx, nil)
			noErr(t, "InsertDeliveries of none", err)
			if len(none) != 0 {
				t.Errorf("InsertDeliveries of none = %v", none)
			}
			inserted, err = tx.InsertDeliveries(ctx, batch)
			return err
		})
		if d := diff([]bool{true, false, true}, inserted); d != "" {
			t.Errorf("InsertDeliveries with the middle (subscription, event) taken (-want +got):\n%s", d)
		}
		if batch[0].Seq == 0 || batch[2].Seq == 0 || batch[1].Seq != 0 {
			t.Errorf("seqs %d, %d, %d: want the inserted ones set, the other not", batch[0].Seq, batch[1].Seq, batch[2].Seq)
		}
		checkDelivery(t, s, *batch[0])
		checkDelivery(t, s, *batch[2])
		checkDelivery(t, s, existing)
	})

	leaf(t, open, "UpdateDelivery", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		d, bystander := newDelivery(t, s, sub, "evt_1"), newDelivery(t, s, sub, "evt_2")
		queued := d
		queued.Attempts, queued.AutoAttempts = 1, 1
		queued.NextAttemptAt = nil
		queued.RetryRequest, queued.RetryRequestedAt = ptr("nonce-2"), ptr(at(time.Hour))
		queued.LastError = ptr("HTTP 500")
		queued.UpdatedAt = at(time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateDelivery(ctx, &queued) })
		checkDelivery(t, s, queued)
		done := queued
		done.Status, done.Attempts = "delivered", 2
		done.NextAttemptAt, done.RetryRequest, done.RetryRequestedAt, done.LastError = ptr(at(2*time.Hour)), nil, nil, nil
		done.UpdatedAt = at(2 * time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateDelivery(ctx, &done) })
		checkDelivery(t, s, done)
		checkDelivery(t, s, bystander)
	})

	leaf(t, open, "deliveries of several events read together", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		ev1 := newEvent(t, s, acct.ID, "test", "label.purchased")
		ev2 := newEvent(t, s, acct.ID, "test", "tracker.updated")
		subA := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		subB := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		a1, b1 := newDelivery(t, s, subA, ev1.ID), newDelivery(t, s, subB, ev1.ID)
		a2 := newDelivery(t, s, subA, ev2.ID)
		// A delivery of an event that is not in events (gone, or never
		// there), and a synthetic one (webhook.test) whose data is its own.
		orphan := newDelivery(t, s, subB, "evt_gone")
		synthetic := deliveryRow(subA, store.NewID("evt"))
		synthetic.EventType, synthetic.EventData = "webhook.test", ptr(`{"test":true}`)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			_, err := tx.InsertDelivery(ctx, synthetic)
			return err
		})
		got, err := s.DeliveriesToSend(ctx, []string{a2.ID, synthetic.ID, a1.ID, orphan.ID, b1.ID})
		noErr(t, "DeliveriesToSend", err)
		of := func(d store.Delivery, sub store.Subscription, ev *store.Event) store.DeliveryToSend {
			out := store.DeliveryToSend{SubscribedDelivery: store.SubscribedDelivery{Delivery: d, Subscription: sub}}
			if ev != nil {
				out.EventAPIVersion, out.EventCreatedAt, out.EventRecord = &ev.APIVersion, &ev.CreatedAt, &ev.Data
			}
			return out
		}
		want := []store.DeliveryToSend{of(a2, subA, &ev2), of(*synthetic, subA, nil), of(a1, subA, &ev1), of(orphan, subB, nil), of(b1, subB, &ev1)}
		if d := diff(want, got); d != "" {
			t.Errorf("DeliveriesToSend (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "an event's deliveries read, locked and written together", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		ev := newEvent(t, s, acct.ID, "test", "label.purchased")
		subA := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		subB := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		subC := newSubscription(t, s, acct.ID, "test", "https://example.com/c")
		a, b, c := newDelivery(t, s, subA, ev.ID), newDelivery(t, s, subB, ev.ID), newDelivery(t, s, subC, ev.ID)
		// Asked in an order that is not the insert's, with an id that has no delivery.
		ids := []string{c.ID, "whd_missing", a.ID, b.ID}
		got, err := s.DeliveriesToSend(ctx, ids)
		noErr(t, "DeliveriesToSend", err)
		var want []store.DeliveryToSend
		for _, d := range []struct {
			row store.Delivery
			sub store.Subscription
		}{{c, subC}, {a, subA}, {b, subB}} {
			want = append(want, store.DeliveryToSend{SubscribedDelivery: store.SubscribedDelivery{Delivery: d.row, Subscription: d.sub},
				EventAPIVersion: &ev.APIVersion, EventCreatedAt: &ev.CreatedAt, EventRecord: &ev.Data})
		}
		if d := diff(want, got); d != "" {
			t.Errorf("DeliveriesToSend (-want +got):\n%s", d)
		}
		none, err := s.DeliveriesToSend(ctx, nil)
		noErr(t, "DeliveriesToSend of none", err)
		if len(none) != 0 {
			t.Errorf("DeliveriesToSend of none = %v", none)
		}

		// Two writers each lock all three, add one attempt to each and write
		// them back: without the locks one's increments are lost.
		errs := race(4, func(int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				locked, err := tx.LockDeliveries(ctx, ids)
				if err != nil {
					return err
				}
				if len(locked) != 3 || locked[0].ID != c.ID || locked[1].ID != a.ID || locked[2].ID != b.ID {
					return fmt.Errorf("LockDeliveries read %d deliveries, not c, a, b", len(locked))
				}
				if locked[0].Subscription.ID != subC.ID {
					return fmt.Errorf("LockDeliveries read subscription %s, want %s", locked[0].Subscription.ID, subC.ID)
				}
				rows := make([]*store.Delivery, len(locked))
				attempts := make([]*store.DeliveryAttempt, len(locked))
				for i, l := range locked {
					row := l.Delivery
					row.Attempts++
					rows[i] = &row
					attempts[i] = &store.DeliveryAttempt{DeliveryID: row.ID, AttemptedAt: at(time.Duration(row.Attempts) * time.Second), LatencyMs: int64(row.Attempts)}
				}
				time.Sleep(5 * time.Millisecond) // widen the window between the read and the write
				if err := tx.InsertDeliveryAttempts(ctx, attempts); err != nil {
					return err
				}
				return tx.UpdateDeliveries(ctx, rows)
			})
		})
		for _, err := range errs {
			noErr(t, "locked increments", err)
		}
		attempts, err := s.DeliveryAttempts(ctx, []string{a.ID, b.ID, c.ID})
		noErr(t, "DeliveryAttempts", err)
		for _, d := range []store.Delivery{a, b, c} {
			row, err := s.Delivery(ctx, d.ID)
			noErr(t, "Delivery", err)
			if row.Attempts != 4 || len(attempts[d.ID]) != 4 {
				t.Errorf("4 locked writers left delivery %s with %d attempts and %d attempt rows, want 4 and 4", d.ID, row.Attempts, len(attempts[d.ID]))
			}
		}

		// Every column UpdateDeliveries writes, set and cleared, in one statement.
		set, cleared := a, b
		set.Status, set.Attempts, set.AutoAttempts = "failed", 7, 5
		set.NextAttemptAt, set.RetryRequest, set.RetryRequestedAt, set.LastError = nil, ptr("nonce-3"), ptr(at(time.Hour)), ptr("HTTP 503")
		set.UpdatedAt = at(time.Hour)
		cleared.Status, cleared.Attempts, cleared.AutoAttempts = "delivered", 9, 1
		cleared.NextAttemptAt, cleared.RetryRequest, cleared.RetryRequestedAt, cleared.LastError = ptr(at(2*time.Hour)), nil, nil, nil
		cleared.UpdatedAt = at(2 * time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.UpdateDeliveries(ctx, []*store.Delivery{&set, &cleared})
		})
		checkDelivery(t, s, set)
		checkDelivery(t, s, cleared)
		c.Attempts = 4
		checkDelivery(t, s, c)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "UpdateDeliveries of none", tx.UpdateDeliveries(ctx, nil))
			noErr(t, "InsertDeliveryAttempts of none", tx.InsertDeliveryAttempts(ctx, nil))
			locked, err := tx.LockDeliveries(ctx, nil)
			if len(locked) != 0 {
				t.Errorf("LockDeliveries of none = %v", locked)
			}
			return err
		})
	})

	leaf(t, open, "delivery attempts", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		d1, d2, silent := newDelivery(t, s, sub, "evt_1"), newDelivery(t, s, sub, "evt_2"), newDelivery(t, s, sub, "evt_3")
		attempts := []*store.DeliveryAttempt{
			{DeliveryID: d1.ID, AutoAttempt: ptr(1), AttemptedAt: t0, LatencyMs: 30000, Error: ptr("timeout")},
			{DeliveryID: d2.ID, AutoAttempt: ptr(1), AttemptedAt: at(time.Second), ResponseStatus: ptr(200), LatencyMs: 12},
			{DeliveryID: d1.ID, AutoAttempt: ptr(2), AttemptedAt: at(time.Minute), ResponseStatus: ptr(503), LatencyMs: 40},
			// Manual attempts have no number, and there may be several.
			{DeliveryID: d1.ID, AttemptedAt: at(2 * time.Minute), ResponseStatus: ptr(200), LatencyMs: 8},
			{DeliveryID: d1.ID, AttemptedAt: at(3 * time.Minute), ResponseStatus: ptr(200), LatencyMs: 9},
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, a := range attempts {
				noErr(t, "InsertDeliveryAttempt", tx.InsertDeliveryAttempt(ctx, a))
			}
			return nil
		})
		// A job run twice must not record its automatic attempt twice.
		err := s.Tx(ctx, func(tx *store.Tx) error {
			return tx.InsertDeliveryAttempt(ctx, &store.DeliveryAttempt{DeliveryID: d1.ID, AutoAttempt: ptr(2), AttemptedAt: at(time.Hour)})
		})
		if err == nil {
			t.Error("InsertDeliveryAttempt of an automatic attempt already recorded succeeded")
		}
		got, err := s.DeliveryAttempts(ctx, []string{d1.ID, d2.ID, silent.ID, "whd_missing"})
		noErr(t, "DeliveryAttempts", err)
		want := map[string][]store.DeliveryAttempt{
			d1.ID: {*attempts[0], *attempts[2], *attempts[3], *attempts[4]},
			d2.ID: {*attempts[1]},
		}
		if d := diff(want, got); d != "" {
			t.Errorf("DeliveryAttempts (-want +got):\n%s", d)
		}
		got, err = s.DeliveryAttempts(ctx, nil)
		noErr(t, "DeliveryAttempts of no delivery", err)
		if len(got) != 0 {
			t.Errorf("DeliveryAttempts of no delivery = %v, want an empty map", got)
		}
	})

	leaf(t, open, "SettleDeliveries moves the subscription's pending ones to failed", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		other := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		scheduled := newDelivery(t, s, sub, "evt_1")
		retrying := deliveryRow(sub, "evt_2")
		retrying.RetryRequest, retrying.RetryRequestedAt = ptr("nonce"), ptr(t0)
		delivered := deliveryRow(sub, "evt_3")
		delivered.Status, delivered.NextAttemptAt = "delivered", nil
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, d := range []*store.Delivery{retrying, delivered} {
				if _, err := tx.InsertDelivery(ctx, d); err != nil {
					return err
				}
			}
			return nil
		})
		otherPending := newDelivery(t, s, other, "evt_1")
		var n int64
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			n, err = tx.SettleDeliveries(ctx, sub.ID, "pending", "failed", "subscription disabled", at(time.Hour))
			return err
		})
		if n != 2 {
			t.Errorf("SettleDeliveries = %d, want 2", n)
		}
		for _, d := range []store.Delivery{scheduled, *retrying} {
			d.Status, d.LastError, d.UpdatedAt = "failed", ptr("subscription disabled"), at(time.Hour)
			d.NextAttemptAt, d.RetryRequest, d.RetryRequestedAt = nil, nil, nil
			checkDelivery(t, s, d)
		}
		checkDelivery(t, s, *delivered)
		checkDelivery(t, s, otherPending)
	})

	leaf(t, open, "DeliveryCounts count by event and status", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		subs := make([]store.Subscription, 4)
		for i := range subs {
			subs[i] = newSubscription(t, s, acct.ID, "test", "https://example.com/"+string(rune('a'+i)))
		}
		statuses := []string{"pending", "delivered", "delivered", "failed"}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for i, status := range statuses {
				d := deliveryRow(subs[i], "evt_busy")
				d.Status = status
				if _, err := tx.InsertDelivery(ctx, d); err != nil {
					return err
				}
			}
			d := deliveryRow(subs[0], "evt_quiet")
			d.Status = "delivered"
			_, err := tx.InsertDelivery(ctx, d)
			return err
		})
		got, err := s.DeliveryCounts(ctx, []string{"evt_busy", "evt_quiet", "evt_none"})
		noErr(t, "DeliveryCounts", err)
		want := map[string]map[string]int{
			"evt_busy":  {"pending": 1, "delivered": 2, "failed": 1},
			"evt_quiet": {"delivered": 1},
		}
		if d := diff(want, got); d != "" {
			t.Errorf("DeliveryCounts (-want +got):\n%s", d)
		}
		got, err = s.DeliveryCounts(ctx, nil)
		noErr(t, "DeliveryCounts of no event", err)
		if len(got) != 0 {
			t.Errorf("DeliveryCounts of no event = %v, want an empty map", got)
		}
	})

	leaf(t, open, "ListDeliveries is scoped by account", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		theirs := newSubscription(t, s, other.ID, "test", "https://example.com/hooks")
		newDelivery(t, s, theirs, "evt_1")
		got, _, err := s.ListDeliveries(ctx, acct.ID, theirs.ID, paging.Request{Limit: 10})
		if err == nil && len(got) != 0 {
			t.Errorf("ListDeliveries of another account's subscription returned %d deliveries", len(got))
		}
	})
}

// checkDelivery fails the test unless both reads of want's delivery return want.
func checkDelivery(t *testing.T, s *store.Store, want store.Delivery) {
	t.Helper()
	ctx := t.Context()
	got, err := s.Delivery(ctx, want.ID)
	noErr(t, "Delivery", err)
	if d := diff(want, got); d != "" {
		t.Errorf("Delivery(%s) (-want +got):\n%s", want.ID, d)
	}
	toSend, err := s.DeliveryToSend(ctx, want.ID)
	noErr(t, "DeliveryToSend", err)
	if d := diff(want, toSend.Delivery); d != "" {
		t.Errorf("DeliveryToSend(%s) (-want +got):\n%s", want.ID, d)
	}
	var locked store.SubscribedDelivery
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		locked, err = tx.LockDelivery(ctx, want.ID)
		return err
	})
	if d := diff(want, locked.Delivery); d != "" {
		t.Errorf("LockDelivery(%s) (-want +got):\n%s", want.ID, d)
	}
	if locked.Subscription.ID != want.SubscriptionID || toSend.Subscription.ID != want.SubscriptionID {
		t.Errorf("subscriptions read with %s: %s and %s, want %s", want.ID, locked.Subscription.ID, toSend.Subscription.ID, want.SubscriptionID)
	}
}
