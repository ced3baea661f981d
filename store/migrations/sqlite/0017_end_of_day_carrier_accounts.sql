-- A manifest and a pickup go through the carrier account of their labels
-- (or the one asked for): its credentials make the form and book the
-- visit, and cancel it. NULL: the operator's carriers (or the sandbox).
ALTER TABLE manifests ADD COLUMN carrier_account_id TEXT;
ALTER TABLE pickups ADD COLUMN carrier_account_id TEXT;
