package apidoc

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func loadThings(t *testing.T) *Set {
	t.Helper()
	s, err := Load(os.DirFS("testdata"), "things.yaml", "token.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newRequest builds a request to a fake's host: the document's servers
// name other hosts, which must not matter.
func newRequest(t *testing.T, method, path, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, "http://127.0.0.1:8080"+path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	r.Header.Set("Authorization", "Bearer not-checked")
	return r
}

func problems(t *testing.T, err error) (Operation, []Problem) {
	t.Helper()
	var me *MismatchError
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *MismatchError", err, err)
	}
	if !errors.Is(err, ErrMismatch) {
		t.Errorf("%v does not wrap ErrMismatch", err)
	}
	return me.Operation, me.Problems
}

func TestCheckRequestValid(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"name":"crate","count":2,"tags":["wood"]}`
	r := newRequest(t, http.MethodPost, "/v2/things/box?mode=fast", body)
	r.Header.Set("transId", "0123456789")
	if err := s.CheckRequest(r, []byte(body)); err != nil {
		t.Fatal(err)
	}
}

func TestCheckRequestProblems(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"count":0,"tags":["wood","plywood"]}`
	// No transId header, an undocumented mode, a kind outside the enum.
	r := newRequest(t, http.MethodPost, "/v2/things/crate?mode=warp", body)
	op, got := problems(t, s.CheckRequest(r, []byte(body)))
	wantOp := Operation{Document: "things.yaml", Method: "POST", Path: "/things/{kind}", ID: "CreateThing"}
	if diff := cmp.Diff(wantOp, op); diff != "" {
		t.Errorf("operation (-want +got):\n%s", diff)
	}
	want := []Problem{
		{In: "path", Name: "kind", Reason: `value is not one of the allowed values ["box","bag"] (got "crate")`},
		{In: "query", Name: "mode", Reason: `value is not one of the allowed values ["fast","slow"] (got "warp")`},
		{In: "header", Name: "transId", Reason: "value is required but missing"},
		{In: "body", Pointer: "/count", Reason: "number must be at least 1 (got 0)"},
		{In: "body", Pointer: "/name", Reason: `property "name" is missing`},
		{In: "body", Pointer: "/tags/1", Reason: `maximum string length is 5 (got "plywood")`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// The error names the operation and each problem's JSON path, one a line.
func TestMismatchErrorText(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"name":""}`
	r := newRequest(t, http.MethodPost, "/v2/things/box", body)
	r.Header.Set("transId", "1")
	err := s.CheckRequest(r, []byte(body))
	want := "request of things.yaml POST /things/{kind} (CreateThing) does not match the document:\n" +
		"\tbody /name: minimum string length is 1 (got \"\")"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	tests := []struct {
		name, method, path string
		want               string // operationId; empty for ErrUndocumented
	}{
		{"server path mapped", "POST", "/v2/things/box", "CreateThing"},
		{"no server path", "POST", "/things/box", ""},
		{"document without servers", "POST", "/oauth/token", "Token"},
		{"literal beats parameter", "DELETE", "/v2/things/box/cancel", "CancelThings"},
		{"parameter", "DELETE", "/v2/things/box/42", "DeleteThing"},
		{"escaped slash stays in one segment", "DELETE", "/v2/things/box/4%2F2", "DeleteThing"},
		{"method not documented", "GET", "/v2/things/box", ""},
		{"path not documented", "POST", "/v2/widgets", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRequest(t, tt.method, tt.path, "")
			u := r.URL
			rt, _, err := s.find(tt.method, u)
			if tt.want == "" {
				if !errors.Is(err, ErrUndocumented) {
					t.Fatalf("find: %v, want ErrUndocumented", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rt.kin.Operation.OperationID; got != tt.want {
				t.Errorf("matched %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRoutingPathParameters(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	r := newRequest(t, http.MethodDelete, "/v2/things/box/4%2F2", "")
	_, params, err := s.find(r.Method, r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"kind": "box", "id": "4/2"}, params); diff != "" {
		t.Errorf("path parameters (-want +got):\n%s", diff)
	}
	// The unescaped id breaks the documented pattern.
	_, got := problems(t, s.CheckRequest(r, nil))
	want := []Problem{{In: "path", Name: "id", Reason: `string doesn't match the regular expression "^[0-9]+$" (got "4/2")`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// A request to UPS-style duplicated operations goes to the current one, so
// its body is held to the current schema.
func TestDeprecatedDuplicateLoses(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"legacyName":"x"}`
	r := newRequest(t, http.MethodPost, "/v2/things/box", body)
	r.Header.Set("transId", "1")
	op, got := problems(t, s.CheckRequest(r, []byte(body)))
	if op.ID != "CreateThing" {
		t.Errorf("checked against %s, want CreateThing", op)
	}
	want := []Problem{{In: "body", Pointer: "/name", Reason: `property "name" is missing`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// Of oneOf's alternatives, the problems of the one the value was meant to
// be are reported, at their full paths, through allOf.
func TestCheckRequestOneOf(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"Batch":{"name":"","size":11}}`
	r := newRequest(t, http.MethodPost, "/v2/batches", body)
	_, got := problems(t, s.CheckRequest(r, []byte(body)))
	const closest = ` (in the closest of 2 "oneOf" alternatives)`
	want := []Problem{
		{In: "body", Pointer: "/Batch/name", Reason: `minimum string length is 1 (got "")` + closest},
		{In: "body", Pointer: "/Batch/size", Reason: "number must be at most 10 (got 11)" + closest},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	for _, ok := range []string{`{"Batch":{"name":"a","size":3}}`, `{"Trigger":"now"}`} {
		if err := s.CheckRequest(newRequest(t, http.MethodPost, "/v2/batches", ok), []byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A oneOf whose other alternatives are empty (FedEx's rate body) holds the
// body to the one with constraints.
func TestEmptyOneOfAlternativesDropped(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	ok := `{"name":"crate"}`
	if err := s.CheckRequest(newRequest(t, http.MethodPost, "/v2/quotes", ok), []byte(ok)); err != nil {
		t.Fatal(err)
	}
	bad := `{"count":0}`
	_, got := problems(t, s.CheckRequest(newRequest(t, http.MethodPost, "/v2/quotes", bad), []byte(bad)))
	want := []Problem{
		{In: "body", Pointer: "/count", Reason: "number must be at least 1 (got 0)"},
		{In: "body", Pointer: "/name", Reason: `property "name" is missing`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// A composed object closed beside its allOf (USPS's labels) accepts what
// its parts declare and still refuses what none does.
func TestClosedAllOfComposed(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	ok := `{"name":"crate","count":1,"weight":2.5}`
	if err := s.CheckRequest(newRequest(t, http.MethodPost, "/v2/parcels", ok), []byte(ok)); err != nil {
		t.Fatal(err)
	}
	bad := `{"name":"crate","weight":2.5,"colour":"red"}`
	_, got := problems(t, s.CheckRequest(newRequest(t, http.MethodPost, "/v2/parcels", bad), []byte(bad)))
	want := []Problem{{In: "body", Reason: `property "colour" is unsupported`}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestCheckRequestUndocumentedBody(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"why":"not"}`
	r := newRequest(t, http.MethodDelete, "/v2/things/box/42", body)
	_, got := problems(t, s.CheckRequest(r, []byte(body)))
	want := []Problem{{In: "body", Reason: "request body not allowed for this request"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestCheckRequestForm(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	for body, wantOK := range map[string]bool{"grant_type=client_credentials": true, "grant_type=password": false} {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/oauth/token", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		err := s.CheckRequest(r, []byte(body))
		if (err == nil) != wantOK {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	r := newRequest(t, http.MethodPost, "/v2/things/box", "")
	jsonHeader := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   []Problem
	}{
		{name: "documented", status: 200, header: jsonHeader, body: `{"id":"t_1"}`},
		{name: "documented error", status: 400, header: jsonHeader, body: `{"errors":[{"code":"E1"}]}`},
		{name: "missing property", status: 200, header: jsonHeader, body: `{"ID":"t_1"}`,
			want: []Problem{{In: "body", Pointer: "/id", Reason: `property "id" is missing`}}},
		{name: "wrong type deep", status: 400, header: jsonHeader, body: `{"errors":[{"code":7}]}`,
			want: []Problem{{In: "body", Pointer: "/errors/0/code", Reason: "value must be a string (got 7)"}}},
		{name: "undocumented status", status: 418, header: jsonHeader, body: `{}`,
			want: []Problem{{In: "status", Reason: "the status is not documented for this operation"}}},
		{name: "undocumented content type", status: 200, header: http.Header{"Content-Type": {"text/html"}}, body: `<p>`,
			want: []Problem{{In: "header", Name: "Content-Type", Reason: `response header Content-Type has unexpected value: "text/html"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.CheckResponse(r, tt.status, tt.header, []byte(tt.body))
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			op, got := problems(t, err)
			if op.ID != "CreateThing" {
				t.Errorf("operation %s", op)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRequestBody(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	if err := s.CheckRequestBody("POST", "/v2/things/bag", "application/json", []byte(`{"name":"sack"}`)); err != nil {
		t.Fatal(err)
	}
	_, got := problems(t, s.CheckRequestBody("POST", "/v2/things/bag", "application/json", []byte(`{"name":5}`)))
	want := []Problem{{In: "body", Pointer: "/name", Reason: "value must be a string (got 5)"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if _, got := problems(t, s.CheckRequestBody("DELETE", "/v2/things/bag/1", "application/json", []byte(`{}`))); len(got) != 1 {
		t.Errorf("a body for an operation without one: %v", got)
	}
	if err := s.CheckRequestBody("POST", "/v3/things/bag", "application/json", nil); !errors.Is(err, ErrUndocumented) {
		t.Errorf("undocumented path: %v", err)
	}
}

func TestExcept(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	body := `{"count":0}`
	r := newRequest(t, http.MethodPost, "/v2/things/box", body)
	r.Header.Set("transId", "1")
	err := s.CheckRequest(r, []byte(body))
	missingName := func(op Operation, p Problem) bool { return op.ID == "CreateThing" && p.Pointer == "/name" }
	_, left := problems(t, Except(err, missingName))
	if diff := cmp.Diff([]Problem{{In: "body", Pointer: "/count", Reason: "number must be at least 1 (got 0)"}}, left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if err := Except(err, func(Operation, Problem) bool { return true }); err != nil {
		t.Errorf("all excused: %v", err)
	}
	excused := Excusing(Exception{Document: "things.yaml", Path: "/things/{kind}", In: "body", Pointer: "/count", Reason: "number must be at least"})
	_, left = problems(t, Except(err, excused))
	if diff := cmp.Diff([]Problem{{In: "body", Pointer: "/name", Reason: `property "name" is missing`}}, left); diff != "" {
		t.Errorf("left by an Exception (-want +got):\n%s", diff)
	}
	other := errors.New("transport")
	if got := Except(other, missingName); got != other {
		t.Errorf("Except changed a foreign error: %v", got)
	}
}

func TestExceptionPointer(t *testing.T) {
	t.Parallel()
	e := Exception{Document: "d", Path: "/p", In: "body", Pointer: "/a/*/b", Reason: "bad"}
	op := Operation{Document: "d", Path: "/p"}
	for pointer, want := range map[string]bool{"/a/0/b": true, "/a/12/b": true, "/a/x/b": false, "/a/0/c": false, "/a/0/b/c": false} {
		if got := e.Excuses(op, Problem{In: "body", Pointer: pointer, Reason: "bad thing"}); got != want {
			t.Errorf("%s: excused %v, want %v", pointer, got, want)
		}
	}
	if e.Excuses(Operation{Document: "other", Path: "/p"}, Problem{In: "body", Pointer: "/a/0/b", Reason: "bad"}) {
		t.Error("excused in another document")
	}
}

func TestRecorder(t *testing.T) {
	t.Parallel()
	s := loadThings(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("transId") == "" {
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write([]byte(`{}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":"t_1"}`))
	}))
	t.Cleanup(srv.Close)
	rec := &Recorder{Next: srv.Client().Transport}
	client := &http.Client{Transport: rec}

	send := func(transID string) string {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v2/things/box", strings.NewReader(`{"name":"crate"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if transID != "" {
			req.Header.Set("transId", transID)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := send("1"); got != `{"id":"t_1"}` {
		t.Errorf("the caller read %q", got)
	}
	send("")
	x := rec.Exchanges()
	if len(x) != 2 {
		t.Fatalf("%d exchanges recorded", len(x))
	}
	if string(x[0].RequestBody) != `{"name":"crate"}` || x[0].Status != 200 || string(x[0].Body) != `{"id":"t_1"}` {
		t.Errorf("first exchange: %+v", x[0])
	}
	if err := s.CheckExchange(x[0]); err != nil {
		t.Errorf("first exchange: %v", err)
	}
	err := s.CheckExchange(x[1])
	for _, want := range []string{`header "transId": value is required but missing`, "answer 418 of things.yaml", "status: the status is not documented"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("second exchange: %v, want it to say %q", err, want)
		}
	}
	rec.Reset()
	if n := len(rec.Exchanges()); n != 0 {
		t.Errorf("%d exchanges after Reset", n)
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	fsys := os.DirFS("testdata")
	for _, names := range [][]string{nil, {"missing.yaml"}, {"swagger.json"}} {
		if _, err := Load(fsys, names...); !errors.Is(err, ErrDocument) {
			t.Errorf("Load(%q): %v, want ErrDocument", names, err)
		}
	}
}
