-- shipd's schema on SQLite before the changes numbered after it: the seven
-- first SQLite migrations of the old numbering (kept in ../legacy-sqlite for
-- databases that stopped part way), applied as one, as PostgreSQL's 0001.

-- 0001_accounts_tokens.sql
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

-- 0002_labels.sql
-- request holds the shipment's input as JSON (addresses, parcel, options,
-- customs): it is read back whole, never queried by part.
CREATE TABLE shipments (
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    id                    TEXT NOT NULL UNIQUE,
    account_id            TEXT NOT NULL REFERENCES accounts (id),
    mode                  TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    status                TEXT NOT NULL,
    created_at            TIMESTAMP NOT NULL,
    updated_at            TIMESTAMP NOT NULL,
    carrier               TEXT NOT NULL,
    service               TEXT NOT NULL,
    service_category      TEXT NOT NULL,
    carrier_rate_cents    INTEGER NOT NULL,
    platform_fee_cents    INTEGER NOT NULL,
    customer_price_cents  INTEGER NOT NULL,
    balance_applied_cents INTEGER NOT NULL,
    charge_amount_cents   INTEGER NOT NULL,
    currency              TEXT NOT NULL,
    estimated_days        INTEGER NOT NULL,
    request               TEXT NOT NULL,
    source                TEXT NOT NULL DEFAULT 'api',
    tracking_number       TEXT,
    label_key             TEXT,
    tracker_id            TEXT,
    tracking_status       TEXT,
    error_message         TEXT,
    purchased_at          TIMESTAMP,
    voided_at             TIMESTAMP
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
    estimated_delivery_at TIMESTAMP,
    plan                  TEXT NOT NULL,
    created_at            TIMESTAMP NOT NULL,
    updated_at            TIMESTAMP NOT NULL
);

CREATE TABLE tracking_events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    tracker_id  TEXT NOT NULL REFERENCES trackers (id),
    scan_index  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    message     TEXT NOT NULL,
    location    TEXT NOT NULL,
    occurred_at TIMESTAMP NOT NULL,
    UNIQUE (tracker_id, scan_index)
);

CREATE TABLE events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    mode        TEXT NOT NULL,
    type        TEXT NOT NULL,
    api_version TEXT NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    data        TEXT NOT NULL
);
CREATE INDEX events_page ON events (account_id, mode, seq);
CREATE INDEX events_type_page ON events (account_id, mode, type, seq);

-- The shipping balance per account and mode, and every movement of money.
-- balance_cents always equals the sum of the balance-moving entries
-- (balance_applied, balance_released, refund_credit); card_charge entries
-- record what was charged to the payment method and do not move the balance.
CREATE TABLE balances (
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    mode          TEXT NOT NULL,
    balance_cents INTEGER NOT NULL DEFAULT 0 CHECK (balance_cents >= 0),
    PRIMARY KEY (account_id, mode)
);

CREATE TABLE ledger_entries (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL,
    shipment_id  TEXT NOT NULL REFERENCES shipments (id),
    kind         TEXT NOT NULL CHECK (kind IN ('balance_applied', 'balance_released', 'card_charge', 'refund_credit')),
    amount_cents INTEGER NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    UNIQUE (shipment_id, kind)
);
CREATE INDEX ledger_account ON ledger_entries (account_id, mode);

-- 0003_webhook_deliveries.sql
-- One delivery per (subscription, event): the unique index is what makes an
-- event reach an endpoint once however often its insert is retried.
-- event_id names a row of events, except for webhook.test deliveries, whose
-- synthetic event exists only here (event_data and created_at hold it).
--
-- next_attempt_at is when the next automatic attempt is due (NULL: none is
-- scheduled); auto_attempts counts the automatic attempts made, so a job run
-- twice after a crash never records its attempt twice. retry_request is the
-- nonce of a queued manual attempt (retry endpoint or test event), cleared
-- when that attempt is recorded. last_error is the reason of the latest
-- failure, including a cancellation that sent nothing.
CREATE TABLE webhook_deliveries (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
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
    next_attempt_at    TIMESTAMP,
    retry_request      TEXT,
    retry_requested_at TIMESTAMP,
    last_error         TEXT,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (subscription_id, event_id);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (subscription_id, seq);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, status);

-- Every attempt, as sent: auto_attempt is the automatic attempt's number
-- (NULL for a manual one).
CREATE TABLE webhook_delivery_attempts (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries (id),
    auto_attempt    INTEGER,
    attempted_at    TIMESTAMP NOT NULL,
    response_status INTEGER,
    latency_ms      INTEGER NOT NULL,
    error           TEXT,
    UNIQUE (delivery_id, auto_attempt)
);
CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, seq);

-- 0004_idempotency.sql
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

-- 0005_idempotency_committed.sql
-- committed marks a key whose request has committed its resource, set in the
-- same transaction: 0 not yet, 1 committed (its response is being recorded),
-- 2 committed but the response was lost (the request failed after its commit).
-- A committed key is never released nor taken over, so a retry can never
-- create the resource a second time.
ALTER TABLE idempotency_keys ADD COLUMN committed INTEGER NOT NULL DEFAULT 0;

-- 0006_idempotency_results.sql
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

-- 0007_carrier_shipment_id.sql
-- The carrier's own identifier of a purchased shipment when it differs from
-- the tracking number (UPS ShipmentIdentificationNumber); a void needs it.
ALTER TABLE shipments ADD COLUMN carrier_shipment_id TEXT;
-- Live trackers are polled: the carrier's latest estimated delivery replaces
-- the one estimated at purchase.
