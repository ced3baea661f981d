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
