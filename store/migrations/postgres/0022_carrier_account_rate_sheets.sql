-- A carrier account's own rate sheet (PUT /carrier-accounts/{id}/rate-sheet):
-- its contract prices as the CSV was sent, sealed (seal package) as its
-- credentials are: a negotiated price list is confidential under most
-- carrier contracts, and a database dump should not show it. One per
-- carrier account, so its account and mode are the carrier account's. Its
-- own table: a sheet is up to 2 MiB, and a row of carrier_accounts is read
-- by every live quote and rewritten by every change of the account.
CREATE TABLE carrier_account_rate_sheets (
    carrier_account_id TEXT PRIMARY KEY REFERENCES carrier_accounts (id),
    sheet_ciphertext   TEXT NOT NULL
);
-- What the carrier account shows of its sheet (0 rows: none), and a
-- counter of its changes: a carrier account's client is built with its
-- sheet and rebuilt when the counter moves (apart from version, which
-- counts credential changes and is written by other updates).
ALTER TABLE carrier_accounts ADD COLUMN rate_sheet_rows INTEGER NOT NULL DEFAULT 0;
ALTER TABLE carrier_accounts ADD COLUMN rate_sheet_updated_at TIMESTAMPTZ;
ALTER TABLE carrier_accounts ADD COLUMN rate_sheet_version INTEGER NOT NULL DEFAULT 0;
