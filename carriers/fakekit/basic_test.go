package fakekit_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// A fake of Basic operations (an API without a token endpoint) admits a
// call by the HTTP Basic credentials of a client it knows, acts for that
// client's account, and refuses a wrong secret, an unknown id, a bearer
// token and no credentials alike.
func TestBasicOperations(t *testing.T) {
	t.Parallel()
	f := &kitFake{}
	f.Server = fakekit.Start(t, fakekit.Config{MaxRequestBytes: 1 << 10, Refuse: f.refuse}, func(rt *fakekit.Router) {
		rt.Basic(fakekit.Client{ID: clientID, Secret: secret, Account: account})
		rt.Operation("POST /echo", "echo", f.echo)
	})
	f.AddClient("other", "other-secret", "B2")
	basic := func(id, sec string) *http.Request {
		req, _ := http.NewRequest(http.MethodPost, f.URL()+"/echo", strings.NewReader(`{}`))
		if id != "" {
			req.SetBasicAuth(id, sec)
		}
		return req
	}
	bearer := basic("", "")
	bearer.Header.Set("Authorization", "Bearer "+secret)

	got := map[string]int{}
	for name, req := range map[string]*http.Request{
		"own": basic(clientID, secret), "other": basic("other", "other-secret"),
		"wrong secret": basic(clientID, "nope"), "unknown id": basic("nobody", secret), "bearer": bearer, "none": basic("", ""),
	} {
		got[name] = do(t, req).status
	}
	want := map[string]int{"own": 200, "other": 200, "wrong secret": 401, "unknown id": 401, "bearer": 401, "none": 401}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	if r := do(t, basic("other", "other-secret")); !strings.Contains(r.body, `"account":"B2"`) {
		t.Errorf("the other client's call acted for %s, want account B2", r.body)
	}
	if !errors.Is(f.lastRefusal(), fakekit.ErrUnauthorized) {
		t.Errorf("refused with %v, want ErrUnauthorized", f.lastRefusal())
	}
	if d := cmp.Diff([]string{clientID, "other", "other"}, slices.Sorted(slices.Values(f.Callers("echo")))); d != "" {
		t.Errorf("callers (-want +got):\n%s", d)
	}
}
