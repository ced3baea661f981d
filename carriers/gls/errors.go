package gls

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Operations, as carriers.Error.Operation names them.
const (
	opToken    = "token"
	opRate     = "rate"
	opBuy      = carriers.OpBuy
	opVoid     = carriers.OpVoid
	opTrack    = carriers.OpTrack
	opFind     = carriers.OpFindPurchase
	opManifest = carriers.OpManifest
	opPickup   = carriers.OpSchedulePickup
)

// msgCredentialsRefused is the message of a 401 that survived the token's
// refresh.
const msgCredentialsRefused = "the carrier refused the credentials"

// glsError is what a GLS answer that is not a success says. Each API says
// it its own way:
//
//   - ShipIT documents only its success answers ("default"); it reports an
//     error in the answer's headers "error" (a code) and "message", with
//     an empty body or a text one.
//   - The Authentication API: FaultResponse, {"errors":[{"message","type"}]}.
//   - Track And Trace V1: ErrorResponseDTO, {"title","status","detail"},
//     and, from the API gateway in front of every API (Apigee, for a
//     token refused or a quota spent), ErrorResponseApigeeDTO,
//     {"fault":{"faultstring","detail":{"errorcode"}}}.
type glsError struct {
	code, message string
}

// parseError reads whichever of the forms above the answer has; ok is
// false when it has none of them.
func parseError(header http.Header, body []byte) (glsError, bool) {
	var e glsError
	if code, msg := strings.TrimSpace(header.Get("error")), strings.TrimSpace(header.Get("message")); code != "" || msg != "" {
		return glsError{code: code, message: msg}, true
	}
	var doc struct {
		Errors []struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"errors"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Fault  *struct {
			FaultString string `json:"faultstring"`
			Detail      *struct {
				ErrorCode string `json:"errorcode"`
			} `json:"detail"`
		} `json:"fault"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return e, false
	}
	switch {
	case len(doc.Errors) > 0:
		var msgs []string
		for _, x := range doc.Errors {
			if m := strings.TrimSpace(x.Message); m != "" {
				msgs = append(msgs, m)
			}
		}
		e = glsError{code: strings.TrimSpace(doc.Errors[0].Type), message: strings.Join(msgs, "; ")}
	case doc.Fault != nil:
		e.message = strings.TrimSpace(doc.Fault.FaultString)
		if doc.Fault.Detail != nil {
			e.code = strings.TrimSpace(doc.Fault.Detail.ErrorCode)
		}
	default:
		e.message = strings.TrimSpace(strings.Trim(strings.TrimSpace(doc.Title)+": "+strings.TrimSpace(doc.Detail), ": "))
	}
	return e, e.code != "" || e.message != ""
}

// answerError turns a GLS answer that is not a success into a
// *carriers.Error: the carrier's code and message (redacted, cut to an
// excerpt), and its class by status.
func answerError(log *slog.Logger, op string, status int, header http.Header, body []byte, now time.Time, red *carriers.Redactor) *carriers.Error {
	if carriers.IsRedirect(status) {
		return carriers.RedirectError(log, carrierName, op, status, header)
	}
	e := &carriers.Error{Carrier: carrierName, Operation: op, HTTPStatus: status}
	ge, ok := parseError(header, body)
	if ok {
		// Redacted before the excerpt is cut, which could leave the start
		// of a secret otherwise.
		e.Code = carriers.Excerpt(red.Redact(ge.code))
		e.Message = carriers.Excerpt(red.Redact(ge.message))
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("HTTP %d %s", status, describeBody(header, body))
	}
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(header.Get("Retry-After"), now)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e.Kind = carriers.ErrUnavailable
	case status == http.StatusUnauthorized:
		// The token cache already refreshed the token once and retried.
		e.Kind, e.Message = carriers.ErrFailed, msgCredentialsRefused
	case status == http.StatusForbidden:
		// The app lacks the API, or the contact id is not the app's: the
		// account is the problem, not the shipment.
		e.Kind = carriers.ErrFailed
	case status == http.StatusBadRequest, status == http.StatusNotFound, status == http.StatusConflict,
		status == http.StatusUnprocessableEntity:
		e.Kind = carriers.ErrRejected
	default:
		// Another 4xx is a request GLS cannot take at all (shipd's bug); a
		// 5xx other than 503 is GLS failing.
		e.Kind = carriers.ErrFailed
	}
	return e
}

// describeBody says what a body that is none of GLS's error forms is.
func describeBody(header http.Header, body []byte) string {
	return carriers.DescribeBody(header, body, "a GLS error")
}

// malformed is the error for a success answer that does not parse or lacks
// what is required: GLS failed.
func malformed(op string, status int, format string, args ...any) *carriers.Error {
	return carriers.Malformed(carrierName, op, status, format, args...)
}

// rejected is a refusal shipd makes before calling GLS, for what GLS would
// refuse.
func rejected(op, format string, args ...any) *carriers.Error {
	return &carriers.Error{Carrier: carrierName, Operation: op, Kind: carriers.ErrRejected, Message: fmt.Sprintf(format, args...)}
}
