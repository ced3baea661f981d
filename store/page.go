package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/shipd-dev/shipd/paging"
)

// pageArgs resolves a page request: the seq bound (rows older than it) and the
// number of rows to fetch, one more than the limit, so the caller knows
// whether another page follows without a count. seqQuery finds the cursor's
// row among the rows of the same list only (its scope: account and mode, or
// account and subscription), taking the row id and then scopeArgs: a cursor
// naming a row of another list, another account or another mode is
// paging.ErrInvalidCursor.
func (r reader) pageArgs(ctx context.Context, p paging.Request, seqQuery string, scopeArgs ...any) (int64, int, error) {
	if p.After == "" {
		return 1<<63 - 1, p.Limit + 1, nil
	}
	var seq int64
	err := r.get(ctx, &seq, seqQuery, append([]any{p.After}, scopeArgs...)...)
	if errors.Is(err, ErrNotFound) {
		return 0, 0, paging.ErrInvalidCursor
	}
	if err != nil {
		return 0, 0, fmt.Errorf("cursor: %w", err)
	}
	return seq, p.Limit + 1, nil
}

// trimPage cuts the extra row fetched by pageArgs and says whether more follow.
func trimPage[T any](rows []T, limit int) ([]T, bool) {
	if len(rows) <= limit {
		return rows, false
	}
	return rows[:limit], true
}
