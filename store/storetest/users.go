package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// userRow is a user of accountID with a (fake) password hash.
func userRow(accountID, email string) store.User {
	return store.User{ID: store.NewID("usr"), AccountID: accountID, Email: email,
		PasswordHash: "$2a$04$fakefakefakefakefakefu5VQn0cXyR2lD7xA3b1Zk0m9d8c7b6a5", CreatedAt: t0}
}

// newUser inserts userRow(accountID, email) and returns it.
func newUser(t *testing.T, s *store.Store, accountID, email string) store.User {
	t.Helper()
	u := userRow(accountID, email)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertUser(ctx, u) })
	return u
}

// testUsers covers users.go, and the columns the settings UI added to
// tokens.go and deliveries.go (migration 0008_ui).
func testUsers(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		first := newUser(t, s, acct.ID, "ada@example.com")
		second := userRow(acct.ID, "grace@example.com")
		second.CreatedAt = at(time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertUser(ctx, second) })
		for _, want := range []store.User{first, second} {
			got, err := s.User(ctx, want.ID)
			noErr(t, "User", err)
			if d := diff(want, got); d != "" {
				t.Errorf("User(%s) (-want +got):\n%s", want.ID, d)
			}
			got, err = s.UserByEmail(ctx, want.Email)
			noErr(t, "UserByEmail", err)
			if d := diff(want, got); d != "" {
				t.Errorf("UserByEmail(%s) (-want +got):\n%s", want.Email, d)
			}
		}
		other := newAccount(t, s)
		newUser(t, s, other.ID, "someone@example.com")
		list, err := s.ListUsers(ctx, acct.ID)
		noErr(t, "ListUsers", err)
		if d := diff([]store.User{first, second}, list); d != "" {
			t.Errorf("ListUsers, oldest first and only the account's (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "missing user", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		newUser(t, s, newAccount(t, s).ID, "ada@example.com")
		_, err := s.User(ctx, "usr_missing")
		wantErr(t, "User", err, store.ErrNotFound)
		_, err = s.UserByEmail(ctx, "nobody@example.com")
		wantErr(t, "UserByEmail", err, store.ErrNotFound)
	})

	leaf(t, open, "an email belongs to one user", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		newUser(t, s, acct.ID, "ada@example.com")
		// Not in another account either: the email alone says whose account signs in.
		dup := userRow(other.ID, "ada@example.com")
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertUser(ctx, dup) })
		wantErr(t, "InsertUser of a taken email", err, store.ErrDuplicateEmail)
		_, err = s.User(ctx, dup.ID)
		wantErr(t, "User after the refused insert", err, store.ErrNotFound)
		// Another unique violation (the id) is no duplicate email.
		again := userRow(acct.ID, "new@example.com")
		again.ID = dup.ID
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertUser(ctx, again) })
		clash := userRow(acct.ID, "third@example.com")
		clash.ID = again.ID
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertUser(ctx, clash) })
		if err == nil || errors.Is(err, store.ErrDuplicateEmail) {
			t.Errorf("InsertUser with a taken id: %v, want an error other than ErrDuplicateEmail", err)
		}
	})

	leaf(t, open, "user of a missing account is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		u := userRow("acct_missing", "ada@example.com")
		if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertUser(ctx, u) }); err == nil {
			t.Fatal("InsertUser for a missing account succeeded")
		}
	})

	leaf(t, open, "token name", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		named := tokenRow(acct.ID)
		named.Name = "CI deploys — ünïcode"
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertToken(ctx, named) })
		unnamed := newToken(t, s, acct.ID)
		list, err := s.ListTokens(ctx, acct.ID)
		noErr(t, "ListTokens", err)
		names := map[string]string{}
		for _, tok := range list {
			names[tok.ID] = tok.Name
		}
		if names[named.ID] != named.Name || names[unnamed.ID] != "" {
			t.Errorf("names %q, want %q for %s and '' for %s", names, named.Name, named.ID, unnamed.ID)
		}
	})

	leaf(t, open, "attempt response excerpt", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		d := newDelivery(t, s, sub, "evt_1")
		with := &store.DeliveryAttempt{DeliveryID: d.ID, AutoAttempt: ptr(1), AttemptedAt: at(time.Minute),
			ResponseStatus: ptr(500), LatencyMs: 12, Error: ptr("the receiver answered 500"), ResponseExcerpt: ptr(`{"error":"boom — ü"}`)}
		without := &store.DeliveryAttempt{DeliveryID: d.ID, AttemptedAt: at(2 * time.Minute), LatencyMs: 3, Error: ptr("connection refused")}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertDeliveryAttempt", tx.InsertDeliveryAttempt(ctx, with))
			return tx.InsertDeliveryAttempt(ctx, without)
		})
		got, err := s.DeliveryAttempts(ctx, []string{d.ID})
		noErr(t, "DeliveryAttempts", err)
		if d := diff([]store.DeliveryAttempt{*with, *without}, got[d.ID]); d != "" {
			t.Errorf("DeliveryAttempts (-want +got):\n%s", d)
		}
	})
}
