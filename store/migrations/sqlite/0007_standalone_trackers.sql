-- Trackers of any package (POST /trackers): a tracker without a shipment.
-- SQLite cannot drop a column's NOT NULL, so trackers is rebuilt, with seq
-- for the newest-first list. Migrations run in a transaction with foreign
-- keys on, where dropping trackers while tracking_events references it would
-- fail; so tracking_events is rebuilt too, referencing the new table, which
-- the rename then calls trackers (RENAME rewrites references to it). Every
-- row is kept: trackers in the order they were created, scans with their seq.
CREATE TABLE trackers_new (
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    id                    TEXT NOT NULL UNIQUE,
    account_id            TEXT NOT NULL REFERENCES accounts (id),
    mode                  TEXT NOT NULL,
    shipment_id           TEXT UNIQUE REFERENCES shipments (id),
    carrier               TEXT NOT NULL,
    tracking_number       TEXT NOT NULL,
    status                TEXT NOT NULL,
    estimated_delivery_at TIMESTAMP,
    plan                  TEXT NOT NULL,
    created_at            TIMESTAMP NOT NULL,
    updated_at            TIMESTAMP NOT NULL
);
INSERT INTO trackers_new (id, account_id, mode, shipment_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at)
    SELECT id, account_id, mode, shipment_id, carrier, tracking_number, status, estimated_delivery_at, plan, created_at, updated_at
    FROM trackers ORDER BY created_at, id;

CREATE TABLE tracking_events_new (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    tracker_id  TEXT NOT NULL REFERENCES trackers_new (id),
    scan_index  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    message     TEXT NOT NULL,
    location    TEXT NOT NULL,
    occurred_at TIMESTAMP NOT NULL,
    UNIQUE (tracker_id, scan_index)
);
INSERT INTO tracking_events_new (seq, tracker_id, scan_index, status, message, location, occurred_at)
    SELECT seq, tracker_id, scan_index, status, message, location, occurred_at FROM tracking_events;

DROP TABLE tracking_events;
DROP TABLE trackers;
ALTER TABLE trackers_new RENAME TO trackers;
ALTER TABLE tracking_events_new RENAME TO tracking_events;

CREATE INDEX trackers_page ON trackers (account_id, mode, seq);
CREATE INDEX trackers_status_page ON trackers (account_id, mode, status, seq);
CREATE INDEX trackers_number ON trackers (account_id, mode, tracking_number);
-- One standalone tracker per account, mode, carrier and number: two POSTs at
-- once insert one (the loser's INSERT … ON CONFLICT DO NOTHING reads it).
-- Labels' trackers are outside it: a carrier may reuse a number years later.
CREATE UNIQUE INDEX trackers_standalone ON trackers (account_id, mode, carrier, tracking_number) WHERE shipment_id IS NULL;
