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

// modePage reads a page of an account's rows of one mode from table, newest
// first; also narrows them further (a constant condition such as
// "deleted_at IS NULL", "" for none). table, columns and also are the
// store's own text, never a caller's: every value is a parameter.
func modePage[T any](ctx context.Context, r reader, p paging.Request, table, columns, also, accountID, mode string) ([]T, bool, error) {
	before, n, err := r.pageArgs(ctx, p, `SELECT seq FROM `+table+` WHERE id = ? AND account_id = ? AND mode = ?`, accountID, mode)
	if err != nil {
		return nil, false, err
	}
	if also != "" {
		also += " AND "
	}
	var rows []T
	if err := r.sel(ctx, &rows, `SELECT `+columns+` FROM `+table+`
		WHERE account_id = ? AND mode = ? AND `+also+`seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n); err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, p.Limit)
	return rows, more, nil
}
