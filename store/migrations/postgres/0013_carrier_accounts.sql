-- An account's own carrier contracts for live mode (POST /carrier-accounts).
-- The client secret is sealed (seal package) like webhook signing secrets;
-- version counts credential changes, so clients built from the old ones are
-- dropped. A deleted account is kept (deleted_at) for the labels it bought,
-- which are voided and tracked through it.
CREATE TABLE carrier_accounts (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    enabled           BOOLEAN NOT NULL DEFAULT TRUE,
    version           INTEGER NOT NULL DEFAULT 1,
    created_at        TIMESTAMPTZ NOT NULL,
    updated_at        TIMESTAMPTZ NOT NULL,
    deleted_at        TIMESTAMPTZ
);
CREATE INDEX carrier_accounts_page ON carrier_accounts (account_id, mode, seq);
-- The carrier account a label was bought through; NULL: the operator's carriers.
ALTER TABLE shipments ADD COLUMN carrier_account_id TEXT;
