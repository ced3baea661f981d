CREATE TABLE accounts (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    has_payment_method INTEGER NOT NULL DEFAULT 1,
    created_at         TIMESTAMP NOT NULL
);

-- Only the SHA-256 of a token's secret is kept; the secret is shown once.
CREATE TABLE tokens (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    prefix       TEXT NOT NULL,
    secret_hash  BLOB NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP,
    revoked_at   TIMESTAMP,
    last_used_at TIMESTAMP,
    last_ip      TEXT
);
CREATE INDEX tokens_account ON tokens (account_id);

-- seq orders pages (newest first) and makes keyset cursors; id is public.
CREATE TABLE addresses (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    mode        TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    created_at  TIMESTAMP NOT NULL,
    name        TEXT NOT NULL DEFAULT '',
    company     TEXT NOT NULL DEFAULT '',
    street1     TEXT NOT NULL,
    street2     TEXT NOT NULL DEFAULT '',
    city        TEXT NOT NULL,
    state       TEXT NOT NULL DEFAULT '',
    zip         TEXT NOT NULL,
    country     TEXT NOT NULL,
    phone       TEXT NOT NULL DEFAULT '',
    email       TEXT NOT NULL DEFAULT '',
    residential INTEGER
);
CREATE INDEX addresses_page ON addresses (account_id, mode, seq);

CREATE TABLE webhook_subscriptions (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    mode              TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    url               TEXT NOT NULL,
    events            TEXT NOT NULL,
    description       TEXT,
    enabled           INTEGER NOT NULL DEFAULT 1,
    secret_ciphertext TEXT NOT NULL,
    created_at        TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL,
    revoked_at        TIMESTAMP
);
CREATE INDEX webhook_subscriptions_page ON webhook_subscriptions (account_id, mode, seq);
-- One active subscription per URL per account and mode (409 duplicate_endpoint).
CREATE UNIQUE INDEX webhook_subscriptions_active_url
    ON webhook_subscriptions (account_id, mode, url) WHERE revoked_at IS NULL;
