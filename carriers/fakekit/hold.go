package fakekit

import "context"

// Hold makes op's answers wait from now on until Release: the call is
// served (a label is sold when the request arrives) and only its answer is
// held, as when the connection dies or the client is killed mid-call. A
// held answer is dropped when the client goes away. Faults are not held.
func (k *Server) Hold(op string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.holds[op] == nil {
		k.holds[op] = make(chan struct{})
	}
}

// Release sends op's held answers and stops holding them.
func (k *Server) Release(op string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if ch := k.holds[op]; ch != nil {
		close(ch)
		delete(k.holds, op)
	}
}

// Held counts op's answers waiting for Release: a test sees the call
// arrive before it releases (or kills the client).
func (k *Server) Held(op string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.held[op]
}

// waitHold keeps the answer of a call of op while op is held.
func (k *Server) waitHold(ctx context.Context, op string) {
	k.mu.Lock()
	hold := k.holds[op]
	if hold != nil {
		k.held[op]++
	}
	k.mu.Unlock()
	if hold == nil {
		return
	}
	defer func() {
		k.mu.Lock()
		k.held[op]--
		k.mu.Unlock()
	}()
	select {
	case <-hold:
	case <-ctx.Done():
	case <-k.closing:
	}
}
