-- Accounts billed in their currency (Ship from Europe): every price, charge
-- and ledger entry of an account is in its currency (ISO 4217), USD for the
-- accounts before it; it changes only while the account has no ledger
-- entry. A label bought at a rate converted from the carrier's currency
-- keeps the carrier's figure and the rate it was converted at (a decimal,
-- kept as text so that no binary rounding touches it).
ALTER TABLE accounts ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD' CHECK (length(currency) = 3);
ALTER TABLE shipments ADD COLUMN carrier_currency TEXT;
ALTER TABLE shipments ADD COLUMN carrier_amount_cents BIGINT;
ALTER TABLE shipments ADD COLUMN exchange_rate TEXT;
