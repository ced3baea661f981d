-- A label reports the delivery date of the rate it was bought at: the
-- carrier's committed or estimated date (YYYY-MM-DD) and whether the carrier
-- guarantees it. NULL for labels bought before this column existed.
ALTER TABLE shipments ADD COLUMN estimated_delivery_date TEXT;
ALTER TABLE shipments ADD COLUMN guaranteed BOOLEAN;
