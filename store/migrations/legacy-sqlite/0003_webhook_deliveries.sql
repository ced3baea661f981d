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
