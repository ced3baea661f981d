-- A standalone tracker of live mode follows its number through the
-- account's carrier account of that carrier when it has one (issue 31):
-- kept, like a label's, for every poll even after the account is disabled
-- or deleted. NULL: the operator's carriers (or the sandbox).
ALTER TABLE trackers ADD COLUMN carrier_account_id TEXT;
