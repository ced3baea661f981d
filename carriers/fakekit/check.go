package fakekit

import (
	"fmt"
	"net/http"
)

// Checker checks an exchange against what the carrier publishes: the
// request a client sent, and the answer the fake gave.
// (carriers/apidoc's *Set checks against the vendored API documents.)
type Checker interface {
	CheckRequest(r *http.Request, body []byte) error
	CheckResponse(r *http.Request, status int, header http.Header, body []byte) error
}

// SetChecker checks every request the server gets and every answer it
// gives from now on, but for the answers of injected faults, which are
// meant to break the documents; nil stops checking. A request whose body
// cannot be read is not checked, its answer is. A failed check is reported
// to the test the server was started with, and kept for CheckFailures.
func (k *Server) SetChecker(c Checker) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.checker = c
}

// CheckFailures are the checks that failed so far, in order.
func (k *Server) CheckFailures() []error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]error(nil), k.checkFailures...)
}

// report keeps a failed check of what ("request" or "answer") of r.
func (k *Server) report(r *http.Request, what string, err error) {
	if err == nil {
		return
	}
	err = fmt.Errorf("%s of %s %s: %w", what, r.Method, r.URL.Path, err)
	k.mu.Lock()
	k.checkFailures = append(k.checkFailures, err)
	k.mu.Unlock()
	if k.tb != nil {
		k.tb.Errorf("fakekit: %v", err)
	}
}
