package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/store"
)

// authenticate resolves the bearer token and checks the operation's scope
// (read from the contract's x-required-scope). Routes the contract does not
// know fall through so the router can answer 404/405.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		if op == nil || op.public {
			return next(c)
		}
		req := c.Request()
		p, err := s.principalFor(req.Context(), req.Header.Get("Authorization"))
		if err != nil {
			return err
		}
		s.usage.record(p.TokenID, s.now(), c.RealIP())
		req = req.WithContext(withPrincipal(req.Context(), p))
		c.SetRequest(req)
		if !p.hasScope(op.requiredScope) {
			e := newAPIError(http.StatusForbidden, "insufficient_scope", "this operation needs the "+op.requiredScope+" scope")
			e.Body.RequiredScope = &op.requiredScope
			return e
		}
		return next(c)
	}
}

func (s *Server) principalFor(ctx context.Context, header string) (*principal, error) {
	header = strings.TrimSpace(header)
	if header == "" {
		return nil, newAPIError(http.StatusUnauthorized, "missing_authorization", "send Authorization: Bearer <token>")
	}
	invalid := newAPIError(http.StatusUnauthorized, "invalid_token", "the bearer token matches no token")
	scheme, secret, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, invalid
	}
	secret = strings.TrimSpace(secret)
	mode := tokenMode(secret)
	if mode == "" {
		return nil, invalid
	}
	t, err := s.store.TokenBySecret(ctx, secret)
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	if t.RevokedAt != nil {
		return nil, tokenRevoked()
	}
	if t.ExpiresAt != nil && !s.now().Before(*t.ExpiresAt) {
		return nil, tokenExpired()
	}
	return &principal{TokenID: t.ID, AccountID: t.AccountID, Mode: t.Mode, Prefix: t.Prefix, Scopes: t.ScopeList()}, nil
}

func tokenRevoked() *apiError {
	return newAPIError(http.StatusUnauthorized, "token_revoked", "this token was revoked")
}

func tokenExpired() *apiError {
	return newAPIError(http.StatusUnauthorized, "token_expired", "this token has expired")
}

// tokenMode is the mode a token's prefix names, "" when the string cannot be a token.
func tokenMode(secret string) string {
	for _, mode := range []string{"test", "live"} {
		rest, ok := strings.CutPrefix(secret, "svc_"+mode+"_")
		if ok && len(rest) == store.TokenSecretLength {
			return mode
		}
	}
	return ""
}

// usageRecorder keeps each token's last use in memory and writes them in one
// batch every interval, so a request never waits on a write to record it.
type usageRecorder struct {
	mu   sync.Mutex
	uses map[string]store.TokenUse
}

func newUsageRecorder() *usageRecorder {
	return &usageRecorder{uses: map[string]store.TokenUse{}}
}

func (u *usageRecorder) record(tokenID string, at time.Time, ip string) {
	u.mu.Lock()
	u.uses[tokenID] = store.TokenUse{TokenID: tokenID, At: at, IP: ip}
	u.mu.Unlock()
}

func (u *usageRecorder) take() []store.TokenUse {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]store.TokenUse, 0, len(u.uses))
	for _, use := range u.uses {
		out = append(out, use)
	}
	clear(u.uses)
	return out
}

// flushUsage writes the pending last uses; it runs on a ticker and at shutdown.
func (s *Server) flushUsage(ctx context.Context) {
	uses := s.usage.take()
	if err := s.store.RecordTokenUses(ctx, uses); err != nil {
		s.log.WarnContext(ctx, "recording token use", slog.Any("error", err))
	}
}
