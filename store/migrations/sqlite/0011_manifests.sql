-- A manifest (POST /manifests) puts labels of one carrier and one origin on
-- one carrier form (USPS SCAN form, FedEx Ground close). A label is on one
-- manifest at most: shipments.manifest_id is set by a guarded update
-- (manifest_id IS NULL) in the transaction that inserts the manifest, and
-- cleared again if the carrier refuses it.
CREATE TABLE manifests (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    account_id    TEXT NOT NULL REFERENCES accounts (id),
    mode          TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    carrier       TEXT NOT NULL,
    status        TEXT NOT NULL,
    from_address  TEXT NOT NULL,
    shipment_ids  TEXT NOT NULL,
    form_number   TEXT,
    form_key      TEXT,
    error_message TEXT,
    created_at    TIMESTAMP NOT NULL,
    completed_at  TIMESTAMP
);
CREATE INDEX manifests_page ON manifests (account_id, mode, seq);
ALTER TABLE shipments ADD COLUMN manifest_id TEXT REFERENCES manifests (id);
CREATE INDEX shipments_manifest ON shipments (manifest_id) WHERE manifest_id IS NOT NULL;
-- The labels waiting for a manifest: purchased, on none, per account, mode and carrier.
CREATE INDEX shipments_unmanifested ON shipments (account_id, mode, carrier, seq) WHERE manifest_id IS NULL AND status = 'purchased';
