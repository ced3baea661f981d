package dhlparcelde

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Operations, as carriers.Error.Operation names them.
const (
	opToken        = "token"
	opRate         = "rate"
	opBuy          = carriers.OpBuy
	opVoid         = carriers.OpVoid
	opTrack        = carriers.OpTrack
	opManifest     = carriers.OpManifest
	opPickup       = carriers.OpSchedulePickup
	opCancelPickup = carriers.OpCancelPickup
)

// msgCredentialsRefused is the message of a 401: DHL's own says no more.
const msgCredentialsRefused = "the carrier refused the credentials"

// status is DHL's status object, RFC 7807 problem details in all but name:
// the Shipping API's RequestStatus (title, status, the deprecated
// statusCode, detail, instance), the Returns API's JSONStatus and the
// unified tracking API's problem detail (type, title, status, detail,
// instance). status is a number in every document; read as raw JSON, an
// answer with something else there still parses.
type status struct {
	Title      string          `json:"title"`
	Status     json.RawMessage `json:"status"`
	StatusCode json.RawMessage `json:"statusCode"`
	Detail     string          `json:"detail"`
	Instance   string          `json:"instance"`
	// Error and ErrorDescription are the token endpoint's refusal (RFC
	// 6749 §5.2: the authentication API has no document of its own).
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// code is the status's number, 0 when it has none.
func (s status) code() int {
	for _, raw := range []json.RawMessage{s.Status, s.StatusCode} {
		var n float64
		if json.Unmarshal(raw, &n) == nil && n >= 100 && n <= 999 {
			return int(n)
		}
	}
	return 0
}

// validationMessage is one ValidationMessageItem of a shipment.
type validationMessage struct {
	Property          string `json:"property"`
	ValidationMessage string `json:"validationMessage"`
	ValidationState   string `json:"validationState"`
}

// item is a shipment's part of a LabelDataResponse or of a
// MultipleManifestResponse: its number, its status, and why it failed.
type item struct {
	ShipmentNo         string              `json:"shipmentNo"`
	Sstatus            status              `json:"sstatus"`
	ValidationMessages []validationMessage `json:"validationMessages"`
}

// message is what a shipment's status and validation messages say, for a
// refusal: each message with the property it is about, else the detail,
// else the title.
func (it item) message() string {
	var msgs []string
	for _, m := range it.ValidationMessages {
		text := strings.TrimSpace(m.ValidationMessage)
		if text == "" {
			continue
		}
		if p := strings.TrimSpace(m.Property); p != "" {
			text = p + ": " + text
		}
		msgs = append(msgs, text)
	}
	if len(msgs) > 0 {
		return strings.Join(msgs, "; ")
	}
	return it.Sstatus.text()
}

// text is the status's detail, else its title, else an OAuth error's
// description and code.
func (s status) text() string {
	if d := strings.TrimSpace(s.Detail); d != "" {
		return d
	}
	if t := strings.TrimSpace(s.Title); t != "" {
		return t
	}
	desc, code := strings.TrimSpace(s.ErrorDescription), strings.TrimSpace(s.Error)
	if desc != "" && code != "" {
		return desc + " (" + code + ")"
	}
	return desc + code
}

// pickupError is the Pickup API's Error.
type pickupError struct {
	ErrorCode json.RawMessage `json:"errorCode"`
	Title     string          `json:"title"`
	Instance  string          `json:"instance"`
	Detail    string          `json:"detail"`
}

// parseErrorBody reads DHL's error body: the code (a pickup error's
// errorCode) and the message. ok is false when the body is none of DHL's
// shapes (a proxy's HTML page, nothing at all).
func parseErrorBody(body []byte) (code, message string, ok bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var errs []pickupError
		if json.Unmarshal(trimmed, &errs) != nil {
			return "", "", false
		}
		var msgs []string
		for _, e := range errs {
			text := strings.TrimSpace(e.Title)
			if d := strings.TrimSpace(e.Detail); d != "" {
				text = strings.TrimSpace(text + " " + d)
			}
			if i := strings.TrimSpace(e.Instance); i != "" {
				text += " (" + i + ")"
			}
			if text != "" {
				msgs = append(msgs, text)
			}
			if code == "" {
				code = strings.Trim(strings.TrimSpace(string(e.ErrorCode)), `"`)
			}
		}
		return code, strings.Join(msgs, "; "), len(msgs) > 0 || code != ""
	}
	// Every error body of the other documents at once: the Shipping API's
	// LabelDataResponse (its own status, an object, and the shipments'
	// items) and RequestStatus, the Returns and tracking APIs' problem
	// details (status a number).
	var eb struct {
		status
		Items []item `json:"items"`
	}
	if json.Unmarshal(trimmed, &eb) != nil {
		return "", "", false
	}
	outer := eb.status
	if raw := bytes.TrimSpace(eb.Status); len(raw) > 0 && raw[0] == '{' {
		var s status
		if json.Unmarshal(raw, &s) == nil {
			outer = s
		}
	}
	var msgs []string
	for _, it := range eb.Items {
		if m := it.message(); m != "" {
			if n := strings.TrimSpace(it.ShipmentNo); n != "" && len(eb.Items) > 1 {
				m = n + ": " + m
			}
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		if t := outer.text(); t != "" {
			msgs = append(msgs, t)
		}
	}
	return "", strings.Join(msgs, "; "), len(msgs) > 0
}

// answerError turns an answer that is not a success into a carriers.Error.
func answerError(log *slog.Logger, op string, status int, header http.Header, body []byte, now time.Time, red *carriers.Redactor) *carriers.Error {
	if carriers.IsRedirect(status) {
		return carriers.RedirectError(log, carrierName, op, status, header)
	}
	e := &carriers.Error{Carrier: carrierName, Operation: op, HTTPStatus: status}
	code, msg, ok := parseErrorBody(body)
	// Secrets are redacted before the excerpt is cut, which could
	// otherwise leave the start of one in place.
	e.Code, e.Message = carriers.Excerpt(red.Redact(code)), carriers.Excerpt(red.Redact(msg))
	if e.Message == "" {
		e.Message = fmt.Sprintf("HTTP %d %s", status, describeBody(header, body, ok))
	}
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(header.Get("Retry-After"), now)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout || status == http.StatusBadGateway:
		// A gateway in front of the API that lost it: worth another try.
		e.Kind = carriers.ErrUnavailable
	case status == http.StatusUnauthorized:
		// The API key or the user (HTTP Basic) was refused; no shipment
		// can fix that. DHL's own text follows, which says which.
		e.Kind = carriers.ErrFailed
		e.Message = carriers.Excerpt(msgCredentialsRefused + ": " + e.Message)
	case status == http.StatusForbidden:
		// The app lacks the API, or the user the billing number.
		e.Kind = carriers.ErrFailed
	case status == http.StatusBadRequest, status == http.StatusNotFound, status == http.StatusConflict,
		status == http.StatusUnprocessableEntity:
		// What DHL refuses about the request: addresses, weights, a
		// product not in the contract, a delete after the closeout.
		e.Kind = carriers.ErrRejected
	default:
		// Other 4xx: shipd sent what DHL cannot take at all (a bug here);
		// 5xx but 502, 503 and 504: DHL failed.
		e.Kind = carriers.ErrFailed
	}
	return e
}

// describeBody says what was wrong with a body that is not DHL's error
// format (or, parsed, which content type it came as).
func describeBody(header http.Header, body []byte, parsed bool) string {
	if parsed && len(body) > 0 {
		return "(" + carriers.MediaTypeOf(header) + ")"
	}
	return carriers.DescribeBody(header, body, "DHL's error format")
}

// malformed is the error of a success answer that does not say what it
// must (carriers.Malformed).
func malformed(op string, httpStatus int, format string, args ...any) *carriers.Error {
	return carriers.Malformed(carrierName, op, httpStatus, format, args...)
}

// asCarrierError makes whatever a call returned a *carriers.Error: the
// token endpoint's own, a transport error (transient), or shipd's own.
func (c *Carrier) asCarrierError(op string, err error, red *carriers.Redactor) *carriers.Error {
	var ce *carriers.Error
	if errors.As(err, &ce) {
		if ce.Operation == "" {
			ce.Operation = op
		}
		return red.Err(ce).(*carriers.Error)
	}
	var ne net.Error
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) {
		return carriers.TransportError(c.cfg.Logger, red, carrierName, op, err)
	}
	return &carriers.Error{Carrier: carrierName, Operation: op, Kind: carriers.ErrFailed, Message: red.Redact(err.Error())}
}

// scrub hides the credentials in an error before it leaves the adapter:
// every public method passes its error through here.
func (c *Carrier) scrub(err error) error { return c.redact.Err(err) }

// rejected is a refusal of the adapter's own, before any call.
func rejected(op, format string, args ...any) *carriers.Error {
	return &carriers.Error{Carrier: carrierName, Operation: op, Kind: carriers.ErrRejected, Message: fmt.Sprintf(format, args...)}
}
