package dhlexpress

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// errorBody is MyDHL's error body (supermodelIoLogisticsExpressErrorResponse,
// an RFC 7807 problem): detail says what is wrong, often after DHL's
// numeric code ("8003: Account not allowed for this service."), and
// additionalDetails lists the fields of a validation error. The document's
// 500 examples add "code", which its schema does not declare; it is read
// when present.
type errorBody struct {
	Instance          string   `json:"instance"`
	Detail            string   `json:"detail"`
	Title             string   `json:"title"`
	Message           string   `json:"message"`
	Status            string   `json:"status"`
	Code              string   `json:"code"`
	AdditionalDetails []string `json:"additionalDetails"`
}

// maxDetails bounds how many of additionalDetails a message quotes.
const maxDetails = 5

// parseErrorBody reads DHL's error body with red's secrets hidden before
// the excerpts are cut; ok is false when the body is not one (an HTML page
// from a gateway, an empty body, another JSON shape).
func parseErrorBody(body []byte, red *carriers.Redactor) (code, message string, ok bool) {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		return "", "", false
	}
	detail := strings.TrimSpace(eb.Detail)
	// "8003: Account not allowed…": DHL's code before the colon.
	if head, rest, found := strings.Cut(detail, ":"); found && head != "" && strings.Trim(head, "0123456789") == "" {
		code, detail = head, strings.TrimSpace(rest)
	}
	if code == "" {
		code = strings.TrimSpace(eb.Code)
	}
	parts := []string{}
	if detail != "" {
		parts = append(parts, detail)
	}
	for i, d := range eb.AdditionalDetails {
		if i == maxDetails {
			parts = append(parts, fmt.Sprintf("and %d more", len(eb.AdditionalDetails)-maxDetails))
			break
		}
		if d = strings.TrimSpace(d); d != "" {
			parts = append(parts, d)
		}
	}
	if len(parts) == 0 {
		for _, s := range []string{eb.Title, eb.Message} {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
				break
			}
		}
	}
	code, message = carriers.Excerpt(red.Redact(code)), carriers.Excerpt(red.Redact(strings.Join(parts, "; ")))
	return code, message, message != "" || code != ""
}

// statusError classifies a non-2xx answer.
func (c *Carrier) statusError(op string, res *http.Response, body []byte) *carriers.Error {
	if carriers.IsRedirect(res.StatusCode) {
		return carriers.RedirectError(c.log, Name, op, res.StatusCode, res.Header)
	}
	e := &carriers.Error{Carrier: Name, Operation: op, HTTPStatus: res.StatusCode}
	code, msg, ok := parseErrorBody(body, c.redact)
	e.Code, e.Message = code, msg
	if !ok {
		e.Message = fmt.Sprintf("HTTP %d without a DHL Express error body", res.StatusCode)
	}
	switch s := res.StatusCode; {
	case s == http.StatusUnauthorized:
		// HTTP Basic: nothing to refresh, the credentials are wrong.
		e.Kind, e.Message = carriers.ErrFailed, "the carrier refused the credentials"
	case s == http.StatusForbidden:
		e.Kind = carriers.ErrFailed
	case s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable || s == http.StatusRequestTimeout || s == http.StatusGatewayTimeout:
		e.Kind = carriers.ErrUnavailable
		e.RetryAfter = carriers.ParseRetryAfter(res.Header.Get("Retry-After"), c.now())
	case s == http.StatusBadRequest || s == http.StatusNotFound || s == http.StatusConflict || s == http.StatusUnprocessableEntity:
		// 400 and 422 are DHL's refusals of the shipment as given (an
		// account not allowed, a product not offered, a field's form); 404
		// is "no data found".
		e.Kind = carriers.ErrRejected
	default:
		// DHL's 500 "999: Process failure", other 5xx, and 4xx that say the
		// request itself is wrong (405, 415): neither retrying at once nor
		// changing the shipment is known to help.
		e.Kind = carriers.ErrFailed
	}
	return e
}

// scrub hides the credentials in an error before it leaves the adapter:
// DHL's texts may quote the request ("account 123456789 is not allowed"),
// and every public method passes its error through here.
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
