package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// requestID gives every request an id, sent back as X-Request-Id on every
// response (set in a Before hook, so no handler can drop it) and put in error bodies.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id := "req_" + hex.EncodeToString(b[:])
		req := c.Request()
		meta := &responseMeta{}
		c.SetRequest(req.WithContext(withResponseMeta(withRequestID(req.Context(), id), meta)))
		res := c.Response()
		res.Header().Set("X-Request-Id", id)
		res.Before(func() {
			res.Header().Set("X-Request-Id", id)
			if meta.replayed {
				res.Header().Set("Idempotent-Replayed", "true")
			}
		})
		return next(c)
	}
}

// accessLog logs one line per request; the token appears only as its prefix.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			s.writeError(c, err)
		}
		attrs := []slog.Attr{
			slog.String("request_id", requestIDFrom(c.Request().Context())),
			slog.String("method", c.Request().Method),
			slog.String("route", c.Path()),
			slog.Int("status", c.Response().Status),
			slog.Float64("latency_ms", float64(time.Since(start).Microseconds())/1000),
		}
		if ctx := c.Request().Context(); hasCaller(ctx) {
			attrs = append(attrs, slog.String("token_prefix", callerOf(ctx).TokenPrefix))
		}
		s.cfg.AccessLog.LogAttrs(c.Request().Context(), slog.LevelInfo, "request", attrs...)
		return nil
	}
}

// recoverPanics answers a panic with 500 internal_error; the panic value and
// stack go to the log, never to the client.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.log.ErrorContext(c.Request().Context(), "panic",
				slog.String("request_id", requestIDFrom(c.Request().Context())),
				slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(debug.Stack())))
			err = newAPIError(http.StatusInternalServerError, "internal_error", "internal server error")
		}()
		return next(c)
	}
}

// refuseMissingMethods answers 405 method_not_allowed, with Allow, for a
// method that a fixed path of the contract does not have. Echo would route
// some of them to a sibling route's path parameter instead: GET
// /labels/quote reaches getLabel with the id "quote", a 404 that tells the
// client nothing of its mistake. The route is set to the fixed path, so the
// request is not logged or measured as the sibling's.
func (s *Server) refuseMissingMethods() echo.MiddlewareFunc {
	methods := map[string][]string{} // fixed route (no path parameter) → its methods
	for key := range s.ops {
		method, route, _ := strings.Cut(key, " ")
		if !strings.Contains(route, ":") {
			methods[route] = append(methods[route], method)
		}
	}
	for _, ms := range methods {
		slices.Sort(ms)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			allowed, fixed := methods[req.URL.Path]
			if !fixed || req.Method == http.MethodOptions || slices.Contains(allowed, req.Method) {
				return next(c)
			}
			c.SetPath(req.URL.Path)
			// Echo's own 405s write Allow the same way: OPTIONS first.
			c.Response().Header().Set("Allow", strings.Join(append([]string{http.MethodOptions}, allowed...), ", "))
			return newAPIError(http.StatusMethodNotAllowed, "method_not_allowed",
				fmt.Sprintf("%s is not a method of %s; Allow lists its methods (%s)", req.Method, req.URL.Path, strings.Join(allowed, ", ")))
		}
	}
}

// limitBody refuses bodies over the limit without reading more than the
// limit. Operations that take no body never read it, so it is not checked there.
// The limit is the server's MaxBodyBytes unless the contract gives the
// operation its own (x-max-body-bytes: POST /batches takes 8 MiB).
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		op := s.ops[routeKey(req.Method, c.Path())]
		if op == nil || !op.hasBody {
			return next(c)
		}
		limit := s.bodyLimit(op)
		if req.ContentLength > limit {
			drainRefused(c, req.Body, limit)
			return payloadTooLarge(limit)
		}
		if req.Body != nil {
			body := req.Body
			req.Body = http.MaxBytesReader(c.Response(), body, limit)
			err := next(c)
			// A body without a length found too large midway: the rest as above.
			var ae *apiError
			if errors.As(err, &ae) && ae.Status == http.StatusRequestEntityTooLarge {
				drainRefused(c, body, limit)
			}
			return err
		}
		return next(c)
	}
}

// drainRefused reads and discards what is left of a refused body, up to
// twice the limit and for at most refusalDrainTime, and closes the
// connection after the answer. Most HTTP clients send the whole body before
// they read an answer; a server that answers 413 and closes with the body
// unread resets the connection under them, and they report a network
// error (a retry loop) instead of the 413 that says what the limit is.
func drainRefused(c echo.Context, body io.ReadCloser, limit int64) {
	c.Response().Header().Set("Connection", "close")
	if body == nil || body == http.NoBody {
		return
	}
	_ = http.NewResponseController(c.Response().Writer).SetReadDeadline(time.Now().Add(refusalDrainTime))
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 2*limit))
}

// refusalDrainTime bounds how long a refused body is read.
const refusalDrainTime = 30 * time.Second

// bodyLimit is op's body limit: its x-max-body-bytes, else MaxBodyBytes.
func (s *Server) bodyLimit(op *operation) int64 {
	if op != nil && op.maxBody > 0 {
		return op.maxBody
	}
	return s.cfg.MaxBodyBytes
}

func payloadTooLarge(limit int64) *apiError {
	return newAPIError(http.StatusRequestEntityTooLarge, "payload_too_large",
		fmt.Sprintf("the request body exceeds %d bytes", limit))
}

func isBodyTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// tokenQueryNames are parameter names that, whatever their value, mean a secret was put in the URL.
var tokenQueryNames = map[string]bool{"access_token": true, "token": true, "api_key": true, "apikey": true, "bearer": true, "authorization": true}

// rejectTokenInQuery refuses URLs that carry a credential: URLs end up in
// logs, browser history and proxies, so such a token must be treated as leaked.
func (s *Server) rejectTokenInQuery(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		for name, values := range c.Request().URL.Query() {
			leaked := tokenQueryNames[strings.ToLower(name)] || looksLikeToken(name)
			for _, v := range values {
				leaked = leaked || looksLikeToken(v)
			}
			if leaked {
				return newAPIError(http.StatusBadRequest, "token_in_query",
					"credentials must not be sent in the URL; use the Authorization header (and revoke the token you sent)")
			}
		}
		return next(c)
	}
}

func looksLikeToken(s string) bool {
	return strings.Contains(s, "svc_test_") || strings.Contains(s, "svc_live_")
}
