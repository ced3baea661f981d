package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// auditRow is an entry of accountID in mode.
func auditRow(accountID, mode, action string) *store.AuditEntry {
	return &store.AuditEntry{AccountID: accountID, Mode: mode, Actor: "ada@example.com", Action: action,
		Target: "tok_1 (svc_test_abc123)", IP: "203.0.113.9", CreatedAt: t0}
}

// testAudit covers audit.go.
func testAudit(t *testing.T, open Opener) {
	leaf(t, open, "round trip, newest first, per account and mode", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		var test []*store.AuditEntry
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for i, action := range []string{"token.created", "webhook.created", "token.revoked"} {
				e := auditRow(acct.ID, "test", action)
				e.CreatedAt = at(time.Duration(i) * time.Minute)
				noErr(t, "InsertAudit", tx.InsertAudit(ctx, e))
				test = append(test, e)
			}
			noErr(t, "InsertAudit live", tx.InsertAudit(ctx, auditRow(acct.ID, "live", "token.created")))
			return tx.InsertAudit(ctx, auditRow(other.ID, "test", "token.created"))
		})
		if test[0].Seq == 0 || test[1].Seq <= test[0].Seq || test[2].Seq <= test[1].Seq {
			t.Errorf("seqs %d, %d, %d: want set and increasing", test[0].Seq, test[1].Seq, test[2].Seq)
		}
		got, more, err := s.ListAudit(ctx, acct.ID, "test", 0, 10)
		noErr(t, "ListAudit", err)
		if d := diff([]store.AuditEntry{*test[2], *test[1], *test[0]}, got); d != "" || more {
			t.Errorf("ListAudit, more %v (-want +got):\n%s", more, d)
		}
	})

	leaf(t, open, "pages", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			for range 5 {
				noErr(t, "InsertAudit", tx.InsertAudit(ctx, auditRow(acct.ID, "test", "webhook.paused")))
			}
			return nil
		})
		var seen []int64
		before := int64(0)
		for page := 0; ; page++ {
			rows, more, err := s.ListAudit(ctx, acct.ID, "test", before, 2)
			noErr(t, "ListAudit", err)
			for _, r := range rows {
				seen = append(seen, r.Seq)
			}
			if !more {
				break
			}
			if page > 5 {
				t.Fatal("ListAudit never ends")
			}
			before = rows[len(rows)-1].Seq
		}
		if len(seen) != 5 {
			t.Fatalf("walked %v, want 5 entries", seen)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] >= seen[i-1] {
				t.Errorf("walked %v, want strictly decreasing seqs", seen)
			}
		}
	})
}
