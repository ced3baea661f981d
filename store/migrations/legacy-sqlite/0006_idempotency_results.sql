-- Idempotency keys record, in the transaction that creates the resource, the
-- sealed (encrypted) result the request answered with, so that every retry of
-- a committed request replays it whatever crashed when, and no secret (a
-- webhook signing secret) is stored in clear. fingerprint binds the key to the
-- first request's body from the moment it is claimed. created_at (unix ns)
-- starts the 7-day retention; claimed_at is when the current owner took the
-- key, after which an in-progress key counts as abandoned.
-- Keys stored by the earlier layout (whole HTTP responses) are dropped.
DROP TABLE idempotency_keys;
CREATE TABLE idempotency_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    endpoint     TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  BLOB NOT NULL,
    owner        TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
    result       TEXT,
    created_at   INTEGER NOT NULL,
    claimed_at   INTEGER NOT NULL,
    completed_at INTEGER,
    UNIQUE (account_id, mode, endpoint, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
