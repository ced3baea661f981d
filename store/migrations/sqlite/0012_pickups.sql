-- A pickup is a carrier's visit to collect packages (POST /pickups). The row
-- is inserted as 'requesting' before the carrier is called and becomes
-- 'scheduled' with the confirmation number once it answered, so a crash in
-- between leaves a visible 'requesting' row rather than a pickup the
-- carrier knows and shipd does not. ready_at and close_at are RFC 3339 text
-- in the offset given: carriers take the pickup's local date and times.
CREATE TABLE pickups (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    account_id          TEXT NOT NULL REFERENCES accounts (id),
    mode                TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    carrier             TEXT NOT NULL,
    status              TEXT NOT NULL,
    confirmation_number TEXT,
    carrier_location    TEXT NOT NULL DEFAULT '',
    address             TEXT NOT NULL,
    ready_at            TEXT NOT NULL,
    close_at            TEXT NOT NULL,
    package_count       INTEGER NOT NULL,
    total_weight_oz     REAL,
    instructions        TEXT NOT NULL DEFAULT '',
    shipment_ids        TEXT NOT NULL DEFAULT '[]',
    idempotency_key     TEXT,
    created_at          TIMESTAMP NOT NULL,
    updated_at          TIMESTAMP NOT NULL,
    cancelled_at        TIMESTAMP
);
CREATE INDEX pickups_page ON pickups (account_id, mode, seq);
CREATE INDEX pickups_key ON pickups (account_id, mode, idempotency_key) WHERE idempotency_key IS NOT NULL;
