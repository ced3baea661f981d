package fedex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Operations, as carriers.Error.Operation names them.
const (
	opToken = "token"
	opRate  = "rate"
	opBuy   = "buy"
	opVoid  = "void"
	opTrack = "track"
)

// request is one authenticated JSON call.
type request struct {
	op     string
	method string
	path   string
	body   any
	// transactionID goes in x-customer-transaction-id, FedEx's field for
	// matching a request with its reply ("" for none).
	transactionID string
}

// do sends an authenticated JSON request and returns the body of a 2xx
// answer. Every failure is a *carriers.Error.
func (c *Carrier) do(ctx context.Context, r request) ([]byte, error) {
	payload, err := json.Marshal(r.body)
	if err != nil {
		return nil, &carriers.Error{Carrier: Name, Operation: r.op, Kind: carriers.ErrFailed,
			Message: "could not encode the request: " + err.Error()}
	}
	build := func(ctx context.Context, token string) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, r.method, c.baseURL+r.path, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-locale", "en_US")
		if r.transactionID != "" {
			req.Header.Set("x-customer-transaction-id", r.transactionID)
		}
		return req, nil
	}
	var used string
	res, err := c.tokens.Do(ctx, c.client, func(ctx context.Context, token string) (*http.Request, error) {
		used = token
		return build(ctx, token)
	})
	red := c.redact.With(used)
	if err != nil {
		var ce *carriers.Error
		if errors.As(err, &ce) {
			return nil, ce // the token endpoint's own answer
		}
		return nil, c.transportError(r.op, err, red)
	}
	body, err := carriers.ReadAnswer(c.log, red, Name, r.op, res, 0)
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, c.statusError(r.op, res, body, red)
	}
	return body, nil
}

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
