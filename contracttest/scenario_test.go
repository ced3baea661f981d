package contracttest

// Scenarios and the runner: a scenario sets up what it needs, sends one
// request like a client, and the runner checks the exchange against the
// contract and against what the scenario expected.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ServerKind names the deployment a scenario needs.
type ServerKind int

const (
	// DefaultServer is the target under test (in-process or -base-url).
	DefaultServer ServerKind = iota
	// BrokenDBServer is an in-process server whose database is closed: every
	// request that reads it fails with 500 internal_error.
	BrokenDBServer
	// RateLimitedServer is an in-process server whose buckets hold one request.
	RateLimitedServer
	// CarrierAccountsServer is an in-process server whose carrier accounts
	// reach a fake UPS in this process (carrierAccountUPS), which accepts
	// its own credentials: a deployment would send them to the real UPS.
	CarrierAccountsServer
)

func (k ServerKind) String() string {
	return [...]string{"default", "closed database", "rate limited", "carrier accounts"}[k]
}

// Scenario provokes one documented status of one operation.
type Scenario struct {
	Name   string
	Op     string // operationId
	Status int    // the status it provokes
	// Code is the error `code` the body must carry; required for 4xx and 5xx,
	// and for the Error-shaped 202 label_pending.
	Code string
	// Server is where the scenario runs; anything but DefaultServer is
	// in-process only and skipped against a running deployment.
	Server ServerKind
	// Request sets up fixtures and state and returns the request to send.
	// Setup helpers on Env panic on failure; the runner reports it.
	Request func(e *Env) Request
	// Check adds assertions on the exchange; nil means none.
	Check func(x *Exchange) error
}

// Pair is the (operation, status) the scenario covers.
func (s Scenario) Pair() Pair { return Pair{s.Op, s.Status} }

// ID names the scenario in the matrix, subtests and JUnit.
func (s Scenario) ID() string { return fmt.Sprintf("%s/%d/%s", s.Op, s.Status, s.Name) }

// Request is what a scenario sends. The method and the path come from the
// operation in the contract; Params fills its path parameters.
type Request struct {
	Token  string            // sent as Authorization: Bearer <Token>; "" sends none
	Auth   string            // a raw Authorization header instead of Token
	Params map[string]string // path parameters
	Query  url.Values
	// Body is marshalled as JSON; a []byte or string is sent as it is.
	Body        any
	ContentType string // default application/json when there is a body
}

// Exchange is one request and its response.
type Exchange struct {
	Request   *http.Request
	Status    int
	Header    http.Header
	Body      []byte
	Error     errorBody // decoded when the body is an Error
	RequestID string
}

// JSON decodes the response body into v.
func (x *Exchange) JSON(v any) error {
	if err := json.Unmarshal(x.Body, v); err != nil {
		return fmt.Errorf("decode body: %v: %s", err, truncate(x.Body, 300))
	}
	return nil
}

// Object decodes the response body as a JSON object.
func (x *Exchange) Object() (map[string]any, error) {
	var m map[string]any
	return m, x.JSON(&m)
}

// Outcome of a scenario.
type Outcome string

const (
	Passed  Outcome = "pass"
	Failed  Outcome = "FAIL"
	Skipped Outcome = "skip"
)

// Result is what running a scenario found.
type Result struct {
	Scenario Scenario
	Outcome  Outcome
	Problems []string
	Skip     string
	Duration time.Duration
}

// setupFailure is raised (panicked) by Env helpers; the runner recovers it.
type setupFailure struct{ err error }

// Runner runs scenarios against targets.
type Runner struct {
	Contract *Contract
	// Target is the deployment under test.
	Target *Target
	// Special returns the in-process server of a kind; nil when the target is
	// remote and in-process-only scenarios are skipped.
	Special func(ServerKind) (*Target, error)
}

// Run runs one scenario; a failed setup is reported in the result.
func (r *Runner) Run(ctx context.Context, sc Scenario) (res Result) {
	start := time.Now()
	res = Result{Scenario: sc}
	defer func() { res.Duration = time.Since(start) }()
	fail := func(format string, args ...any) Result {
		res.Outcome = Failed
		res.Problems = append(res.Problems, fmt.Sprintf(format, args...))
		return res
	}

	if problems := r.lint(sc); len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; "))
	}
	target := r.Target
	if sc.Server != DefaultServer {
		if r.Special == nil {
			res.Outcome, res.Skip = Skipped, "in-process only ("+sc.Server.String()+" server)"
			return res
		}
		t, err := r.Special(sc.Server)
		if err != nil {
			return fail("start the %s server: %v", sc.Server, err)
		}
		target = t
	}

	env := newEnv(ctx, target)
	req, err := func() (req Request, err error) {
		defer func() {
			if v := recover(); v != nil {
				sf, ok := v.(setupFailure)
				if !ok {
					panic(v)
				}
				err = sf.err
			}
		}()
		return sc.Request(env), nil
	}()
	if err != nil {
		return fail("setup: %v", err)
	}
	op, _ := r.Contract.Op(sc.Op)
	x, err := target.send(ctx, op, req)
	if err != nil {
		return fail("request: %v", err)
	}
	res.Problems = r.verify(ctx, target, sc, x)
	res.Outcome = Passed
	if len(res.Problems) > 0 {
		res.Outcome = Failed
	}
	return res
}

// lint catches table mistakes before anything is sent.
func (r *Runner) lint(sc Scenario) []string {
	var out []string
	if _, ok := r.Contract.Op(sc.Op); !ok {
		out = append(out, fmt.Sprintf("operation %q is not in the contract", sc.Op))
	} else if !r.Contract.Documented(sc.Pair()) {
		out = append(out, fmt.Sprintf("the contract does not document status %d for %s", sc.Status, sc.Op))
	}
	if sc.Status >= 400 && sc.Code == "" {
		out = append(out, "an error scenario must name the code it expects")
	}
	if sc.Request == nil {
		out = append(out, "no Request")
	}
	return out
}

// verify compares the exchange with the contract and with the scenario.
func (r *Runner) verify(ctx context.Context, target *Target, sc Scenario, x *Exchange) []string {
	var problems []string
	if x.Status != sc.Status {
		problems = append(problems, fmt.Sprintf("status %d, want %d; body: %s", x.Status, sc.Status, truncate(x.Body, 400)))
	}
	problems = append(problems, target.checker.check(ctx, sc.Op, x.Request, x.Status, x.Header, x.Body)...)

	// The contract's description: every response carries X-Request-Id, and
	// every 2xx of a rate-limited operation the bucket's X-RateLimit-* headers.
	if x.RequestID == "" {
		problems = append(problems, "no X-Request-Id header")
	}
	if op, _ := r.Contract.Op(sc.Op); op.RateGroup != "" && x.Status >= 200 && x.Status < 300 {
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			if _, err := strconv.ParseInt(x.Header.Get(h), 10, 64); err != nil {
				problems = append(problems, fmt.Sprintf("%s %q on a 2xx of an operation in x-rate-limit-group %s: want an integer", h, x.Header.Get(h), op.RateGroup))
			}
		}
	}
	// Every 4xx and 5xx (and the Error-shaped 202) carries the expected code
	// and the request's id.
	if x.Status >= 400 || sc.Code != "" {
		e, err := decodeError(x.Body)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		default:
			x.Error = e
			if sc.Code != "" && e.Code != sc.Code {
				problems = append(problems, fmt.Sprintf("code %q, want %q", e.Code, sc.Code))
			}
			if !r.Contract.KnownCode(e.Code) {
				problems = append(problems, fmt.Sprintf("code %q is not one of the contract's known codes (ErrorCode's x-extensible-enum)", e.Code))
			}
			if e.RequestID != x.RequestID {
				problems = append(problems, fmt.Sprintf("requestId %q differs from X-Request-Id %q", e.RequestID, x.RequestID))
			}
		}
	}
	if sc.Check != nil && len(problems) == 0 {
		if err := sc.Check(x); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return problems
}

var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

// send builds the operation's request, sends it and reads the response.
func (t *Target) send(ctx context.Context, op *opInfo, r Request) (*Exchange, error) {
	var missing []string
	path := pathParam.ReplaceAllStringFunc(op.Path, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := r.Params[name]
		if !ok {
			missing = append(missing, name)
		}
		return url.PathEscape(v)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("path parameters %v not given", missing)
	}
	u := t.BaseURL + apiPrefix + path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	var body []byte
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		body = b
	case string:
		body = []byte(b)
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			return nil, err
		}
	}
	return t.do(ctx, op.Method, u, r, body)
}

func (t *Target) do(ctx context.Context, method, u string, r Request, body []byte) (*Exchange, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	switch {
	case r.Auth != "":
		req.Header.Set("Authorization", r.Auth)
	case r.Token != "":
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	x := &Exchange{}
	res, err := t.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	x.Body, err = io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	// The validator needs a request without a consumed body; it reads none.
	req.Body = http.NoBody
	x.Request, x.Status, x.Header, x.RequestID = req, res.StatusCode, res.Header, res.Header.Get("X-Request-Id")
	return x, nil
}

func truncate(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
