package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"

	"github.com/shipd-dev/shipd/accounts"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	callerKey
	responseKey
)

func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func withCaller(ctx context.Context, c accounts.Caller) context.Context {
	return context.WithValue(ctx, callerKey, &c)
}

// callerOf returns the authenticated caller. Every operation with security
// runs behind the auth middleware, so handlers can rely on it; the handlers
// pass it to the domain services explicitly.
func callerOf(ctx context.Context) accounts.Caller {
	c, _ := ctx.Value(callerKey).(*accounts.Caller)
	if c == nil {
		return accounts.Caller{}
	}
	return *c
}

func hasCaller(ctx context.Context) bool {
	c, _ := ctx.Value(callerKey).(*accounts.Caller)
	return c != nil
}

// bodyFingerprint is the SHA-256 of a request body's canonical JSON: the
// body re-encoded with sorted object keys and no whitespace, numbers as
// written (so no precision is lost). Two bodies that differ only in key order
// or spacing have the same fingerprint; any other difference, even in a
// field the operation ignores, makes them different requests.
func bodyFingerprint(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	canonical, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canonical)
	return sum[:], nil
}

// requestFingerprint is the fingerprint of the request's body that the
// validation middleware kept for an idempotent operation; nil otherwise.
func requestFingerprint(ctx context.Context) []byte {
	if m, _ := ctx.Value(responseKey).(*responseMeta); m != nil {
		return m.fingerprint
	}
	return nil
}

// responseMeta carries what a handler tells the middleware about its
// response beyond the contract's typed responses.
type responseMeta struct {
	replayed    bool
	fingerprint []byte
}

func withResponseMeta(ctx context.Context, m *responseMeta) context.Context {
	return context.WithValue(ctx, responseKey, m)
}

// markReplayed makes the response carry Idempotent-Replayed: true.
func markReplayed(ctx context.Context, replayed bool) {
	if m, _ := ctx.Value(responseKey).(*responseMeta); m != nil && replayed {
		m.replayed = true
	}
}
