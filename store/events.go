package store

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
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

const eventColumns = `seq, id, account_id, mode, type, api_version, created_at, data`

// InsertEvent records an event.
func (t *Tx) InsertEvent(ctx context.Context, e *Event) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO events (id, account_id, mode, type, api_version, created_at, data)
		VALUES (:id, :account_id, :mode, :type, :api_version, :created_at, :data) RETURNING seq`, e)
	e.Seq = seq
	return err
}

// EventByID reads one event by id.
func (r reader) EventByID(ctx context.Context, id string) (Event, error) {
	var e Event
	err := r.get(ctx, &e, `SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	return e, err
}

// ListEvents pages through an account's events in one mode, newest first, optionally of one type.
func (r reader) ListEvents(ctx context.Context, accountID, mode, eventType string, p paging.Request) ([]Event, bool, error) {
	before, n, err := r.pageArgs(ctx, p, `SELECT seq FROM events WHERE id = ? AND account_id = ? AND mode = ?`, accountID, mode)
	if err != nil {
		return nil, false, err
	}
	var rows []Event
	if eventType == "" {
		err = r.sel(ctx, &rows, `SELECT `+eventColumns+` FROM events
			WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	} else {
		err = r.sel(ctx, &rows, `SELECT `+eventColumns+` FROM events
			WHERE account_id = ? AND mode = ? AND type = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, eventType, before, n)
	}
	if err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, p.Limit)
	return rows, more, nil
}
