package store

import (
	"crypto/rand"
	"encoding/hex"
)

// NewID returns prefix_ followed by 24 random hex characters. IDs are random so
// that they reveal neither volume nor order; ordering uses the seq column.
func NewID(prefix string) string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // the OS has no entropy source left; nothing sane to do
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}
