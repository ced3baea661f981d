package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// authenticate resolves the bearer token to its caller and checks the
// operation's scope (read from the contract's x-required-scope). Routes the
// contract does not know fall through so the router can answer 404/405.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		if op == nil || op.public {
			return next(c)
		}
		req := c.Request()
		header := strings.TrimSpace(req.Header.Get("Authorization"))
		if header == "" {
			return s.failedAuthentication(c, newAPIError(http.StatusUnauthorized, "missing_authorization", "send Authorization: Bearer <token>"))
		}
		scheme, secret, ok := strings.Cut(header, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return s.failedAuthentication(c, newAPIError(http.StatusUnauthorized, "invalid_token", badScheme(scheme, ok)))
		}
		caller, err := s.accounts.Authenticate(req.Context(), strings.TrimSpace(secret), c.RealIP())
		if err != nil {
			return s.failedAuthentication(c, err)
		}
		c.SetRequest(req.WithContext(withCaller(req.Context(), caller)))
		if !caller.Can(op.requiredScope) {
			e := newAPIError(http.StatusForbidden, "insufficient_scope", "this operation needs the "+op.requiredScope+" scope")
			e.Body.RequiredScope = &op.requiredScope
			return e
		}
		return next(c)
	}
}

// failedAuthentication draws one failure from the client address's bucket
// (GroupFailedAuth): err while it lasts, 429 rate_limited once it is empty.
// An error that is not an authentication failure (the database is down)
// draws nothing.
func (s *Server) failedAuthentication(c echo.Context, err error) error {
	cfg := s.cfg.RateLimits
	if cfg.Disabled {
		return err
	}
	if ae, _ := problem(err); ae == nil || ae.Status != http.StatusUnauthorized {
		return err
	}
	ctx := c.Request().Context()
	d := cfg.Limiter.Allow(ctx, "ip/"+c.RealIP(), GroupFailedAuth, s.cfg.Now())
	if d.Allowed {
		return err
	}
	wait := max(1, ceilSeconds(d.RetryAfter))
	e := newAPIError(http.StatusTooManyRequests, "rate_limited",
		fmt.Sprintf("too many failed authentications from this address; retry after %d second%s", wait, plural(wait)))
	e.RetryAfter = int(wait)
	return e
}

// badScheme says what is wrong with an Authorization header that is not
// "Bearer <token>": the commonest mistake is the token alone. A scheme word
// is echoed only when it is a plain word (Basic, Token), never anything that
// could be part of a secret.
func badScheme(scheme string, hasSpace bool) string {
	const want = "the Authorization header must be Bearer <token>"
	switch {
	case strings.HasPrefix(scheme, "svc_"):
		return want + ": it holds a token without the word Bearer before it"
	case !hasSpace && strings.EqualFold(scheme, "Bearer"):
		return want + ": the token after Bearer is missing"
	case !hasSpace:
		return want + ": it holds a single word"
	case plainWord(scheme):
		return want + ", not " + scheme + " <…>"
	}
	return want
}

// plainWord reports whether s is a short word of ASCII letters.
func plainWord(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
