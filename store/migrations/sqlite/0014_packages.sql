-- Multi-piece shipments: the pieces of a purchased one, a JSON array of
-- {trackingNumber, weightOz} in the order given, the first the master
-- (tracking_number); NULL for a single parcel. A scan of one piece names
-- it; NULL for a scan of the shipment as a whole.
ALTER TABLE shipments ADD COLUMN packages TEXT;
ALTER TABLE tracking_events ADD COLUMN tracking_number TEXT;
