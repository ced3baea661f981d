package fakekit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

func TestFaultsAnswerTheNextCallsInOrder(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.FailNext("echo", http.StatusTooManyRequests, `{"slow":"down"}`)
	f.Fail("echo", fakekit.Fault{Status: http.StatusBadGateway, ContentType: "text/html", Body: "<html>gateway</html>",
		Header: http.Header{"X-Carrier": {"down"}}})
	f.FailNext("echo", http.StatusInternalServerError, "")
	type seen struct {
		Status                        int
		Body, ContentType, RetryAfter string
		Header                        string
	}
	var got []seen
	for range 4 {
		r := call(t, f, tok, http.MethodPost, "/echo", `{}`)
		got = append(got, seen{r.status, r.body, r.header.Get("Content-Type"), r.header.Get("Retry-After"), r.header.Get("X-Carrier")})
	}
	want := []seen{
		{429, `{"slow":"down"}`, "application/json", "7", ""},
		{502, "<html>gateway</html>", "text/html", "", "down"},
		{500, "", "application/json", "", ""},
		{200, `{"account":"A1","body":"{}"}` + "\n", "application/json", "", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if n := f.servedCalls(); n != 1 {
		t.Errorf("the handler ran %d times, want once: faults answer instead of it", n)
	}
	if n := f.Requests("echo"); n != 4 {
		t.Errorf("Requests = %d, want 4: faulted calls count", n)
	}
}

func TestFaultNeedsAValidTokenUnlessBeforeAuth(t *testing.T) {
	t.Parallel()
	after := startFake(t, t, fakekit.FormBody, nil)
	after.FailNext("echo", http.StatusServiceUnavailable, "")
	if r := call(t, after, "forged", http.MethodPost, "/echo", `{}`); r.status != http.StatusUnauthorized {
		t.Errorf("unauthenticated call with a fault queued: %d, want 401 (the fault waits for a valid token)", r.status)
	}
	if r := call(t, after, tokenOf(t, after, clientID, secret), http.MethodPost, "/echo", `{}`); r.status != http.StatusServiceUnavailable {
		t.Errorf("authenticated call: %d, want the queued 503", r.status)
	}

	before := startFake(t, t, fakekit.FormBody, func(c *fakekit.Config) { c.FaultsBeforeAuth = true })
	before.FailNext("echo", http.StatusServiceUnavailable, "")
	if r := call(t, before, "forged", http.MethodPost, "/echo", `{}`); r.status != http.StatusServiceUnavailable {
		t.Errorf("FaultsBeforeAuth, unauthenticated call: %d, want the queued 503", r.status)
	}
}

func TestFailClientAnswersThatClientOnly(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	f.AddClient("down", "down-secret", "D1")
	held := tokenOf(t, f, "down", "down-secret") // a token from before the outage
	f.FailClient("down", fakekit.Fault{Status: http.StatusServiceUnavailable, RetryAfter: "5"})
	for range 2 {
		if r := formToken(t, f, "down", "down-secret"); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != "5" {
			t.Errorf("token of the failing client: %d, Retry-After %q; want 503, 5", r.status, r.header.Get("Retry-After"))
		}
	}
	if r := call(t, f, held, http.MethodPost, "/echo", `{}`); r.status != http.StatusServiceUnavailable {
		t.Errorf("call with the failing client's token: %d, want 503", r.status)
	}
	if r := call(t, f, tokenOf(t, f, clientID, secret), http.MethodPost, "/echo", `{}`); r.status != http.StatusOK {
		t.Errorf("another client's call: %d, want 200", r.status)
	}
}

func TestTruncatedFaultCutsTheBodyOff(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.Fail("echo", fakekit.Fault{Status: http.StatusOK, Body: `{"rates":[{"total":`, Truncate: true})
	res, err := http.DefaultClient.Do(authed(f, tok, http.MethodPost, "/echo", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || string(b) != `{"rates":[{"total":` {
		t.Errorf("read %q, %v; want the cut-off body and io.ErrUnexpectedEOF", b, err)
	}
}

func TestHangingFaultAnswersNothing(t *testing.T) {
	t.Parallel()
	f := startFake(t, t, fakekit.FormBody, nil)
	tok := tokenOf(t, f, clientID, secret)
	f.Fail("echo", fakekit.Fault{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := send(authed(f, tok, http.MethodPost, "/echo", `{}`).WithContext(ctx)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hanging call: %v, want the client's deadline", err)
	}
	// The hang was one fault: the next call is answered.
	if r := call(t, f, tok, http.MethodPost, "/echo", `{}`); r.status != http.StatusOK {
		t.Errorf("the next call: %d, want 200", r.status)
	}
}
