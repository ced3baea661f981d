package carriers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// NoRedirects returns a copy of client that follows no redirect: the
// 3xx answer itself comes back from Do. Carrier APIs never redirect an API
// call, and following one would send the OAuth client id and secret, the
// account number and the addresses to whatever host the Location names,
// and hand that host's answer to shipd's clients. nil gives a client with
// no timeout (the adapters always pass one). The copy shares the
// client's Transport, so connection pools and test TLS settings stay.
func NoRedirects(client *http.Client) *http.Client {
	var c http.Client
	if client != nil {
		c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// IsRedirect reports whether status is a 3xx, an answer NoRedirects
// clients hand back instead of following.
func IsRedirect(status int) bool { return status >= 300 && status <= 399 }

// RedirectError is the error for a carrier that answered op with a
// redirect: a malformed answer (ErrFailed). The message names the host
// the carrier pointed at, which helps whoever runs shipd to see a moved
// API; the whole Location, which may carry anything, goes to log only.
func RedirectError(log *slog.Logger, carrier, op string, status int, header http.Header) *Error {
	location := header.Get("Location")
	host := "another address"
	if u, err := url.Parse(location); err == nil && u.Hostname() != "" {
		host = Excerpt(u.Hostname())
	}
	if log != nil {
		log.Warn("carrier answered with a redirect, not followed",
			"carrier", carrier, "operation", op, "status", status, "location", Excerpt(location))
	}
	return &Error{Carrier: carrier, Operation: op, HTTPStatus: status, Kind: ErrFailed,
		Message: "the carrier answered with a redirect to " + host + " (HTTP " + strconv.Itoa(status) + "), which shipd does not follow"}
}

// TransportError is the error for a call to carrier that got no answer
// (refused or reset connection, unknown host, TLS failure, timeout): all
// transient (ErrUnavailable), and Unreachable when it is this server that
// cannot reach the carrier (no DNS, no route, an untrusted certificate).
// Its message says what happened in words
// ("UPS could not be reached (connection refused)"); err itself, which
// names the URL, host and port (a *url.Error), goes to log only, after
// redact.
func TransportError(log *slog.Logger, redact *Redactor, carrier, op string, err error) *Error {
	msg := carrier + " could not be reached"
	unreachable := false
	var (
		ne      net.Error
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		hostErr x509.HostnameError
		recErr  tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, context.Canceled):
		msg = "the request to " + carrier + " was canceled"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		msg = carrier + " did not answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		msg += " (connection refused)"
	case errors.Is(err, syscall.ECONNRESET):
		msg = "the connection to " + carrier + " was reset"
	case errors.As(err, &dnsErr):
		msg += " (its host name did not resolve)"
		unreachable = !dnsErr.IsTimeout
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		msg += " (no network route to it)"
		unreachable = true
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr):
		msg += " (its TLS certificate was not accepted)"
		unreachable = true
	case errors.As(err, &recErr):
		msg += " (the TLS handshake failed)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		msg = carrier + " closed the connection without answering"
	}
	if log != nil {
		log.Warn("carrier call got no answer", "carrier", carrier, "operation", op, "error", redact.Redact(err.Error()))
	}
	return &Error{Carrier: carrier, Operation: op, Kind: ErrUnavailable, Message: msg, Unreachable: unreachable}
}

// DecodeProblem says why a carrier's JSON answer did not decode, in words
// fit for an API client: which field had which JSON type where another was
// expected, or that the text is not JSON at all. The decoder's own message
// names Go types ("ups.oneOrMany[…]", "fedex.amount"), which is no one's
// business outside shipd; callers log err itself.
func DecodeProblem(err error) string {
	var (
		syn *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "it is empty or ends early"
	case errors.As(err, &syn):
		return "it is not valid JSON (at byte " + strconv.FormatInt(syn.Offset, 10) + ")"
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the answer"
		}
		return Excerpt(field) + " is " + jsonArticle(te.Value) + " where " + goKindWord(te.Type) + " is expected"
	}
	return "it is not in the documented shape"
}

func jsonArticle(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "":
		return "a value"
	}
	// number, string, bool, and json's "number 1.5"-style values.
	return "a " + Excerpt(kind)
}

func goKindWord(t reflect.Type) string {
	if t == nil {
		return "a value of another type"
	}
	if t == reflect.TypeOf(json.Number("")) {
		return "a number"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return goKindWord(t.Elem())
	}
	return "a value of another type"
}

// DecodeErrorText is err's text with the JSON decoder's own error in it
// replaced by DecodeProblem's words: adapters wrap decode errors in their
// own context ("rate answer is not the documented JSON: …"), which stays.
// Errors that are not about decoding come back as they are.
func DecodeErrorText(err error) string {
	if err == nil {
		return ""
	}
	full := err.Error()
	var (
		syn   *json.SyntaxError
		te    *json.UnmarshalTypeError
		inner error
	)
	switch {
	case errors.As(err, &te):
		inner = te
	case errors.As(err, &syn):
		inner = syn
	case errors.Is(err, io.ErrUnexpectedEOF):
		inner = io.ErrUnexpectedEOF
	default:
		return full
	}
	problem := DecodeProblem(inner)
	if before, after, ok := strings.Cut(full, inner.Error()); ok {
		return before + problem + after
	}
	return problem
}

// DefaultTimeout bounds one exchange with a carrier when a connector is
// given no client of its own.
const DefaultTimeout = 20 * time.Second

// MaxAnswerBytes is the most a connector reads of a carrier's answer: far
// above any label answer (a base64 PDF of a few hundred KiB), far below
// what would hurt the server.
const MaxAnswerBytes = 10 << 20

// HTTPClient is the client a connector talks to its carrier with: c, or
// one with DefaultTimeout, following no redirect (NoRedirects).
func HTTPClient(c *http.Client) *http.Client {
	if c == nil {
		c = &http.Client{Timeout: DefaultTimeout}
	}
	return NoRedirects(c)
}

// ReadAnswer reads at most max bytes of res's body (0: MaxAnswerBytes) and
// closes it. An answer cut off in transit is an *Error of ErrUnavailable,
// worth another try, its cause (which names addresses) logged after
// redaction; a longer one is an *Error of ErrFailed.
func ReadAnswer(log *slog.Logger, redact *Redactor, carrier, op string, res *http.Response, max int64) ([]byte, error) {
	defer res.Body.Close()
	if max <= 0 {
		max = MaxAnswerBytes
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, max+1))
	if err != nil {
		if log != nil {
			log.Warn("carrier answer cut off", "carrier", carrier, "operation", op, "status", res.StatusCode,
				"error", redact.Redact(err.Error()))
		}
		return nil, &Error{Carrier: carrier, Operation: op, HTTPStatus: res.StatusCode, Kind: ErrUnavailable,
			Message: "the answer was cut off"}
	}
	if int64(len(body)) > max {
		return nil, &Error{Carrier: carrier, Operation: op, HTTPStatus: res.StatusCode, Kind: ErrFailed,
			Message: "the answer is larger than " + sizeWords(max)}
	}
	return body, nil
}

// sizeWords says n bytes in MiB when it is a whole number of them.
func sizeWords(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// MediaTypeOf names an answer's content type for a message: its media type
// without parameters, excerpted, or "no content type".
func MediaTypeOf(header http.Header) string {
	ct := header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		ct = mt
	}
	if ct == "" {
		return "no content type"
	}
	return Excerpt(ct)
}

// DescribeBody says what an answer's body is when it is not the carrier's
// error form (notWhat names that form: "a GLS error"), without echoing it:
// a hostile or confused server could put anything there, the credentials it
// was sent among them.
func DescribeBody(header http.Header, body []byte, notWhat string) string {
	if len(body) == 0 {
		return "with an empty body"
	}
	return fmt.Sprintf("with a %d-byte %s body that is not %s", len(body), MediaTypeOf(header), notWhat)
}

// Malformed is the error of a success answer that does not parse or lacks
// what it must say: the carrier failed (ErrFailed). A JSON decoder's error
// among args is reworded without the Go type names it carries. Its HTTP
// status is the answer's (2xx), so that a purchase's malformed answer counts
// as sold (SoldUnusable).
func Malformed(carrier, op string, httpStatus int, format string, args ...any) *Error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = DecodeErrorText(err)
		}
	}
	return &Error{Carrier: carrier, Operation: op, HTTPStatus: httpStatus, Kind: ErrFailed,
		Message: "malformed answer: " + fmt.Sprintf(format, args...)}
}
