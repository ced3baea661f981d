-- Every credential field of a carrier account, sealed together as a JSON
-- object by field name (carriers.CredentialField.Name), so that a carrier
-- whose connector takes other fields than a client id, a secret, an account
-- number, a CRID and a MID needs no column of its own. Empty for the rows
-- written before it, whose credentials are the columns beside it; those
-- columns are still written for the fields of those names.
ALTER TABLE carrier_accounts ADD COLUMN credentials_ciphertext TEXT NOT NULL DEFAULT '';
