-- The settings UI on PostgreSQL: the same tables and columns as the SQLite
-- migration 0002_ui.sql, in PostgreSQL's types.

ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';

ALTER TABLE webhook_delivery_attempts ADD COLUMN response_excerpt TEXT;

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    email         TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email);
CREATE INDEX users_account ON users (account_id);

CREATE TABLE sessions (
    id_hash      BYTEA PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id),
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    created_at   TIMESTAMPTZ NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

CREATE TABLE audit_log (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    mode       TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    ip         TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX audit_log_page ON audit_log (account_id, mode, seq);
