-- A purchase attempt is recorded, in a transaction of its own, before the
-- carrier is called: a job that finds an attempt already started for a
-- shipment that is still being bought was cut off mid-purchase (a crash, a
-- rescue, an ambiguous time-out), and asks the carrier what it sold under the
-- shipment's reference before buying again (shipping/purchase.go).
-- recovery says what the last such check found and did, for support.
CREATE TABLE purchase_attempts (
    shipment_id TEXT PRIMARY KEY REFERENCES shipments (id),
    attempts    INTEGER NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    recovery    TEXT NOT NULL DEFAULT ''
);
