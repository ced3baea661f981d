package server

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/store"
)

const defaultPageSize = 25

// A cursor is "v1:" and the id of the last item of the page, base64url
// encoded: opaque to clients, and, unlike a row counter, telling nothing about
// how many rows other accounts have. The version lets the encoding change
// without breaking cursors clients hold.
func nextCursor[T any](rows []T, next int64, id func(T) string) nullable.Nullable[string] {
	if next == 0 || len(rows) == 0 {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(base64.RawURLEncoding.EncodeToString([]byte("v1:" + id(rows[len(rows)-1]))))
}

// pageOf reads the list parameters; the contract has already checked limit's range.
func (s *Server) pageOf(ctx context.Context, l store.Listing, cursor *string, limit *int) (store.Page, *apiError, error) {
	p := store.Page{Limit: defaultPageSize}
	if limit != nil {
		p.Limit = *limit
	}
	if cursor == nil || *cursor == "" {
		return p, nil, nil
	}
	invalid := newAPIError(http.StatusUnprocessableEntity, "invalid_field", "cursor is not a cursor of this list").withField("cursor")
	raw, err := base64.RawURLEncoding.DecodeString(*cursor)
	if err != nil {
		return p, invalid, nil
	}
	id, ok := strings.CutPrefix(string(raw), "v1:")
	if !ok || id == "" {
		return p, invalid, nil
	}
	seq, err := s.store.SeqOf(ctx, l, principalFrom(ctx).AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return p, invalid, nil
	}
	if err != nil {
		return p, nil, err
	}
	p.Before = seq
	return p, nil, nil
}
