// Package paging is shipd's cursor pagination: the opaque cursors clients
// hold and the page requests the lists take. A cursor is "v1:" and the id of
// the last item of the page, base64url encoded: opaque to clients, and, unlike
// a row counter, telling nothing about how many rows other accounts have. The
// version lets the encoding change without breaking cursors clients hold.
package paging

import (
	"encoding/base64"
	"errors"
	"strings"
)

// DefaultLimit is the page size when the client gives none.
const DefaultLimit = 25

// ErrInvalidCursor: the cursor is not one of this list's, for this caller.
var ErrInvalidCursor = errors.New("cursor is not a cursor of this list")

// Request asks for the items after the item with id After (newest first), at
// most Limit; After is "" for the first page.
type Request struct {
	After string
	Limit int
}

// Decode reads a client's cursor and limit (nil: the defaults). A cursor that
// does not decode is ErrInvalidCursor; one that decodes but names no item of
// the list is found out by the list itself.
func Decode(cursor *string, limit *int) (Request, error) {
	r := Request{Limit: DefaultLimit}
	if limit != nil {
		r.Limit = *limit
	}
	if cursor == nil || *cursor == "" {
		return r, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(*cursor)
	if err != nil {
		return r, ErrInvalidCursor
	}
	id, ok := strings.CutPrefix(string(raw), "v1:")
	if !ok || id == "" {
		return r, ErrInvalidCursor
	}
	r.After = id
	return r, nil
}

// Encode is the cursor of the page after the item with id lastID.
func Encode(lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1:" + lastID))
}
