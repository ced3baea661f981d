package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// testTokens covers tokens.go.
func testTokens(t *testing.T, open Opener) {
	leaf(t, open, "round trip", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		// One token without expiry and one with, for the nullable column.
		forever := tokenRow(acct.ID)
		expiring := tokenRow(acct.ID)
		expiring.Mode = "live"
		expiring.ExpiresAt = ptr(at(90 * 24 * time.Hour))
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertToken", tx.InsertToken(ctx, forever))
			return tx.InsertToken(ctx, expiring)
		})
		for _, want := range []store.Token{forever, expiring} {
			got, err := s.Token(ctx, want.ID)
			noErr(t, "Token", err)
			if d := diff(want, got); d != "" {
				t.Errorf("Token(%s) (-want +got):\n%s", want.ID, d)
			}
			got, err = s.TokenByHash(ctx, want.SecretHash)
			noErr(t, "TokenByHash", err)
			if d := diff(want, got); d != "" {
				t.Errorf("TokenByHash of %s (-want +got):\n%s", want.ID, d)
			}
		}
	})

	leaf(t, open, "missing token", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		newToken(t, s, newAccount(t, s).ID)
		_, err := s.Token(ctx, "tok_missing")
		wantErr(t, "Token", err, store.ErrNotFound)
		_, err = s.TokenByHash(ctx, []byte("no such hash"))
		wantErr(t, "TokenByHash", err, store.ErrNotFound)
		err = s.Tx(ctx, func(tx *store.Tx) error { return tx.RevokeToken(ctx, "tok_missing", t0) })
		wantErr(t, "RevokeToken", err, store.ErrNotFound)
	})

	leaf(t, open, "token of a missing account is refused", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		tok := tokenRow("acct_missing")
		err := s.Tx(ctx, func(tx *store.Tx) error { return tx.InsertToken(ctx, tok) })
		if err == nil {
			t.Fatal("InsertToken for a missing account succeeded")
		}
		_, err = s.Token(ctx, tok.ID)
		wantErr(t, "Token after the refused insert", err, store.ErrNotFound)
	})

	leaf(t, open, "RevokeToken keeps the first revocation", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		tok := newToken(t, s, acct.ID)
		other := newToken(t, s, acct.ID)
		first := at(time.Hour)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.RevokeToken(ctx, tok.ID, first) })
		// Revoking again is not an error (the row exists) but keeps the first time.
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.RevokeToken(ctx, tok.ID, at(2*time.Hour)) })
		got, err := s.Token(ctx, tok.ID)
		noErr(t, "Token", err)
		tok.RevokedAt = &first
		if d := diff(tok, got); d != "" {
			t.Errorf("revoked token (-want +got):\n%s", d)
		}
		got, err = s.Token(ctx, other.ID)
		noErr(t, "Token", err)
		if d := diff(other, got); d != "" {
			t.Errorf("RevokeToken changed another token (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "TokensVersion changes when a token is revoked", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		tok := newToken(t, s, newAccount(t, s).ID)
		before, err := s.TokensVersion(ctx)
		noErr(t, "TokensVersion", err)
		if again, err := s.TokensVersion(ctx); err != nil || again != before {
			t.Fatalf("TokensVersion moved with no change: %d, then %d (%v)", before, again, err)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.RevokeToken(ctx, tok.ID, at(time.Hour)) })
		// SQLite sees the commit at once; a PostgreSQL notice arrives just after it.
		deadline := time.Now().Add(2 * time.Second)
		for {
			after, err := s.TokensVersion(ctx)
			noErr(t, "TokensVersion after the revocation", err)
			if after != before {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("TokensVersion still %d after a revocation committed", after)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})

	leaf(t, open, "RecordTokenUses keeps the newest use", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		a, b, unused := newToken(t, s, acct.ID), newToken(t, s, acct.ID), newToken(t, s, acct.ID)
		record := func(uses ...store.TokenUse) {
			t.Helper()
			mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.RecordTokenUses(ctx, uses) })
		}
		check := func(tok store.Token, when time.Time, ip string) {
			t.Helper()
			got, err := s.Token(ctx, tok.ID)
			noErr(t, "Token", err)
			tok.LastUsedAt, tok.LastIP = &when, &ip
			if d := diff(tok, got); d != "" {
				t.Errorf("token %s after RecordTokenUses (-want +got):\n%s", tok.ID, d)
			}
		}
		// The second batch's older use of a must not win; within one batch the
		// order of the uses must not matter either.
		record(store.TokenUse{TokenID: a.ID, At: at(10 * time.Second), IP: "192.0.2.10"},
			store.TokenUse{TokenID: b.ID, At: at(20 * time.Second), IP: "192.0.2.20"},
			store.TokenUse{TokenID: b.ID, At: at(15 * time.Second), IP: "192.0.2.15"})
		check(a, at(10*time.Second), "192.0.2.10")
		check(b, at(20*time.Second), "192.0.2.20")
		// Sub-second differences count: an older use by 100 ms is still older.
		record(store.TokenUse{TokenID: a.ID, At: at(10*time.Second - 100*time.Millisecond), IP: "192.0.2.99"},
			store.TokenUse{TokenID: b.ID, At: at(20*time.Second + 100*time.Millisecond), IP: "192.0.2.21"})
		check(a, at(10*time.Second), "192.0.2.10")
		check(b, at(20*time.Second+100*time.Millisecond), "192.0.2.21")
		got, err := s.Token(ctx, unused.ID)
		noErr(t, "Token", err)
		if d := diff(unused, got); d != "" {
			t.Errorf("RecordTokenUses changed an unused token (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "ListTokens lists the account's tokens newest first", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		var want []store.Token
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for i := range 3 {
				tok := tokenRow(acct.ID)
				tok.CreatedAt = at(time.Duration(i) * time.Minute)
				noErr(t, "InsertToken", tx.InsertToken(ctx, tok))
				want = append([]store.Token{tok}, want...)
				// Another account's token in between must not show up.
				noErr(t, "InsertToken", tx.InsertToken(ctx, tokenRow(other.ID)))
			}
			return nil
		})
		got, err := s.ListTokens(ctx, acct.ID)
		noErr(t, "ListTokens", err)
		if d := diff(want, got); d != "" {
			t.Errorf("ListTokens (-want +got):\n%s", d)
		}
		got, err = s.ListTokens(ctx, "acct_missing")
		noErr(t, "ListTokens of a missing account", err)
		if len(got) != 0 {
			t.Errorf("ListTokens of a missing account = %d tokens, want none", len(got))
		}
	})

	leaf(t, open, "ListTokens orders instants, whatever their zone", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		older, newer := tokenRow(acct.ID), tokenRow(acct.ID)
		older.CreatedAt = t0.In(time.FixedZone("CET", 3600))
		newer.CreatedAt = at(4 * time.Minute)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			noErr(t, "InsertToken", tx.InsertToken(ctx, older))
			return tx.InsertToken(ctx, newer)
		})
		got, err := s.ListTokens(ctx, acct.ID)
		noErr(t, "ListTokens", err)
		if d := diff([]store.Token{newer, older}, got); d != "" {
			t.Errorf("ListTokens (-want +got):\n%s", d)
		}
	})
}
