package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// hostileBodies are the worst requests that fit in the 1 MiB body limit: a
// huge array of wrong items where the contract allows a few.
func hostileBodies() map[string]struct{ path, route, body string } {
	events := `{"url":"http://127.0.0.1:9/x","events":[` + strings.TrimSuffix(strings.Repeat("1,", 500_000), ",") + `]}`
	items := strings.TrimSuffix(strings.Repeat(`{},`, 300_000), ",")
	quote := `{"fromAddress":{"street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
		`"toAddress":{"street1":"10 Downing St","city":"London","zip":"SW1A 2AA","country":"GB"},"parcel":{"weightOz":16},` +
		`"customs":{"contentsType":"merchandise","items":[` + items + `]}}`
	wrongStrings := `{"url":"http://127.0.0.1:9/x","events":[` + strings.TrimSuffix(strings.Repeat(`"no",`, 200_000), ",") + `]}`
	var unknown strings.Builder // 80,000 fields the contract does not have, each compared with the known ones
	for i := range 80_000 {
		fmt.Fprintf(&unknown, `"f%d":0,`, i)
	}
	unknownFields := `{` + unknown.String() + `"url":"http://127.0.0.1:9/x","events":["*"]}`
	longNames := `{"` + strings.Repeat("u", 300_000) + `":0,"` + strings.Repeat("v", 300_000) + `":0,"events":["*"]}`
	return map[string]struct{ path, route, body string }{
		"unknown webhook fields":    {BasePath + "/webhooks", BasePath + "/webhooks", unknownFields},
		"long unknown field names":  {BasePath + "/webhooks", BasePath + "/webhooks", longNames},
		"webhook events of numbers": {BasePath + "/webhooks", BasePath + "/webhooks", events},
		"webhook events of strings": {BasePath + "/webhooks", BasePath + "/webhooks", wrongStrings},
		"quote with customs items":  {BasePath + "/labels/quote", BasePath + "/labels/quote", quote},
	}
}

// maxAllocPerBodyByte bounds what validating a hostile body may allocate,
// per byte of it (see TestHostileBodiesAreAnsweredQuickly).
const maxAllocPerBodyByte = 200

func validate(s *Server, e *echo.Echo, path, route, body string) error {
	h := s.validateRequest(func(echo.Context) error { return nil })
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	c := e.NewContext(req, httptest.NewRecorder())
	c.SetPath(route)
	return h(c)
}

// A request within the body limit is answered quickly, with a bounded
// error: the array's size is checked before its items, and no more than
// maxReportedIssues issues are listed.
//
// Not parallel: it weighs what each answer allocates (runtime.MemStats), a
// measure of the work done that, unlike a time, does not depend on the
// machine's load; no other test of the package runs meanwhile.
func TestHostileBodiesAreAnsweredQuickly(t *testing.T) {
	s, e := bareServer(t)
	for name, tc := range hostileBodies() {
		if len(tc.body) > 1<<20 {
			t.Fatalf("%s: %d bytes, over the body limit", name, len(tc.body))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := validate(s, e, tc.path, tc.route, tc.body)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %v, want a 422", name, err)
		}
		var buf bytes.Buffer
		if err := jsonEncode(&buf, ae.Body); err != nil {
			t.Fatal(err)
		}
		if buf.Len() > 16<<10 {
			t.Errorf("%s: a %d-byte error body", name, buf.Len())
		}
		// Work linear in the body, with room: decoding a JSON document
		// into Go values takes some tens of bytes per byte of it.
		if limit := uint64(maxAllocPerBodyByte * len(tc.body)); allocated > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte body, over %d", name, allocated, len(tc.body), limit)
		}
		t.Logf("%s: %d bytes answered %s in %v (%d bytes allocated, %.0f per body byte) with %d bytes of error",
			name, len(tc.body), ae.Body.Code, took, allocated, float64(allocated)/float64(len(tc.body)), buf.Len())
	}
}

// Many distinct problems are reported up to a cap, with the count of the rest.
func TestIssuesAreCapped(t *testing.T) {
	t.Parallel()
	var set issueSet
	for i := range 500 {
		set.add(validationIssue{path: fmt.Sprintf("events.%d", i), message: "wrong"})
		if i < 10 {
			set.add(validationIssue{path: fmt.Sprintf("events.%d", i), message: "wrong"}) // a repeat is dropped
		}
	}
	if set.more != 450 {
		t.Fatalf("%d beyond the cap, want 450", set.more)
	}
	e := validationIssuesError(set.list, set.more)
	if e.Body.Issues == nil || len(*e.Body.Issues) > 50 || !strings.Contains(e.Body.Error, "more") {
		t.Fatalf("%d issues reported, error %q", len(*e.Body.Issues), e.Body.Error)
	}
}

// BenchmarkHostileBodies is the worst case within the body limit.
func BenchmarkHostileBodies(b *testing.B) {
	s, e := bareServer(b)
	for name, tc := range hostileBodies() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				_ = validate(s, e, tc.path, tc.route, tc.body)
			}
		})
	}
}

func jsonEncode(buf *bytes.Buffer, v any) error { return json.NewEncoder(buf).Encode(v) }
