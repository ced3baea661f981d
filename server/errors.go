package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/gen"
)

// apiError is an error answered with the Error body. Middleware returns it;
// handlers return typed responses built from errorBody instead.
type apiError struct {
	Status     int
	Body       gen.Error
	RetryAfter int // seconds; 0 sends no Retry-After
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Body.Code, e.Body.Error)
}

func newAPIError(status int, code, msg string) *apiError {
	return &apiError{Status: status, Body: gen.Error{Code: code, Error: msg}}
}

func (e *apiError) withField(field string) *apiError {
	e.Body.Field = &field
	return e
}

// errorBody builds an Error body carrying the request's id.
func errorBody(ctx context.Context, code, msg string) gen.Error {
	e := gen.Error{Code: code, Error: msg}
	if id := requestIDFrom(ctx); id != "" {
		e.RequestId = &id
	}
	return e
}

func fieldErrorBody(ctx context.Context, code, field, msg string) gen.Error {
	e := errorBody(ctx, code, msg)
	e.Field = &field
	return e
}

func notFoundBody(ctx context.Context) gen.Error {
	return errorBody(ctx, "not_found", "no such resource")
}

func wrongModeBody(ctx context.Context, tokenMode string) gen.Error {
	return errorBody(ctx, "wrong_mode", "this resource belongs to the other mode; a "+tokenMode+" token cannot access it")
}

// writeError answers err as JSON: an *apiError as itself, an *echo.HTTPError
// (router 404/405, body limit) with its status, anything else as a 500 that
// is logged but never echoed.
func (s *Server) writeError(c echo.Context, err error) {
	if c.Response().Committed {
		return
	}
	var ae *apiError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ae):
	case errors.As(err, &he):
		ae = fromHTTPError(he)
	default:
		s.log.ErrorContext(c.Request().Context(), "internal error", slog.String("request_id", requestIDFrom(c.Request().Context())), slog.Any("error", err))
		ae = newAPIError(http.StatusInternalServerError, "internal_error", "internal server error; it is safe to retry with the same idempotency key")
	}
	body := ae.Body
	if id := requestIDFrom(c.Request().Context()); id != "" {
		body.RequestId = &id
	}
	if ae.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	_ = c.JSON(ae.Status, body)
}

func fromHTTPError(he *echo.HTTPError) *apiError {
	switch he.Code {
	case http.StatusNotFound:
		return newAPIError(he.Code, "not_found", "no route matches this path")
	case http.StatusMethodNotAllowed:
		return newAPIError(he.Code, "method_not_allowed", "this path does not accept this method")
	case http.StatusRequestEntityTooLarge:
		return newAPIError(he.Code, "payload_too_large", "the request body exceeds 1 MiB")
	case http.StatusUnauthorized:
		return newAPIError(he.Code, "missing_authorization", "the Authorization header is missing")
	}
	if he.Code >= 500 {
		return newAPIError(http.StatusInternalServerError, "internal_error", "internal server error")
	}
	return newAPIError(he.Code, "invalid_request", fmt.Sprint(he.Message))
}
