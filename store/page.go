package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/shipd-dev/shipd/paging"
)

// listing names a paginated list, for turning a cursor back into a position.
type listing int

const (
	listingAddresses listing = iota
	listingSubscriptions
	listingShipments
	listingEvents
	listingDeliveries
)

// seqQueries find a row's position in its list, only among the account's own
// rows: a cursor naming another account's row is no cursor at all.
var seqQueries = map[listing]string{
	listingAddresses:     `SELECT seq FROM addresses WHERE id = ? AND account_id = ?`,
	listingSubscriptions: `SELECT seq FROM webhook_subscriptions WHERE id = ? AND account_id = ?`,
	listingShipments:     `SELECT seq FROM shipments WHERE id = ? AND account_id = ?`,
	listingEvents:        `SELECT seq FROM events WHERE id = ? AND account_id = ?`,
	listingDeliveries:    `SELECT seq FROM webhook_deliveries WHERE id = ? AND account_id = ?`,
}

// pageArgs resolves a page request: the seq bound (rows older than it) and the
// number of rows to fetch, one more than the limit, so the caller knows
// whether another page follows without a count. A cursor naming no row of
// the account's list is paging.ErrInvalidCursor.
func (r reader) pageArgs(ctx context.Context, l listing, accountID string, p paging.Request) (int64, int, error) {
	if p.After == "" {
		return 1<<63 - 1, p.Limit + 1, nil
	}
	var seq int64
	err := r.get(ctx, &seq, seqQueries[l], p.After, accountID)
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
