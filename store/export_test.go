package store

// WaitSwept waits until the sweep of stale temporary files that OpenBlobs
// started on a file:// store has ended.
func (b *Blobs) WaitSwept() {
	if b.swept != nil {
		<-b.swept
	}
}

// StaleTempAge is staleTempAge, for tests.
const StaleTempAge = staleTempAge
