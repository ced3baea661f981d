package store

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// sqliteConnector opens SQLite connections without registering a driver
// (sql.Register is global state). With detached set, the connections run
// every statement without its caller's cancellation: go-sqlite3 answers a
// cancelled context with sqlite3_interrupt, and an INSERT, UPDATE or DELETE
// interrupted inside an explicit transaction rolls the whole transaction
// back. The writer's transactions hold the work of several callers (see
// batch.go), so one client hanging up must not undo the others'. A
// statement is short; the caller still sees its cancellation between
// statements, from database/sql.
type sqliteConnector struct {
	dsn      string
	detached bool
	// pragmas run on each new connection.
	pragmas string
	driver  sqlite3.SQLiteDriver
}

func (c *sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*sqlite3.SQLiteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite: unexpected connection type %T", conn)
	}
	if c.pragmas != "" {
		if _, err := sc.Exec(c.pragmas, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("sqlite: %s: %w", c.pragmas, err)
		}
	}
	if !c.detached {
		return sc, nil
	}
	return detachedConn{sc}, nil
}

func (c *sqliteConnector) Driver() driver.Driver { return &c.driver }

// detachedConn is a SQLite connection whose statements ignore cancellation.
type detachedConn struct{ *sqlite3.SQLiteConn }

func (c detachedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.SQLiteConn.ExecContext(context.WithoutCancel(ctx), query, args)
}

func (c detachedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.SQLiteConn.QueryContext(context.WithoutCancel(ctx), query, args)
}

func (c detachedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.SQLiteConn.BeginTx(context.WithoutCancel(ctx), opts)
}

func (c detachedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.SQLiteConn.PrepareContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil, err
	}
	if ss, ok := st.(*sqlite3.SQLiteStmt); ok {
		return detachedStmt{ss}, nil
	}
	return st, nil
}

// detachedStmt is a prepared statement of a detachedConn.
type detachedStmt struct{ *sqlite3.SQLiteStmt }

func (s detachedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.SQLiteStmt.ExecContext(context.WithoutCancel(ctx), args)
}

func (s detachedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.SQLiteStmt.QueryContext(context.WithoutCancel(ctx), args)
}
