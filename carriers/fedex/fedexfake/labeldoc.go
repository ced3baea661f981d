package fedexfake

// SetLabelDocument makes every later ship answer carry doc, as is, as each
// package's label (encodedLabel, base64), whatever imageType was asked: the
// label is sold as usual (Sales lists it) with a document that is no label,
// such as a decompression bomb, a damaged PDF, an image, or one so large
// that the answer passes what a client reads. nil draws labels again.
func (s *Server) SetLabelDocument(doc []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.labelDocument = doc
}

func (s *Server) givenLabelDocument() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labelDocument
}
