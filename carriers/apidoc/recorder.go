package apidoc

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"sync"
)

// Exchange is one request an adapter sent and the answer it got.
type Exchange struct {
	// Request is the request as sent; its body is RequestBody.
	Request     *http.Request
	RequestBody []byte
	Status      int
	Header      http.Header
	Body        []byte
}

// Recorder is an http.RoundTripper that keeps a copy of every exchange
// through Next, for a test to check each against a Set once the adapter
// call returns. Transport errors pass through unrecorded.
type Recorder struct {
	Next http.RoundTripper

	mu        sync.Mutex
	exchanges []Exchange
}

// RoundTrip sends req through Next and records the exchange.
func (rec *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		var err error
		reqBody, err = io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	sent := req.Clone(req.Context())
	sent.Body = io.NopCloser(bytes.NewReader(reqBody))
	res, err := rec.Next.RoundTrip(sent)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		// The answer was cut off: the adapter sees the same error.
		res.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		return res, nil
	}
	kept := req.Clone(req.Context())
	kept.Body = nil
	rec.mu.Lock()
	rec.exchanges = append(rec.exchanges, Exchange{
		Request: kept, RequestBody: reqBody, Status: res.StatusCode, Header: res.Header.Clone(), Body: body,
	})
	rec.mu.Unlock()
	return res, nil
}

// Exchanges returns the exchanges recorded so far, in the order sent.
func (rec *Recorder) Exchanges() []Exchange {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Exchange(nil), rec.exchanges...)
}

// Reset forgets the exchanges recorded so far.
func (rec *Recorder) Reset() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.exchanges = nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// CheckExchange checks both halves of x: the request, then the answer.
func (s *Set) CheckExchange(x Exchange) error {
	return errors.Join(s.CheckRequest(x.Request, x.RequestBody), s.CheckResponse(x.Request, x.Status, x.Header, x.Body))
}
