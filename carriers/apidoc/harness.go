package apidoc

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// What every adapter's spec_test.go does with its documents: check the
// exchanges of its flows against its fake, and its golden requests.

// Undocumented checks by hand, for each endpoint no vendored document
// covers, what an adapter relies on; the key is the request path.
type Undocumented map[string]func(t testing.TB, x Exchange)

// CheckExchanges checks every recorded exchange against the operation it
// went to, leaving out the excused problems, or with undocumented[path]
// when no document covers its path (a path in neither fails), and returns
// the operations they went to, in order: Operation.String(), or "no
// document: METHOD PATH".
func (e *Excused) CheckExchanges(t testing.TB, exchanges []Exchange, undocumented Undocumented) []string {
	t.Helper()
	var ops []string
	for _, x := range exchanges {
		op, err := e.set.Operation(x.Request)
		if errors.Is(err, ErrUndocumented) {
			if check, ok := undocumented[x.Request.URL.Path]; ok {
				check(t, x)
				ops = append(ops, "no document: "+x.Request.Method+" "+x.Request.URL.Path)
				continue
			}
		}
		if err != nil {
			t.Errorf("%s %s: %v", x.Request.Method, x.Request.URL.Path, err)
			continue
		}
		ops = append(ops, op.String())
		if err := e.CheckRequest(x.Request, x.RequestBody); err != nil {
			t.Error(err)
		}
		if err := e.CheckResponse(x.Request, x.Status, x.Header, x.Body); err != nil {
			t.Error(err)
		}
	}
	return ops
}

// Operation is the documented operation r goes to (Set.Operation).
func (e *Excused) Operation(r *http.Request) (Operation, error) { return e.set.Operation(r) }

// GoldenRequest is where an adapter sends the request of a golden file,
// and its media type when not application/json.
type GoldenRequest struct{ Method, Path, ContentType string }

// Post is a golden request POSTed to path, most carriers' way.
func Post(path string) GoldenRequest { return GoldenRequest{Method: http.MethodPost, Path: path} }

// CheckGoldenRequests checks each golden file of sentTo, in dir, as a JSON
// body of the operation it is sent to, and that the files of dir matching
// glob are sentTo's and checkedElsewhere (a query, a body no document
// covers, a carrier's answer kept beside them), so that a new golden file
// is not left unchecked.
func (e *Excused) CheckGoldenRequests(t testing.TB, dir, glob string, sentTo map[string]GoldenRequest, checkedElsewhere ...string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if _, ok := sentTo[name]; !ok && !slices.Contains(checkedElsewhere, name) {
			t.Errorf("%s: a golden file without an operation in the test", name)
		}
	}
	for name, to := range sentTo {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err) // gone, or never written
			continue
		}
		contentType := to.ContentType
		if contentType == "" {
			contentType = "application/json"
		}
		if err := e.CheckRequestBody(to.Method, to.Path, contentType, body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
