package uspsfake

// HoldSCANForms makes every SCAN form answer from now on wait until
// ReleaseSCANForms: the form is made (SCANForm reports each label on it)
// when the request arrives, only the answer is held, as when the client
// dies mid-call. A held answer is dropped when the client goes away.
func (s *Server) HoldSCANForms() { s.Hold(OpSCANForm) }

// ReleaseSCANForms sends the held SCAN form answers and stops holding.
func (s *Server) ReleaseSCANForms() { s.Release(OpSCANForm) }
