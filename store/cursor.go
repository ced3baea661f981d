package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// Listing names a paginated list, for turning a cursor back into a position.
type Listing int

// The paginated lists.
const (
	ListingAddresses Listing = iota
	ListingSubscriptions
	ListingShipments
	ListingEvents
	ListingDeliveries
)

// seqQueries find a row's position in its list, only among the account's own
// rows: a cursor naming another account's row is no cursor at all.
var seqQueries = map[Listing]string{
	ListingAddresses:     `SELECT seq FROM addresses WHERE id = ? AND account_id = ?`,
	ListingSubscriptions: `SELECT seq FROM webhook_subscriptions WHERE id = ? AND account_id = ?`,
	ListingShipments:     `SELECT seq FROM shipments WHERE id = ? AND account_id = ?`,
	ListingEvents:        `SELECT seq FROM events WHERE id = ? AND account_id = ?`,
	ListingDeliveries:    `SELECT seq FROM webhook_deliveries WHERE id = ? AND account_id = ?`,
}

// SeqOf returns the position of row id in a list of the account; ErrNotFound when it has none.
func (s *Store) SeqOf(ctx context.Context, l Listing, accountID, id string) (int64, error) {
	q, ok := seqQueries[l]
	if !ok {
		return 0, fmt.Errorf("listing %d: unknown", l)
	}
	var seq int64
	err := sqlx.GetContext(ctx, s.R, &seq, q, id, accountID)
	return seq, notFound(err)
}
