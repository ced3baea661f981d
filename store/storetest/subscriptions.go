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

// testSubscriptions covers webhooks.go; pages.go walks ListSubscriptions.
func testSubscriptions(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		described := subscriptionRow(acct.ID, "test", "https://example.com/hooks/a")
		bare := subscriptionRow(acct.ID, "live", "https://example.com/hooks/b")
		bare.Description, bare.Enabled = nil, false
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertSubscription", tx.InsertSubscription(ctx, described))
			return tx.InsertSubscription(ctx, bare)
		})
		if described.Seq == 0 || bare.Seq <= described.Seq {
			t.Errorf("InsertSubscription seqs %d then %d, want increasing and set", described.Seq, bare.Seq)
		}
		for _, want := range []*store.Subscription{described, bare} {
			got, err := s.Subscription(ctx, acct.ID, want.ID)
			noErr(t, "Subscription", err)
			if d := diff(*want, got); d != "" {
				t.Errorf("Subscription(%s) (-want +got):\n%s", want.ID, d)
			}
			got, err = s.SubscriptionByID(ctx, want.ID)
			noErr(t, "SubscriptionByID", err)
			if d := diff(*want, got); d != "" {
				t.Errorf("SubscriptionByID(%s) (-want +got):\n%s", want.ID, d)
			}
			rows, _, err := s.ListSubscriptions(ctx, acct.ID, want.Mode, paging.Request{Limit: 10})
			noErr(t, "ListSubscriptions", err)
			if d := diff([]store.Subscription{*want}, rows); d != "" {
				t.Errorf("ListSubscriptions(%s) (-want +got):\n%s", want.Mode, d)
			}
		}
	})

	leaf(t, open, "reads are scoped by account", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		_, err := s.Subscription(ctx, other.ID, sub.ID)
		wantErr(t, "Subscription of another account", err, store.ErrNotFound)
		_, err = s.Subscription(ctx, acct.ID, "wh_missing")
		wantErr(t, "Subscription", err, store.ErrNotFound)
		_, err = s.SubscriptionByID(ctx, "wh_missing")
		wantErr(t, "SubscriptionByID", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeSubscription(ctx, other.ID, sub.ID, t0) })
		wantErr(t, "RevokeSubscription by another account", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeSubscription(ctx, acct.ID, "wh_missing", t0) })
		wantErr(t, "RevokeSubscription of a missing subscription", err, store.ErrNotFound)
		if _, err := s.Subscription(ctx, acct.ID, sub.ID); err != nil {
			t.Errorf("Subscription after another account's revocation: %v", err)
		}
		subs, err := s.DeliverableSubscriptions(ctx, other.ID, "test")
		noErr(t, "DeliverableSubscriptions", err)
		if len(subs) != 0 {
			t.Errorf("DeliverableSubscriptions of another account = %d subscriptions, want none", len(subs))
		}
	})

	leaf(t, open, "one active subscription per URL, account and mode", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		const url = "https://example.com/hooks"
		first := newSubscription(t, s, acct.ID, "test", url)
		insert := func(accountID, mode string) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				return tx.InsertSubscription(ctx, subscriptionRow(accountID, mode, url))
			})
		}
		wantErr(t, "InsertSubscription of an active URL", insert(acct.ID, "test"), store.ErrDuplicateEndpoint)
		noErr(t, "InsertSubscription of the URL in the other mode", insert(acct.ID, "live"))
		noErr(t, "InsertSubscription of the URL in another account", insert(other.ID, "test"))
		// A disabled subscription still holds its URL: only revocation frees it.
		disabled := first
		disabled.Enabled = false
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &disabled) })
		wantErr(t, "InsertSubscription of a disabled subscription's URL", insert(acct.ID, "test"), store.ErrDuplicateEndpoint)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.RevokeSubscription(ctx, acct.ID, first.ID, t0)
		})
		noErr(t, "InsertSubscription after revocation", insert(acct.ID, "test"))
		n, err := s.CountActiveSubscriptions(ctx, acct.ID, "test")
		noErr(t, "CountActiveSubscriptions", err)
		if n != 1 {
			t.Errorf("CountActiveSubscriptions = %d, want 1", n)
		}
	})

	leaf(t, open, "duplicate id is not a duplicate endpoint", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		first := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		dup := subscriptionRow(acct.ID, "test", "https://example.com/b")
		dup.ID = first.ID
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertSubscription(ctx, dup) })
		if err == nil || errors.Is(err, store.ErrDuplicateEndpoint) {
			t.Errorf("InsertSubscription with an existing id: got %v, want an error other than ErrDuplicateEndpoint", err)
		}
	})

	leaf(t, open, "RevokeSubscription hides it from every read but SubscriptionByID", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		kept := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		revokedAt := at(time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.RevokeSubscription(ctx, acct.ID, sub.ID, revokedAt)
		})
		_, err := s.Subscription(ctx, acct.ID, sub.ID)
		wantErr(t, "Subscription of a revoked subscription", err, store.ErrNotFound)
		got, err := s.SubscriptionByID(ctx, sub.ID)
		noErr(t, "SubscriptionByID", err)
		want := sub
		want.RevokedAt, want.UpdatedAt = &revokedAt, revokedAt
		if d := diff(want, got); d != "" {
			t.Errorf("SubscriptionByID of a revoked subscription (-want +got):\n%s", d)
		}
		n, err := s.CountActiveSubscriptions(ctx, acct.ID, "test")
		noErr(t, "CountActiveSubscriptions", err)
		if n != 1 {
			t.Errorf("CountActiveSubscriptions = %d, want 1", n)
		}
		deliverable, err := s.DeliverableSubscriptions(ctx, acct.ID, "test")
		noErr(t, "DeliverableSubscriptions", err)
		if d := diff([]store.Subscription{kept}, deliverable); d != "" {
			t.Errorf("DeliverableSubscriptions (-want +got):\n%s", d)
		}
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeSubscription(ctx, acct.ID, sub.ID, at(2*time.Hour)) })
		wantErr(t, "RevokeSubscription of a revoked subscription", err, store.ErrNotFound)
		// An update of a revoked subscription changes nothing.
		late := want
		late.Enabled, late.EventsJSON, late.UpdatedAt = false, `["*"]`, at(3*time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &late) })
		got, err = s.SubscriptionByID(ctx, sub.ID)
		noErr(t, "SubscriptionByID", err)
		if d := diff(want, got); d != "" {
			t.Errorf("UpdateSubscription changed a revoked subscription (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "UpdateSubscription writes the mutable fields", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
		bystander := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
		for _, desc := range []*string{nil, ptr("now described")} { // description cleared, then set
			updated := sub
			updated.EventsJSON = `["label.voided"]`
			updated.Description = desc
			updated.Enabled = desc != nil
			updated.UpdatedAt = at(time.Hour)
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &updated) })
			got, err := s.Subscription(ctx, acct.ID, sub.ID)
			noErr(t, "Subscription", err)
			if d := diff(updated, got); d != "" {
				t.Errorf("Subscription after UpdateSubscription (-want +got):\n%s", d)
			}
		}
		got, err := s.Subscription(ctx, acct.ID, bystander.ID)
		noErr(t, "Subscription", err)
		if d := diff(bystander, got); d != "" {
			t.Errorf("UpdateSubscription changed another subscription (-want +got):\n%s", d)
		}
	})

	// A transaction's read of the deliverable subscriptions (what fanning
	// out an event reads) sees every commit before it, its own writes, and
	// never a write that was rolled back, whatever the backend keeps
	// (SQLite's server caches the answer between writes, store.CacheDetails).
	leaf(t, open, "DeliverableSubscriptions in a transaction see every commit and no rollback", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		deliverable := func(what string) []string {
			t.Helper()
			var ids []string
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
				subs, err := tx.DeliverableSubscriptions(ctx, acct.ID, "test")
				for _, sub := range subs {
					ids = append(ids, sub.ID)
				}
				return err
			})
			return ids
		}
		check := func(what string, want ...string) {
			t.Helper()
			for range 2 { // the second read may be answered from memory
				if d := diff(want, deliverable(what)); d != "" {
					t.Fatalf("%s: deliverable subscriptions (-want +got):\n%s", what, d)
				}
			}
		}
		errAbort := errors.New("abort")
		check("at first")

		a := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks/a")
		check("after an insert", a.ID)

		b := subscriptionRow(acct.ID, "test", "https://example.com/hooks/b")
		err := s.Tx(ctx, func(tx *store.Tx) error {
			noErr(t, "InsertSubscription", tx.InsertSubscription(ctx, b))
			subs, err := tx.DeliverableSubscriptions(ctx, acct.ID, "test")
			noErr(t, "DeliverableSubscriptions after its own insert", err)
			if len(subs) != 2 {
				t.Errorf("a transaction sees %d deliverable subscriptions after its own insert, want 2", len(subs))
			}
			return errAbort
		})
		wantErr(t, "Tx", err, errAbort)
		check("after an insert rolled back", a.ID)

		disabled := a
		disabled.Enabled, disabled.UpdatedAt = false, at(time.Minute)
		err = s.Tx(ctx, func(tx *store.Tx) error {
			noErr(t, "UpdateSubscription", tx.UpdateSubscription(ctx, &disabled))
			return errAbort
		})
		wantErr(t, "Tx", err, errAbort)
		check("after disabling rolled back", a.ID)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &disabled) })
		check("after disabling")
		enabled := disabled
		enabled.Enabled = true
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &enabled) })
		check("after enabling again", a.ID)

		// Transactions that SQLite commits as one group: one inserts and
		// fails, the next reads after it, the first one holding the writer
		// until both have queued.
		hold, held := make(chan struct{}), make(chan struct{})
		firstDone := make(chan error, 1)
		go func() {
			firstDone <- s.Tx(ctx, func(*store.Tx) error { close(held); <-hold; return nil })
		}()
		<-held
		failed, read := make(chan error, 1), make(chan []string, 1)
		go func() {
			failed <- s.Tx(ctx, func(tx *store.Tx) error {
				noErr(t, "InsertSubscription", tx.InsertSubscription(ctx, b))
				return errAbort
			})
		}()
		time.Sleep(20 * time.Millisecond) // the failing one queues first
		go func() { read <- deliverable("after a failed insert of the same group") }()
		time.Sleep(20 * time.Millisecond)
		close(hold)
		noErr(t, "the first transaction", <-firstDone)
		wantErr(t, "the failed insert", <-failed, errAbort)
		if d := diff([]string{a.ID}, <-read); d != "" {
			t.Errorf("read after a failed insert of the same group (-want +got):\n%s", d)
		}
		check("after the group", a.ID)

		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.RevokeSubscription(ctx, acct.ID, a.ID, at(time.Hour))
		})
		check("after revoking")
	})

	leaf(t, open, "DeliverableSubscriptions are the enabled active ones, oldest first", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		var want []store.Subscription
		for i := range 6 {
			url := fmt.Sprintf("https://example.com/hooks/%d", i)
			sub := newSubscription(t, s, acct.ID, "test", url)
			switch i {
			case 1: // disabled
				sub.Enabled = false
				mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.UpdateSubscription(ctx, &sub) })
			case 3: // revoked
				mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.RevokeSubscription(ctx, acct.ID, sub.ID, t0) })
			default:
				want = append(want, sub)
			}
			newSubscription(t, s, acct.ID, "live", url)
			newSubscription(t, s, other.ID, "test", url)
		}
		got, err := s.DeliverableSubscriptions(ctx, acct.ID, "test")
		noErr(t, "DeliverableSubscriptions", err)
		if d := diff(want, got); d != "" {
			t.Errorf("DeliverableSubscriptions (-want +got):\n%s", d)
		}
		n, err := s.CountActiveSubscriptions(ctx, acct.ID, "test")
		noErr(t, "CountActiveSubscriptions", err)
		if n != 5 { // the disabled one counts against the limit, the revoked one does not
			t.Errorf("CountActiveSubscriptions = %d, want 5", n)
		}
	})

	leaf(t, open, "concurrent inserts under LockAccount respect the limit", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		const limit, attempts = 25, 30
		errs := race(attempts, func(i int) error {
			return s.Tx(ctx, func(tx *store.Tx) error {
				if _, err := tx.LockAccount(ctx, acct.ID); err != nil {
					return fmt.Errorf("LockAccount: %w", err)
				}
				n, err := tx.CountActiveSubscriptions(ctx, acct.ID, "test")
				if err != nil {
					return fmt.Errorf("CountActiveSubscriptions: %w", err)
				}
				if n >= limit {
					return nil
				}
				return tx.InsertSubscription(ctx, subscriptionRow(acct.ID, "test", fmt.Sprintf("https://example.com/hooks/%d", i)))
			})
		})
		for i, err := range errs {
			if err != nil {
				t.Errorf("transaction %d: %v", i, err)
			}
		}
		n, err := s.CountActiveSubscriptions(ctx, acct.ID, "test")
		noErr(t, "CountActiveSubscriptions", err)
		if n != limit {
			t.Errorf("CountActiveSubscriptions after %d racing inserts = %d, want %d", attempts, n, limit)
		}
	})
}
