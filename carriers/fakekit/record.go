package fakekit

import (
	"net/http"
)

// opCalls is what the recorder keeps of one operation's calls.
type opCalls struct {
	count   int
	body    []byte
	header  http.Header
	callers []string
}

// calls returns op's record, creating it; call with k.mu held.
func (k *Server) opCalls(op string) *opCalls {
	c := k.calls[op]
	if c == nil {
		c = &opCalls{}
		k.calls[op] = c
	}
	return c
}

// record counts a call of op and keeps its body and header. A GET has no
// body: its query is what it asks, so the query is kept instead.
func (k *Server) record(op string, r *http.Request, body []byte) {
	if r.Method == http.MethodGet {
		body = []byte(r.URL.RawQuery)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.opCalls(op)
	c.count++
	c.body = body
	c.header = r.Header.Clone()
}

// addCaller notes the client id that made a call of op.
func (k *Server) addCaller(op, clientID string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := k.opCalls(op)
	c.callers = append(c.callers, clientID)
}

// Requests counts the calls of op, refused ones included; a call whose
// body could not be read is not counted.
func (k *Server) Requests(op string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.opCalls(op).count
}

// TokenRequests counts the calls of the token endpoint.
func (k *Server) TokenRequests() int { return k.Requests(OpToken) }

// LastRequest is the body of op's latest call (for a GET, its query); nil
// before the first.
func (k *Server) LastRequest(op string) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]byte(nil), k.opCalls(op).body...)
}

// LastHeader is the header of op's latest call; nil before the first.
func (k *Server) LastHeader(op string) http.Header {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.opCalls(op).header.Clone()
}

// Callers are the client ids that called op, in order: for the token
// endpoint, the id each request presented, known or not; for an
// operation, the client whose valid token each call carried.
func (k *Server) Callers(op string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.opCalls(op).callers...)
}
