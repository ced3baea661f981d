package uspsfake

import "net/http"

// HoldSCANForms makes every SCAN form answer from now on wait until
// ReleaseSCANForms: the form is made (SCANForm reports each label on it)
// when the request arrives, only the answer is held, as when the client
// dies mid-call. A held answer is dropped when the client goes away.
func (s *Server) HoldSCANForms() {
	s.mu.Lock()
	if s.formHold == nil {
		s.formHold = make(chan struct{})
	}
	s.mu.Unlock()
}

// ReleaseSCANForms sends the held SCAN form answers and stops holding.
func (s *Server) ReleaseSCANForms() {
	s.mu.Lock()
	if s.formHold != nil {
		close(s.formHold)
		s.formHold = nil
	}
	s.mu.Unlock()
}

func (s *Server) waitSCANFormHold(r *http.Request) {
	s.mu.Lock()
	hold := s.formHold
	s.mu.Unlock()
	if hold == nil {
		return
	}
	select {
	case <-hold:
	case <-r.Context().Done():
	}
}
