-- A batch is many creates accepted together (POST /batches). Its items are
-- ordinary shipments with batch_id set, inserted in the batch's order, so
-- their seq is the item order. The counts are not stored: they are counted
-- from the items (shipments_batch), so concurrent purchases never contend on
-- the batch row; only the one move to completed writes it, guarded.
CREATE TABLE batches (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    mode         TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    status       TEXT NOT NULL,
    label_format TEXT NOT NULL DEFAULT '',
    total        INTEGER NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    completed_at TIMESTAMP
);
CREATE INDEX batches_page ON batches (account_id, mode, seq);
ALTER TABLE shipments ADD COLUMN batch_id TEXT REFERENCES batches (id);
CREATE INDEX shipments_batch ON shipments (batch_id, status) WHERE batch_id IS NOT NULL;
CREATE INDEX shipments_batch_seq ON shipments (batch_id, seq) WHERE batch_id IS NOT NULL;
