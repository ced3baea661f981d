package store_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// benchToken opens a fresh database with one account and 101 tokens and
// returns the store and the hash of the last token's secret.
func benchToken(b *testing.B) (*store.Store, []byte) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	var hash []byte
	err = st.Tx(ctx, func(tx *store.Tx) error {
		now := time.Now().UTC()
		if err := tx.InsertAccount(ctx, store.Account{ID: "acct_bench", Name: "bench", HasPaymentMethod: true, CreatedAt: now}); err != nil {
			return err
		}
		// Other tokens, so the lookup is an index search among several.
		for i := range 101 {
			sum := sha256.Sum256(fmt.Appendf(nil, "secret-%d", i))
			hash = sum[:]
			if err := tx.InsertToken(ctx, store.Token{ID: fmt.Sprintf("tok_%d", i), AccountID: "acct_bench", Mode: "test",
				Prefix: "svc_test_abcdef", SecretHash: hash, Scopes: "read:shipments", CreatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return st, hash
}

// TokenByHash runs on every authenticated request.
func BenchmarkTokenByHash(b *testing.B) {
	st, hash := benchToken(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.TokenByHash(ctx, hash); err != nil {
			b.Fatal(err)
		}
	}
}

// The same lookup from concurrent requests, through the reader pool.
func BenchmarkTokenByHashParallel(b *testing.B) {
	st, hash := benchToken(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.TokenByHash(ctx, hash); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TokensVersion runs on every authenticated request in front of the token
// cache: it must cost much less than the lookup it saves.
func BenchmarkTokensVersionParallel(b *testing.B) {
	st, _ := benchToken(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.TokensVersion(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
