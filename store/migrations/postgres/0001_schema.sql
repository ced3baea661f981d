-- shipd's schema on PostgreSQL: the same tables, columns and constraints as
-- SQLite's 0001_schema.sql produces, in PostgreSQL's types. seq
-- columns order pages (newest first) and make keyset cursors; ids are public.

CREATE TABLE accounts (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    has_payment_method BOOLEAN NOT NULL DEFAULT TRUE,
    created_at         TIMESTAMPTZ NOT NULL
);

-- Only the SHA-256 of a token's secret is kept; the secret is shown once.
CREATE TABLE tokens (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    prefix       TEXT NOT NULL,
    secret_hash  BYTEA NOT NULL UNIQUE,
    scopes       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    last_ip      TEXT
);
CREATE INDEX tokens_account ON tokens (account_id);

CREATE TABLE addresses (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    mode        TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    created_at  TIMESTAMPTZ NOT NULL,
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
    residential BOOLEAN
);
CREATE INDEX addresses_page ON addresses (account_id, mode, seq);

CREATE TABLE webhook_subscriptions (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                TEXT NOT NULL UNIQUE,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    mode              TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    url               TEXT NOT NULL,
    events            TEXT NOT NULL,
    description       TEXT,
    enabled           BOOLEAN NOT NULL DEFAULT TRUE,
    secret_ciphertext TEXT NOT NULL,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    revoked_at        TIMESTAMPTZ
);
CREATE INDEX webhook_subscriptions_page ON webhook_subscriptions (account_id, mode, seq);
-- One active subscription per URL per account and mode (409 duplicate_endpoint).
CREATE UNIQUE INDEX webhook_subscriptions_active_url
    ON webhook_subscriptions (account_id, mode, url) WHERE revoked_at IS NULL;

-- request holds the shipment's input as JSON: read back whole, never queried by part.
CREATE TABLE shipments (
    seq                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                    TEXT NOT NULL UNIQUE,
    account_id            TEXT NOT NULL REFERENCES accounts (id),
    mode                  TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    status                TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL,
    carrier               TEXT NOT NULL,
    service               TEXT NOT NULL,
    service_category      TEXT NOT NULL,
    carrier_rate_cents    BIGINT NOT NULL,
    platform_fee_cents    BIGINT NOT NULL,
    customer_price_cents  BIGINT NOT NULL,
    balance_applied_cents BIGINT NOT NULL,
    charge_amount_cents   BIGINT NOT NULL,
    currency              TEXT NOT NULL,
    estimated_days        INTEGER NOT NULL,
    request               TEXT NOT NULL,
    source                TEXT NOT NULL DEFAULT 'api',
    tracking_number       TEXT,
    label_key             TEXT,
    tracker_id            TEXT,
    tracking_status       TEXT,
    error_message         TEXT,
    purchased_at          TIMESTAMPTZ,
    voided_at             TIMESTAMPTZ,
    carrier_shipment_id   TEXT
);
CREATE INDEX shipments_page ON shipments (account_id, mode, seq);
CREATE INDEX shipments_status_page ON shipments (account_id, mode, status, seq);

CREATE TABLE trackers (
    id                    TEXT PRIMARY KEY,
    account_id            TEXT NOT NULL REFERENCES accounts (id),
    mode                  TEXT NOT NULL,
    shipment_id           TEXT NOT NULL UNIQUE REFERENCES shipments (id),
    carrier               TEXT NOT NULL,
    tracking_number       TEXT NOT NULL,
    status                TEXT NOT NULL,
    estimated_delivery_at TIMESTAMPTZ,
    plan                  TEXT NOT NULL,
    created_at            TIMESTAMPTZ NOT NULL,
    updated_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE tracking_events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tracker_id  TEXT NOT NULL REFERENCES trackers (id),
    scan_index  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    message     TEXT NOT NULL,
    location    TEXT NOT NULL,
    occurred_at TIMESTAMPTZ NOT NULL,
    UNIQUE (tracker_id, scan_index)
);

CREATE TABLE events (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    mode        TEXT NOT NULL,
    type        TEXT NOT NULL,
    api_version TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    data        TEXT NOT NULL
);
CREATE INDEX events_page ON events (account_id, mode, seq);
CREATE INDEX events_type_page ON events (account_id, mode, type, seq);

-- balance_cents always equals the sum of the balance-moving ledger entries.
CREATE TABLE balances (
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    mode          TEXT NOT NULL,
    balance_cents BIGINT NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
    PRIMARY KEY (account_id, mode)
);

CREATE TABLE ledger_entries (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL,
    shipment_id  TEXT NOT NULL REFERENCES shipments (id),
    kind         TEXT NOT NULL CHECK (kind IN ('balance_applied', 'balance_released', 'card_charge', 'refund_credit')),
    amount_cents BIGINT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    UNIQUE (shipment_id, kind)
);
CREATE INDEX ledger_account ON ledger_entries (account_id, mode);

-- One delivery per (subscription, event); see the part 0003_webhook_deliveries of SQLite's 0001_schema.sql.
CREATE TABLE webhook_deliveries (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    subscription_id    TEXT NOT NULL REFERENCES webhook_subscriptions (id),
    account_id         TEXT NOT NULL REFERENCES accounts (id),
    mode               TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    event_id           TEXT NOT NULL,
    event_type         TEXT NOT NULL,
    event_data         TEXT,
    status             TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts           INTEGER NOT NULL DEFAULT 0,
    auto_attempts      INTEGER NOT NULL DEFAULT 0,
    next_attempt_at    TIMESTAMPTZ,
    retry_request      TEXT,
    retry_requested_at TIMESTAMPTZ,
    last_error         TEXT,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (subscription_id, event_id);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (subscription_id, seq);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, status);

CREATE TABLE webhook_delivery_attempts (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries (id),
    auto_attempt    INTEGER,
    attempted_at    TIMESTAMPTZ NOT NULL,
    response_status INTEGER,
    latency_ms      BIGINT NOT NULL,
    error           TEXT,
    UNIQUE (delivery_id, auto_attempt)
);
CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, seq);

-- See the part 0006_idempotency_results of SQLite's 0001_schema.sql.
CREATE TABLE idempotency_keys (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    endpoint     TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  BYTEA NOT NULL,
    owner        TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('in_progress', 'done')),
    result       TEXT,
    created_at   BIGINT NOT NULL,
    claimed_at   BIGINT NOT NULL,
    completed_at BIGINT,
    UNIQUE (account_id, mode, endpoint, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
