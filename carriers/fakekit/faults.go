package fakekit

import (
	"net/http"
	"strconv"
)

// Fault is an answer the fake gives instead of the real one.
type Fault struct {
	Status int
	// Body is sent as is; ContentType defaults to application/json.
	Body        string
	ContentType string
	// Header is added to the answer; RetryAfter, when set, is its
	// Retry-After.
	Header     http.Header
	RetryAfter string
	// Truncate declares a longer body than it sends and drops the
	// connection, so that the client reads a cut-off answer.
	Truncate bool
	// Hang sends nothing: the call waits until the client gives up or the
	// server closes, then the connection is dropped.
	Hang bool
}

// Fail makes the next call of op answer f; faults queued for an operation
// answer its calls in order, one each. Whether a call must carry a valid
// token to take one is Config.FaultsBeforeAuth's say.
func (k *Server) Fail(op string, f Fault) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.faults[op] = append(k.faults[op], f)
}

// FailNext makes the next call of op answer status with body. A 429 or 503
// gets "Retry-After: 7", as a carrier that is rate limiting or down says.
func (k *Server) FailNext(op string, status int, body string) {
	f := Fault{Status: status, Body: body}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		f.RetryAfter = "7"
	}
	k.Fail(op, f)
}

// FailClient makes every call of the client answer f from now on: its token
// requests and the calls made with a token it already holds. It is a
// carrier down for that customer only, so that concurrent tests do not take
// each other's faults.
func (k *Server) FailClient(clientID string, f Fault) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.clientFaults[clientID] = f
}

// nextFault is the fault that answers a call of op by clientID ("" when
// unknown): the client's first, then, when queued, op's next one.
func (k *Server) nextFault(op, clientID string, queued bool) (Fault, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if f, ok := k.clientFaults[clientID]; ok && clientID != "" {
		return f, true
	}
	q := k.faults[op]
	if !queued || len(q) == 0 {
		return Fault{}, false
	}
	k.faults[op] = q[1:]
	return q[0], true
}

// answerFault answers the call with its fault, if it has one.
func (k *Server) answerFault(r *http.Request, op, clientID string, queued bool) bool {
	f, ok := k.nextFault(op, clientID, queued)
	if !ok {
		return false
	}
	x := exchangeOf(r)
	x.faulted = true
	k.writeFault(x.raw, r, f)
	return true
}

func (k *Server) writeFault(w http.ResponseWriter, r *http.Request, f Fault) {
	if f.Hang {
		select {
		case <-r.Context().Done():
		case <-k.closing:
		}
		panic(http.ErrAbortHandler) // drops the connection without an answer
	}
	for name, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(name, v)
		}
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if !f.Truncate {
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)+512))
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		_ = conn.Close() // the body stops short of its declared length
	}
}
