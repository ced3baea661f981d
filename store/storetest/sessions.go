package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// sessionRow is a test-mode session of u, started at t0, ending 12 h later.
func sessionRow(u store.User, id string) store.Session {
	hash := sha256.Sum256([]byte(id))
	return store.Session{IDHash: hash[:], UserID: u.ID, AccountID: u.AccountID, Mode: "test",
		CreatedAt: t0, LastSeenAt: t0, ExpiresAt: at(12 * time.Hour)}
}

// newSession inserts sessionRow(u, id) and returns it.
func newSession(t *testing.T, s *store.Store, u store.User, id string) store.Session {
	t.Helper()
	sess := sessionRow(u, id)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertSession(ctx, sess) })
	return sess
}

// testSessions covers sessions.go.
func testSessions(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		u := newUser(t, s, newAccount(t, s).ID, "ada@example.com")
		want := newSession(t, s, u, "session one")
		got, err := s.Session(ctx, want.IDHash)
		noErr(t, "Session", err)
		if d := diff(want, got); d != "" {
			t.Errorf("Session (-want +got):\n%s", d)
		}
		if !bytes.Equal(got.IDHash, want.IDHash) || len(got.IDHash) != sha256.Size {
			t.Errorf("id_hash %x, want %x", got.IDHash, want.IDHash)
		}
		n, err := s.CountSessions(ctx, u.ID)
		noErr(t, "CountSessions", err)
		if n != 1 {
			t.Errorf("CountSessions = %d, want 1", n)
		}
	})

	leaf(t, open, "missing session", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		u := newUser(t, s, newAccount(t, s).ID, "ada@example.com")
		newSession(t, s, u, "kept")
		missing := sessionRow(u, "never stored").IDHash
		_, err := s.Session(ctx, missing)
		wantErr(t, "Session", err, store.ErrNotFound)
		for name, fn := range map[string]func(tx *store.Tx) error{
			"TouchSession":   func(tx *store.Tx) error { return tx.TouchSession(ctx, missing, at(time.Minute)) },
			"SetSessionMode": func(tx *store.Tx) error { return tx.SetSessionMode(ctx, missing, "live") },
			"DeleteSession":  func(tx *store.Tx) error { return tx.DeleteSession(ctx, missing) },
		} {
			wantErr(t, name, s.Tx(ctx, fn), store.ErrNotFound)
		}
	})

	leaf(t, open, "session of a missing user is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sess := sessionRow(store.User{ID: "usr_missing", AccountID: acct.ID}, "orphan")
		if err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertSession(ctx, sess) }); err == nil {
			t.Fatal("InsertSession for a missing user succeeded")
		}
	})

	leaf(t, open, "touch, mode and delete change one session", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		u := newUser(t, s, newAccount(t, s).ID, "ada@example.com")
		sess, other := newSession(t, s, u, "one"), newSession(t, s, u, "two")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "TouchSession", tx.TouchSession(ctx, sess.IDHash, at(10*time.Minute)))
			// An older use (a slow request finishing late) does not move it back.
			noErr(t, "TouchSession older", tx.TouchSession(ctx, sess.IDHash, at(5*time.Minute)))
			return tx.SetSessionMode(ctx, sess.IDHash, "live")
		})
		got, err := s.Session(ctx, sess.IDHash)
		noErr(t, "Session", err)
		sess.LastSeenAt, sess.Mode = at(10*time.Minute), "live"
		if d := diff(sess, got); d != "" {
			t.Errorf("touched session (-want +got):\n%s", d)
		}
		got, err = s.Session(ctx, other.IDHash)
		noErr(t, "Session", err)
		if d := diff(other, got); d != "" {
			t.Errorf("the other session changed (-want +got):\n%s", d)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.DeleteSession(ctx, sess.IDHash) })
		_, err = s.Session(ctx, sess.IDHash)
		wantErr(t, "Session after DeleteSession", err, store.ErrNotFound)
		if _, err := s.Session(ctx, other.IDHash); err != nil {
			t.Errorf("the other session after DeleteSession: %v", err)
		}
	})

	leaf(t, open, "DeleteEndedSessions", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		u := newUser(t, s, newAccount(t, s).ID, "ada@example.com")
		live := sessionRow(u, "live")
		live.LastSeenAt = at(11 * time.Hour)
		idle := sessionRow(u, "idle")
		idle.LastSeenAt = at(time.Hour)
		old := sessionRow(u, "old")
		old.CreatedAt, old.LastSeenAt, old.ExpiresAt = at(-13*time.Hour), at(11*time.Hour), at(-time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for _, sess := range []store.Session{live, idle, old} {
				noErr(t, "InsertSession", tx.InsertSession(ctx, sess))
			}
			return nil
		})
		now := at(11*time.Hour + 10*time.Minute)
		var n int64
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			n, err = tx.DeleteEndedSessions(ctx, now, now.Add(-30*time.Minute))
			return err
		})
		if n != 2 {
			t.Errorf("DeleteEndedSessions removed %d, want 2 (idle and past its end)", n)
		}
		if _, err := s.Session(ctx, live.IDHash); err != nil {
			t.Errorf("the session in use was removed: %v", err)
		}
		for _, gone := range []store.Session{idle, old} {
			_, err := s.Session(ctx, gone.IDHash)
			wantErr(t, "Session of an ended session", err, store.ErrNotFound)
		}
	})
}
