-- An account's own carrier contracts for live mode (POST /carrier-accounts).
-- The client secret is sealed (seal package) like webhook signing secrets;
-- version counts credential changes, so clients built from the old ones are
-- dropped. A deleted account is kept (deleted_at) for the labels it bought,
-- which are voided and tracked through it.
CREATE TABLE carrier_accounts (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    mode              TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    carrier           TEXT NOT NULL,
    description       TEXT,
    environment       TEXT NOT NULL,
    client_id         TEXT NOT NULL,
    secret_ciphertext TEXT NOT NULL,
    account_number    TEXT NOT NULL,
    crid              TEXT NOT NULL DEFAULT '',
    mid               TEXT NOT NULL DEFAULT '',
    enabled           INTEGER NOT NULL DEFAULT 1,
    version           INTEGER NOT NULL DEFAULT 1,
    created_at        TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL,
    deleted_at        TIMESTAMP
);
CREATE INDEX carrier_accounts_page ON carrier_accounts (account_id, mode, seq);
-- The carrier account a label was bought through; NULL: the operator's carriers.
ALTER TABLE shipments ADD COLUMN carrier_account_id TEXT;
