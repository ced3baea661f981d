package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// benchToken opens a fresh database with one account and one token and
// returns the store and the token's secret.
func benchToken(b *testing.B) (*Store, string) {
	b.Helper()
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	a, err := st.CreateAccount(ctx, "bench", true, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	// Other tokens, so the lookup is an index search among several.
	for range 100 {
		if _, _, err := st.CreateToken(ctx, a.ID, "test", []string{"read:shipments"}, nil, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	_, secret, err := st.CreateToken(ctx, a.ID, "test", []string{"read:shipments", "write:shipments"}, nil, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return st, secret
}

// TokenBySecret runs on every authenticated request.
func BenchmarkTokenBySecret(b *testing.B) {
	st, secret := benchToken(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.TokenBySecret(ctx, secret); err != nil {
			b.Fatal(err)
		}
	}
}

// The same lookup from concurrent requests, through the reader pool.
func BenchmarkTokenBySecretParallel(b *testing.B) {
	st, secret := benchToken(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.TokenBySecret(ctx, secret); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// HashToken is the part of the lookup that is not the database.
func BenchmarkHashToken(b *testing.B) {
	secret := "svc_test_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01"
	b.ReportAllocs()
	for b.Loop() {
		_ = HashToken(secret)
	}
}
