package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// Event is one entry of the event history; Data is the resource as JSON.
type Event struct {
	Seq        int64     `db:"seq"`
	ID         string    `db:"id"`
	AccountID  string    `db:"account_id"`
	Mode       string    `db:"mode"`
	Type       string    `db:"type"`
	APIVersion string    `db:"api_version"`
	CreatedAt  time.Time `db:"created_at"`
	Data       string    `db:"data"`
}

// InsertEvent records an event.
func InsertEvent(ctx context.Context, tx *sqlx.Tx, e *Event) error {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO events (id, account_id, mode, type, api_version, created_at, data)
		VALUES (:id, :account_id, :mode, :type, :api_version, :created_at, :data)`, e)
	if err != nil {
		return err
	}
	e.Seq, err = res.LastInsertId()
	return err
}

// ListEvents pages through an account's events in one mode, newest first, optionally of one type.
func (s *Store) ListEvents(ctx context.Context, accountID, mode, eventType string, p Page) ([]Event, int64, error) {
	before, n := p.pageArgs()
	var rows []Event
	var err error
	const cols = `seq, id, account_id, mode, type, api_version, created_at, data`
	if eventType == "" {
		err = s.R.SelectContext(ctx, &rows, `SELECT `+cols+` FROM events
			WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	} else {
		err = s.R.SelectContext(ctx, &rows, `SELECT `+cols+` FROM events
			WHERE account_id = ? AND mode = ? AND type = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, eventType, before, n)
	}
	if err != nil {
		return nil, 0, err
	}
	rows, next := trimPage(rows, p.Limit, func(e Event) int64 { return e.Seq })
	return rows, next, nil
}
