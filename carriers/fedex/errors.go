package fedex

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// transportError is a request that got no HTTP answer: refused connection,
// timeout, reset. All are transient. The message says what happened; the
// URL, host and port go to the log.
func (c *Carrier) transportError(op string, err error, red *carriers.Redactor) *carriers.Error {
	return carriers.TransportError(c.log, red, Name, op, err)
}

// apiError is one entry of FedEx's documented error body
// {"transactionId": "...", "errors": [{"code": "...", "message": "..."}]}.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// errorBody is FedEx's error body (ErrorResponseVO in every v1 API).
type errorBody struct {
	TransactionID string     `json:"transactionId"`
	Errors        []apiError `json:"errors"`
}

// parseErrorBody reads FedEx's error body; ok is false when the body is not
// one (an HTML page from a proxy, an empty body, another JSON shape).
func parseErrorBody(body []byte) (code, message string, ok bool) {
	return parseErrorBodyRedacted(body, nil)
}

// parseErrorBodyRedacted is parseErrorBody with red's secrets hidden before
// the excerpts are cut, so that no cut leaves the start of one.
func parseErrorBodyRedacted(body []byte, red *carriers.Redactor) (code, message string, ok bool) {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil || len(eb.Errors) == 0 {
		return "", "", false
	}
	var msgs []string
	for _, e := range eb.Errors {
		if m := strings.TrimSpace(e.Message); m != "" {
			msgs = append(msgs, m)
		}
		if code == "" {
			code = strings.TrimSpace(e.Code)
		}
	}
	code, message = carriers.Excerpt(red.Redact(code)), carriers.Excerpt(red.Redact(strings.Join(msgs, "; ")))
	if message == "" {
		message = code
	}
	return code, message, code != "" || message != ""
}

// statusError classifies a non-2xx answer.
func (c *Carrier) statusError(op string, res *http.Response, body []byte, red *carriers.Redactor) *carriers.Error {
	if carriers.IsRedirect(res.StatusCode) {
		return carriers.RedirectError(c.log, Name, op, res.StatusCode, res.Header)
	}
	e := &carriers.Error{Carrier: Name, Operation: op, HTTPStatus: res.StatusCode}
	code, msg, ok := parseErrorBodyRedacted(body, red)
	e.Code, e.Message = code, msg
	if !ok {
		e.Message = fmt.Sprintf("HTTP %d without a FedEx error body", res.StatusCode)
	}
	switch s := res.StatusCode; {
	case s == http.StatusUnauthorized:
		// oauth.Cache already refreshed the token once and retried.
		e.Kind, e.Message = carriers.ErrFailed, "the carrier refused the credentials"
	case s == http.StatusForbidden:
		e.Kind = carriers.ErrFailed
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable || s == http.StatusRequestTimeout:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(res.Header.Get("Retry-After"), c.now())
	case s == http.StatusBadRequest || s == http.StatusNotFound || s == http.StatusConflict || s == http.StatusUnprocessableEntity:
		e.Kind = carriers.ErrRejected
	default:
		// Other 5xx, and 4xx that say our request itself is wrong (405, 415):
		// neither retrying nor changing the shipment helps.
		e.Kind = carriers.ErrFailed
	}
	return e
}

// scrub hides the credentials in a carrier error before it leaves the
// adapter: FedEx messages may quote the request ("account 510087020 is not
// authorized"), and every public method passes its error through here.
func (c *Carrier) scrub(err error) error { return c.redact.Err(err) }

// malformed is a 2xx answer that does not say what it must. A JSON
// decoder's error among args is reworded without Go type names.
func malformed(op, format string, args ...any) *carriers.Error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = carriers.DecodeErrorText(err)
		}
	}
	return &carriers.Error{Carrier: Name, Operation: op, HTTPStatus: http.StatusOK, Kind: carriers.ErrFailed,
		Message: "unusable answer: " + fmt.Sprintf(format, args...)}
}
