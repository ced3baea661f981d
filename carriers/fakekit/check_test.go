package fakekit_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

var errUndocumented = errors.New("undocumented")

// stubChecker notes what it was asked to check, and refuses requests to
// /echo whose body has "bad", and answers that carry "bad".
type stubChecker struct {
	mu   sync.Mutex
	seen []string
}

func (c *stubChecker) CheckRequest(r *http.Request, body []byte) error {
	c.note(fmt.Sprintf("request %s %s %s", r.Method, r.URL.Path, body))
	if strings.Contains(string(body), "bad") {
		return fmt.Errorf("%w: request body %s", errUndocumented, body)
	}
	return nil
}

func (c *stubChecker) CheckResponse(r *http.Request, status int, header http.Header, body []byte) error {
	c.note(fmt.Sprintf("answer %s %d %s", r.URL.Path, status, header.Get("Content-Type")))
	if strings.Contains(string(body), "bad") {
		return fmt.Errorf("%w: answer body %s", errUndocumented, body)
	}
	return nil
}

func (c *stubChecker) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, s)
}

func (c *stubChecker) checked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

func TestCheckerSeesEveryExchangeButFaultAnswers(t *testing.T) {
	t.Parallel()
	f := startFake(t, nil, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret) // before the checker: not checked
	c := &stubChecker{}
	f.SetChecker(c)
	call(t, f, tok, http.MethodPost, "/echo", `{"n":1}`)
	call(t, f, "forged", http.MethodPost, "/echo", `{"n":2}`)
	f.FailNext("echo", http.StatusServiceUnavailable, `{"bad":"fault"}`)
	call(t, f, tok, http.MethodPost, "/echo", `{"n":3}`)
	call(t, f, tok, http.MethodGet, "/nowhere", "")
	want := []string{
		`request POST /echo {"n":1}`, "answer /echo 200 application/json",
		`request POST /echo {"n":2}`, "answer /echo 401 application/json", // the kit's refusals are answers too
		`request POST /echo {"n":3}`, // a fault's answer is not checked
		"request GET /nowhere ", "answer /nowhere 404 text/plain; charset=utf-8",
	}
	if diff := cmp.Diff(want, c.checked()); diff != "" {
		t.Errorf("checked (-want +got):\n%s", diff)
	}
	if got := f.CheckFailures(); len(got) != 0 {
		t.Errorf("CheckFailures = %v, want none", got)
	}
}

func TestFailedChecksAreKeptWithoutATest(t *testing.T) {
	t.Parallel()
	f := startFake(t, nil, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.SetChecker(&stubChecker{})
	// The echo answer repeats the body: both the request and the answer fail.
	if r := call(t, f, tok, http.MethodPost, "/echo", `{"bad":1}`); r.status != http.StatusOK {
		t.Errorf("a failed check changed the answer: %d", r.status)
	}
	failures := f.CheckFailures()
	if len(failures) != 2 || !errors.Is(failures[0], errUndocumented) || !errors.Is(failures[1], errUndocumented) ||
		!strings.HasPrefix(failures[0].Error(), "request of POST /echo") || !strings.HasPrefix(failures[1].Error(), "answer of POST /echo") {
		t.Errorf("CheckFailures = %v, want the request's and the answer's, each errUndocumented", failures)
	}
	f.SetChecker(nil)
	call(t, f, tok, http.MethodPost, "/echo", `{"bad":2}`)
	if n := len(f.CheckFailures()); n != 2 {
		t.Errorf("%d failures after SetChecker(nil), want still 2", n)
	}
}

// recordingTB is a test that notes what is reported to it.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestFailedChecksAreReportedToTheTest(t *testing.T) {
	t.Parallel()
	tb := &recordingTB{TB: t}
	f := startFake(t, tb, fakekit.FormBody, nil)
	f.SetChecker(&stubChecker{})
	formToken(t, f, clientID, secret+"bad") // the checker refuses this body; the fake refuses the secret
	f.Close()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.errors) != 1 || !strings.Contains(tb.errors[0], "request of POST /token") || !strings.Contains(tb.errors[0], "undocumented") {
		t.Errorf("reported to the test: %q, want the token request's failed check", tb.errors)
	}
}
