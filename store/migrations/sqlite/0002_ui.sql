-- The settings UI: the people of an account who sign in, their sessions, and
-- the audit log of changes to tokens and webhook subscriptions.

-- API tokens get a name in the UI ('' for tokens made before, or by the CLI without one).
ALTER TABLE tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';

-- The first 200 bytes of a receiver's response body (valid UTF-8), for the delivery log.
ALTER TABLE webhook_delivery_attempts ADD COLUMN response_excerpt TEXT;

-- email is stored lower-cased, so UNIQUE is case-insensitive; password_hash
-- is a bcrypt hash (its cost and salt inside).
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL
);
CREATE INDEX users_account ON users (account_id);

-- Only the SHA-256 of a session id is kept; the id itself lives in the
-- browser's cookie. expires_at is the absolute end; the idle end is
-- last_seen_at plus the idle timeout.
CREATE TABLE sessions (
    id_hash      BLOB PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id),
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    created_at   TIMESTAMP NOT NULL,
    last_seen_at TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Who changed what, from where: actor is the user's email or the token's prefix.
CREATE TABLE audit_log (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    mode       TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    actor      TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     TEXT NOT NULL,
    ip         TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX audit_log_page ON audit_log (account_id, mode, seq);
