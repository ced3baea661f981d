package server

import (
	"context"
	"slices"
	"strings"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	principalKey
)

// principal is who a request acts as: one token of one account, in one mode.
type principal struct {
	TokenID   string
	AccountID string
	Mode      string // test or live
	Prefix    string // safe to log
	Scopes    []string
}

// hasScope applies the rule that write:X implies read:X.
func (p *principal) hasScope(required string) bool {
	if slices.Contains(p.Scopes, required) {
		return true
	}
	if res, ok := strings.CutPrefix(required, "read:"); ok {
		return slices.Contains(p.Scopes, "write:"+res)
	}
	return false
}

func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func withPrincipal(ctx context.Context, p *principal) context.Context {
	return context.WithValue(ctx, principalKey, p)
}

// principalFrom returns the authenticated caller. Every operation with
// security runs behind the auth middleware, so handlers can rely on it.
func principalFrom(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey).(*principal)
	return p
}
