package dpd

import (
	"bytes"
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
	opRate   = "rate"
	opBuy    = carriers.OpBuy
	opVoid   = carriers.OpVoid
	opPickup = carriers.OpSchedulePickup
)

// msgCredentialsRefused is the message of a 401 that survived a new login.
const msgCredentialsRefused = "the carrier refused the credentials"

// dpdError is the META-API's Error: errorCode, errorMessage, errorOrigin
// (META-API or BU-API: whether DPD's gateway or the business unit
// refused). meta-api-docs.json answers one; openapi_metaapi_shipping.yaml
// answers a 400 as an array of them: both are read.
type dpdError struct {
	ErrorCode    string `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
	ErrorOrigin  string `json:"errorOrigin"`
}

// parseErrors reads an error answer; ok is false when it is neither shape.
func parseErrors(body []byte) ([]dpdError, bool) {
	body = bytes.TrimSpace(body)
	var errs []dpdError
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &errs) != nil {
			return nil, false
		}
	} else {
		var one dpdError
		if json.Unmarshal(body, &one) != nil {
			return nil, false
		}
		errs = []dpdError{one}
	}
	var out []dpdError
	for _, e := range errs {
		if strings.TrimSpace(e.ErrorCode) != "" || strings.TrimSpace(e.ErrorMessage) != "" {
			out = append(out, e)
		}
	}
	return out, len(out) > 0
}

// answerError turns a DPD answer that is not a success into a
// *carriers.Error: DPD's code and messages (redacted, cut to an excerpt,
// the origin named when the BU refused), its class by status.
func answerError(log *slog.Logger, op string, status int, header http.Header, body []byte, now time.Time, red *carriers.Redactor) *carriers.Error {
	if carriers.IsRedirect(status) {
		return carriers.RedirectError(log, carrierName, op, status, header)
	}
	e := &carriers.Error{Carrier: carrierName, Operation: op, HTTPStatus: status}
	if errs, ok := parseErrors(body); ok {
		e.Code = carriers.Excerpt(red.Redact(strings.TrimSpace(errs[0].ErrorCode)))
		msgs := make([]string, 0, len(errs))
		for _, x := range errs {
			m := strings.TrimSpace(x.ErrorMessage)
			if m == "" {
				m = strings.TrimSpace(x.ErrorCode)
			}
			if strings.EqualFold(strings.TrimSpace(x.ErrorOrigin), "BU-API") {
				m = "business unit: " + m
			}
			msgs = append(msgs, red.Redact(m))
		}
		e.Message = carriers.Excerpt(strings.Join(msgs, "; "))
	}
	if e.Message == "" {
		e.Message = fmt.Sprintf("HTTP %d %s", status, describeBody(header, body))
	}
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(header.Get("Retry-After"), now)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		// 408 "BU Request Timeout": the business unit did not answer the
		// META-API in time.
		e.Kind = carriers.ErrUnavailable
	case status == http.StatusUnauthorized:
		// The token cache logged in again once and retried.
		e.Kind, e.Message = carriers.ErrFailed, msgCredentialsRefused
	case status == http.StatusForbidden:
		e.Kind = carriers.ErrFailed
	case status == http.StatusBadRequest, status == http.StatusNotFound, status == http.StatusConflict,
		status == http.StatusUnprocessableEntity:
		e.Kind = carriers.ErrRejected
	default:
		e.Kind = carriers.ErrFailed
	}
	return e
}

// describeBody says what a body that is none of DPD's error forms is.
func describeBody(header http.Header, body []byte) string {
	return carriers.DescribeBody(header, body, "a DPD error")
}

// malformed is the error for a success answer that does not parse or lacks
// what is required: DPD failed.
func malformed(op string, status int, format string, args ...any) *carriers.Error {
	return carriers.Malformed(carrierName, op, status, format, args...)
}

// rejected is a refusal shipd makes before calling DPD, for what DPD would
// refuse.
func rejected(op, format string, args ...any) *carriers.Error {
	return &carriers.Error{Carrier: carrierName, Operation: op, Kind: carriers.ErrRejected, Message: fmt.Sprintf(format, args...)}
}
