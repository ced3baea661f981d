-- When and why shipd stopped following a standalone tracker's package
-- (hardening, round three): a final status (or the sandbox's last scan),
-- a number the carrier never knew, or 30 days. NULL while it is followed:
-- those are the trackers an account's limit counts. Trackers already at a
-- final status have ended.
ALTER TABLE trackers ADD COLUMN ended_at TIMESTAMP;
ALTER TABLE trackers ADD COLUMN end_reason TEXT;
UPDATE trackers SET ended_at = updated_at, end_reason = 'final_status'
    WHERE shipment_id IS NULL AND status IN ('delivered', 'return_to_sender', 'cancelled');
CREATE INDEX trackers_active ON trackers (account_id, mode, created_at) WHERE shipment_id IS NULL AND ended_at IS NULL;
