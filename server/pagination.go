package server

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/oapi-codegen/nullable"

	"github.com/shipd-dev/shipd/store"
)

const defaultPageSize = 25

// Cursors are opaque to clients: "v1:<seq>" in base64url. The version lets the
// encoding change without breaking cursors clients hold.
func encodeCursor(seq int64) nullable.Nullable[string] {
	if seq == 0 {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(base64.RawURLEncoding.EncodeToString([]byte("v1:" + strconv.FormatInt(seq, 10))))
}

func decodeCursor(c *string) (int64, bool) {
	if c == nil || *c == "" {
		return 0, true
	}
	raw, err := base64.RawURLEncoding.DecodeString(*c)
	if err != nil {
		return 0, false
	}
	n, ok := strings.CutPrefix(string(raw), "v1:")
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseInt(n, 10, 64)
	if err != nil || seq <= 0 {
		return 0, false
	}
	return seq, true
}

// pageOf reads the list parameters; the contract has already checked limit's range.
func pageOf(cursor *string, limit *int) (store.Page, *apiError) {
	seq, ok := decodeCursor(cursor)
	if !ok {
		return store.Page{}, newAPIError(http.StatusUnprocessableEntity, "invalid_field", "cursor is not a cursor this API returned").withField("cursor")
	}
	p := store.Page{Before: seq, Limit: defaultPageSize}
	if limit != nil {
		p.Limit = *limit
	}
	return p, nil
}
