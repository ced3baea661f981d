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

// Page asks for the rows older than Before (0: from the newest), at most Limit.
type Page struct {
	Before int64
	Limit  int
}

// pageArgs returns the seq bound and the number of rows to fetch: one more than
// the limit, so the caller knows whether another page follows without a count.
func (p Page) pageArgs() (int64, int) {
	before := p.Before
	if before <= 0 {
		before = 1<<63 - 1
	}
	return before, p.Limit + 1
}

// trimPage cuts the extra row fetched by pageArgs and returns the seq to resume from (0: last page).
func trimPage[T any](rows []T, limit int, seq func(T) int64) ([]T, int64) {
	if len(rows) <= limit {
		return rows, 0
	}
	rows = rows[:limit]
	return rows, seq(rows[len(rows)-1])
}
