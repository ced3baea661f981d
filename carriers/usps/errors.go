package usps

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// transportError is a call that got no answer: USPS unreachable, a timeout,
// a reset connection. All are worth retrying later. The message says what
// happened; the URL, host and port go to the log.
func (c *Carrier) transportError(op string, err error, red *carriers.Redactor) *carriers.Error {
	return carriers.TransportError(c.log, red, CarrierName, op, err)
}

// failed is an answer that arrived but cannot be used. A JSON decoder's
// error among args is reworded without Go type names.
func failed(op string, status int, format string, args ...any) *carriers.Error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = carriers.DecodeErrorText(err)
		}
	}
	return &carriers.Error{Carrier: CarrierName, Operation: op, HTTPStatus: status,
		Message: fmt.Sprintf(format, args...), Kind: carriers.ErrFailed}
}

// statusError turns an unsuccessful answer into a *carriers.Error carrying the
// carrier's own code and message, the call's secrets redacted. A redirect
// (which the client does not follow) is a malformed answer.
func statusError(op string, a answer, now time.Time) *carriers.Error {
	if carriers.IsRedirect(a.status) {
		return carriers.RedirectError(a.log, CarrierName, op, a.status, a.header)
	}
	code, msg := parseErrorBodyRedacted(a.body, a.redact)
	e := &carriers.Error{Carrier: CarrierName, Operation: op, HTTPStatus: a.status, Code: code, Message: msg}
	switch {
	case a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(a.header.Get("Retry-After"), now)
	case a.status == http.StatusUnauthorized:
		// Reached only after oauth.Cache.Do refreshed the token and retried.
		e.Kind = carriers.ErrFailed
		e.Message = "the carrier refused the credentials"
	case a.status == http.StatusForbidden:
		e.Kind = carriers.ErrFailed
		e.Message = "the carrier denied access with these credentials: " + orDefault(msg, "forbidden")
	case a.status == http.StatusBadRequest || a.status == http.StatusNotFound ||
		a.status == http.StatusConflict || a.status == http.StatusUnprocessableEntity:
		e.Kind = carriers.ErrRejected
	default:
		e.Kind = carriers.ErrFailed
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("HTTP %d %s", a.status, http.StatusText(a.status))
	}
	return e
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// errorBody is the USPS error representation, and at the same time the
// OAuth one ({"error": "invalid_client", "error_description": "..."}).
type errorBody struct {
	APIVersion       string          `json:"apiVersion"`
	Error            json.RawMessage `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

type apiError struct {
	Code    flexString `json:"code"`
	Message string     `json:"message"`
	Errors  []struct {
		Status flexString `json:"status"`
		Code   flexString `json:"code"`
		Title  string     `json:"title"`
		Detail string     `json:"detail"`
	} `json:"errors"`
}

// parseErrorBody returns the carrier's code and a message for people. The
// USPS shape is {"apiVersion": ..., "error": {"code", "message", "errors":
// [{"status", "code", "title", "detail"}]}}: the sub-errors are the specific
// ones, so their code and details win over the generic "400 Bad Request".
// Anything else (an HTML error page, plain text) becomes a short excerpt.
func parseErrorBody(body []byte) (code, message string) {
	return parseErrorBodyRedacted(body, nil)
}

// parseErrorBodyRedacted is parseErrorBody with red's secrets hidden before
// the excerpts are cut, so that no cut leaves the start of one.
func parseErrorBodyRedacted(body []byte, red *carriers.Redactor) (code, message string) {
	excerpt := func(s string) string { return carriers.Excerpt(red.Redact(s)) }
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && len(eb.Error) > 0 {
		var ae apiError
		if err := json.Unmarshal(eb.Error, &ae); err == nil {
			var details []string
			for _, sub := range ae.Errors {
				if code == "" && sub.Code != "" {
					code = excerpt(string(sub.Code))
				}
				if d := strings.TrimSpace(orDefault(sub.Detail, sub.Title)); d != "" {
					details = append(details, d)
				}
			}
			if code == "" {
				code = excerpt(string(ae.Code))
			}
			message = strings.Join(details, "; ")
			if message == "" {
				message = ae.Message
			}
			return code, excerpt(message)
		}
		var oauthCode string
		if err := json.Unmarshal(eb.Error, &oauthCode); err == nil {
			return excerpt(oauthCode), excerpt(orDefault(eb.ErrorDescription, oauthCode))
		}
	}
	// Only the start of a long page can reach the excerpt; the margin
	// keeps a secret that straddles the excerpt's end whole for redaction.
	if len(body) > 8<<10 {
		body = body[:8<<10]
	}
	return "", excerpt(string(body))
}
