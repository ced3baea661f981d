package ups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// carrierName is what Name returns and what every carriers.Error carries.
const carrierName = "UPS"

// Operations, as carriers.Error.Operation.
const (
	opToken  = "token"
	opRate   = "rate"
	opBuy    = "buy"
	opVoid   = "void"
	opTrack  = "track"
	opVerify = "verify"
)

// msgCredentialsRefused is the message of a 401 that survived the refresh.
const msgCredentialsRefused = "the carrier refused the credentials"

// upsError is one entry of the UPS error body, documented in every UPS
// OpenAPI document as ErrorResponse:
//
//	{"response":{"errors":[{"code":"...","message":"..."}]}}
type upsError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// parseErrorBody reads the documented UPS error body. ok is false when the
// body is not in that shape (an HTML error page from a proxy, a truncated
// body, nothing at all).
func parseErrorBody(body []byte) (errs []upsError, ok bool) {
	var env struct {
		Response *struct {
			Errors oneOrMany[upsError] `json:"errors"`
		} `json:"response"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Response == nil {
		return nil, false
	}
	for _, e := range env.Response.Errors {
		if strings.TrimSpace(e.Code) != "" || strings.TrimSpace(e.Message) != "" {
			errs = append(errs, upsError{Code: strings.TrimSpace(e.Code), Message: strings.TrimSpace(e.Message)})
		}
	}
	return errs, len(errs) > 0
}

// transientCodes are the UPS error codes whose documented severity is
// "Transient" ("the request may be re-issued successfully at a later time"):
// 20001 General process failure (common to all APIs) and 190001 Void not
// available at this time (Shipping Package developer guide, void errors).
// Whatever HTTP status carries them, retrying later is the right move.
func transientCode(code string) bool {
	switch code {
	case "20001", "190001":
		return true
	}
	return false
}

// answerError turns a UPS answer that is not a success into a carriers.Error.
func answerError(log *slog.Logger, op string, status int, header http.Header, body []byte, now time.Time, red *carriers.Redactor) *carriers.Error {
	if carriers.IsRedirect(status) {
		return carriers.RedirectError(log, carrierName, op, status, header)
	}
	clean := red.Redact
	e := &carriers.Error{Carrier: carrierName, Operation: op, HTTPStatus: status}
	errs, ok := parseErrorBody(body)
	if ok {
		// Secrets are redacted before the excerpt is cut, which could
		// otherwise leave the start of one in place.
		e.Code = carriers.Excerpt(clean(errs[0].Code))
		msgs := make([]string, 0, len(errs))
		for _, x := range errs {
			if x.Message != "" {
				msgs = append(msgs, clean(x.Message))
			}
		}
		e.Message = carriers.Excerpt(strings.Join(msgs, "; "))
	}
	if e.Message == "" {
		// The content type it names is the server's text too.
		e.Message = carriers.Excerpt(fmt.Sprintf("HTTP %d %s", status, describeBody(header, body, ok)))
	}
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(header.Get("Retry-After"), now)
	case ok && transientCode(errs[0].Code):
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(header.Get("Retry-After"), now)
	case status == http.StatusUnauthorized:
		// Cache.Do already refreshed the token once and retried.
		e.Kind = carriers.ErrFailed
		e.Message = msgCredentialsRefused
	case status == http.StatusForbidden:
		// "Blocked Merchant": the account, not the shipment, is the problem.
		e.Kind = carriers.ErrFailed
	case status == http.StatusRequestTimeout:
		e.Kind = carriers.ErrUnavailable
	case status == http.StatusBadRequest, status == http.StatusNotFound,
		status == http.StatusConflict, status == http.StatusUnprocessableEntity:
		// UPS answers 400 for everything it refuses about the request:
		// addresses, weights, services, voids out of their window.
		e.Kind = carriers.ErrRejected
	default:
		// Other 4xx mean shipd sent something UPS cannot take at all (a
		// bug on our side), and 5xx other than 503 mean UPS failed.
		e.Kind = carriers.ErrFailed
	}
	return e
}

// describeBody says what was wrong with a body that is not the UPS error
// format, without echoing it: a hostile or confused server could put
// anything there, including the bearer token it was sent.
func describeBody(header http.Header, body []byte, parsed bool) string {
	if len(body) == 0 {
		return "with an empty body"
	}
	ct := header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		ct = mt
	}
	if ct == "" {
		ct = "no content type"
	}
	if parsed {
		return "(" + ct + ")"
	}
	return fmt.Sprintf("with a %d-byte %s body that is not the UPS error format", len(body), ct)
}

// malformed is the error for a success answer that does not parse or lacks
// what is required. A JSON decoder's error among args is reworded without
// the Go type names it carries ("ups.oneOrMany[…]").
func malformed(op string, status int, format string, args ...any) *carriers.Error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = carriers.DecodeErrorText(err)
		}
	}
	return &carriers.Error{
		Carrier: carrierName, Operation: op, HTTPStatus: status,
		Message: "malformed answer: " + fmt.Sprintf(format, args...),
		Kind:    carriers.ErrFailed,
	}
}

// transportError wraps a failure to get any answer: UPS may well answer the
// next attempt, so it is transient. The message says what happened; the
// URL, host and port of err go to the log.
func (c *Carrier) transportError(op string, err error, red *carriers.Redactor) *carriers.Error {
	return carriers.TransportError(c.cfg.Logger, red, carrierName, op, err)
}

// asCarrierError makes sure whatever a helper returned is a *carriers.Error.
func (c *Carrier) asCarrierError(op string, err error, red *carriers.Redactor) *carriers.Error {
	var ce *carriers.Error
	if errors.As(err, &ce) {
		if ce.Operation == "" {
			ce.Operation = op
		}
		return ce
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return c.transportError(op, err, red)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return c.transportError(op, err, red)
	}
	// What is left is shipd's own (a request that could not be encoded, a
	// token answer without a token); a client's transport errors are
	// *url.Error, a net.Error, and were handled above.
	return &carriers.Error{Carrier: carrierName, Operation: op, Message: red.Redact(err.Error()), Kind: carriers.ErrFailed}
}
