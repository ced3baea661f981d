package apidoc

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// failures is a testing.TB that keeps what a check reports instead of
// failing the test that runs it.
type failures struct {
	testing.TB
	reported []string
}

func (f *failures) Helper()                   {}
func (f *failures) Error(args ...any)         { f.reported = append(f.reported, fmt.Sprint(args...)) }
func (f *failures) Errorf(s string, a ...any) { f.reported = append(f.reported, fmt.Sprintf(s, a...)) }
func (f *failures) Fatal(args ...any)         { f.reported = append(f.reported, "fatal: "+fmt.Sprint(args...)) }

func TestCheckExchanges(t *testing.T) {
	t.Parallel()
	e := loadThings(t).Excusing()
	created := newRequest(t, http.MethodPost, "/v2/things/box", `{"name":"crate"}`)
	created.Header.Set("transId", "1")
	badBody := newRequest(t, http.MethodPost, "/v2/things/box", `{"name":5}`)
	badBody.Header.Set("transId", "2")
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	exchanges := []Exchange{
		{Request: created, RequestBody: []byte(`{"name":"crate"}`), Status: 200, Header: jsonHeader, Body: []byte(`{"id":"t_1"}`)},
		{Request: newRequest(t, http.MethodGet, "/v2/nowhere", ""), Status: 200},                                   // checked by hand
		{Request: badBody, RequestBody: []byte(`{"name":5}`), Status: 200, Header: jsonHeader, Body: []byte(`{}`)}, // both ways wrong
		{Request: newRequest(t, http.MethodGet, "/v2/elsewhere", ""), Status: 200},                                 // neither documented nor checked
	}
	var handChecked []string
	f := &failures{}
	ops := e.CheckExchanges(f, exchanges, Undocumented{"/v2/nowhere": func(t testing.TB, x Exchange) {
		handChecked = append(handChecked, x.Request.URL.Path)
	}})
	want := []string{"things.yaml POST /things/{kind} (CreateThing)", "no document: GET /v2/nowhere", "things.yaml POST /things/{kind} (CreateThing)"}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/v2/nowhere"}, handChecked); diff != "" {
		t.Errorf("checked by hand (-want +got):\n%s", diff)
	}
	if len(f.reported) != 3 || !strings.Contains(f.reported[0], "/name") || !strings.Contains(f.reported[1], "/id") ||
		!strings.Contains(f.reported[2], "/v2/elsewhere") {
		t.Errorf("reported %q; want the request's /name, the answer's /id and the undocumented path", f.reported)
	}

	// An excused problem is not reported.
	excused := loadThings(t).Excusing(Exception{Document: "things.yaml", Path: "/things/{kind}", In: "body", Pointer: "/name"},
		Exception{Document: "things.yaml", Path: "/things/{kind}", In: "body", Pointer: "/id"})
	f = &failures{}
	excused.CheckExchanges(f, exchanges[2:3], nil)
	if len(f.reported) != 0 {
		t.Errorf("excused problems reported: %q", f.reported)
	}
}

func TestCheckGoldenRequests(t *testing.T) {
	t.Parallel()
	e := loadThings(t).Excusing()
	dir := t.TempDir()
	for name, body := range map[string]string{"bag.json": `{"name":"sack"}`, "bad_bag.json": `{"name":5}`,
		"answer.json": `{"id":"t_1"}`, "stray.json": `{}`, "notes.txt": "not matched by the glob"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bag := Post("/v2/things/bag")
	f := &failures{}
	e.CheckGoldenRequests(f, dir, "*.json", map[string]GoldenRequest{"bag.json": bag, "bad_bag.json": bag, "gone.json": bag}, "answer.json")
	got := strings.Join(f.reported, "\n")
	for _, want := range []string{"stray.json: a golden file without an operation", "bad_bag.json: ", "gone.json: "} {
		if !strings.Contains(got, want) {
			t.Errorf("reported %q; want %q among them", f.reported, want)
		}
	}
	if len(f.reported) != 3 {
		t.Errorf("reported %d problems, want 3: %q", len(f.reported), f.reported)
	}
}
