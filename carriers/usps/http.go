package usps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// Operations, as carriers.Error.Operation reports them.
const (
	opToken   = "token"
	opPayment = "payment"
	opRate    = "rate"
	opBuy     = "buy"
	opVoid    = "void"
	opTrack   = "track"
	opVerify  = "verify"
)

// request describes one authenticated call.
type request struct {
	op     string
	method string
	path   string
	query  url.Values
	// body is sent as JSON when not nil.
	body   any
	accept string
	header map[string]string
	// payment adds the X-Payment-Authorization-Token header.
	payment bool
}

// answer is what USPS said, the body already read.
type answer struct {
	status int
	header http.Header
	body   []byte
	// redact hides the secrets and the tokens of the call in USPS's text;
	// log gets what API clients are not shown.
	redact *carriers.Redactor
	log    *slog.Logger
}

func (a answer) ok() bool { return a.status >= 200 && a.status <= 299 }

// send makes an authenticated call and reads the answer, whatever its status.
// Only a call that got no complete answer is an error here; statuses are the
// caller's to interpret. On a 401 the OAuth token is refreshed and the call
// sent once more (oauth.Cache.Do); a call that also carries the payment
// authorization token drops that token before the retry as well, because a
// 401 cannot tell which of the two USPS refused.
func (c *Carrier) send(ctx context.Context, r request) (answer, error) {
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return answer{}, fmt.Errorf("usps %s: encode request: %w", r.op, err)
		}
	}
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	attempt, paymentToken, accessToken := 0, "", ""
	build := func(ctx context.Context, token string) (*http.Request, error) {
		attempt++
		accessToken = token
		var body io.Reader
		if payload != nil {
			body = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		accept := r.accept
		if accept == "" {
			accept = "application/json"
		}
		req.Header.Set("Accept", accept)
		for k, v := range r.header {
			req.Header.Set(k, v)
		}
		if r.payment {
			if attempt > 1 {
				c.payments.Invalidate(paymentToken)
			}
			if paymentToken, err = c.payments.Token(ctx); err != nil {
				return nil, err
			}
			req.Header.Set("X-Payment-Authorization-Token", paymentToken)
		}
		return req, nil
	}
	res, err := c.tokens.Do(ctx, c.client, build)
	red := c.redact.With(accessToken, paymentToken)
	if err != nil {
		var cerr *carriers.Error
		if errors.As(err, &cerr) {
			// The token or payment authorization fetch failed; it already
			// says what USPS answered.
			return answer{}, err
		}
		return answer{}, c.transportError(r.op, err, red)
	}
	return c.readAnswer(r.op, res, red)
}

// readAnswer reads at most carriers.MaxAnswerBytes of an answer (a label
// PDF is tens of KiB, base64 or raw) and closes it.
func (c *Carrier) readAnswer(op string, res *http.Response, red *carriers.Redactor) (answer, error) {
	body, err := carriers.ReadAnswer(c.log, red, CarrierName, op, res, 0)
	if err != nil {
		return answer{}, err
	}
	return answer{status: res.StatusCode, header: res.Header, body: body, redact: red, log: c.log}, nil
}

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

// flexString accepts a JSON string or number: USPS documents its codes as
// strings but some answers carry them as numbers.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	if string(b) == "null" {
		*f = ""
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

// plainJSONError rewords a type mismatch without Go type names, since the
// message reaches shipd's users.
func plainJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := "a value of another type"
	switch te.Type.Kind() {
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Int, reflect.Int64, reflect.Float64:
		want = "a number"
	}
	if te.Type == reflect.TypeOf(json.Number("")) {
		want = "a number"
	}
	field := te.Field
	if field == "" {
		field = "the answer"
	}
	return fmt.Errorf("%s is %s where %s is expected", field, article(te.Value), want)
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	default:
		return "a " + jsonKind
	}
}

// decodeJSON decodes with numbers kept as text, so money is parsed exactly.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return plainJSONError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}
