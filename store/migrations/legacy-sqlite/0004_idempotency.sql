-- Idempotency keys of create requests (POST /labels/create, /labels/{id}/refund,
-- /webhooks, /addresses). The UNIQUE constraint is the lock: a request inserts an
-- in_progress row first, and a concurrent request with the same scope loses on the
-- constraint, then waits for the row to become done (or disappear) and replays it.
-- endpoint is the method and the concrete path ("POST /api/v1/labels/shp_x/refund").
-- request_hash is the SHA-256 of the canonical JSON body. owner is the request id
-- that holds an in_progress row, so only that request completes or releases it.
-- Times are unix nanoseconds (exact, indexable comparisons against Config.Now).
CREATE TABLE idempotency_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    endpoint     TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash BLOB NOT NULL,
    owner        TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
    status       INTEGER NOT NULL DEFAULT 0,
    content_type TEXT NOT NULL DEFAULT '',
    body         BLOB,
    created_at   INTEGER NOT NULL,
    completed_at INTEGER,
    UNIQUE (account_id, mode, endpoint, key)
);
-- The purge job deletes by age.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
