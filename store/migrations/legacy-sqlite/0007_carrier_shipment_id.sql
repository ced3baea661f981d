-- The carrier's own identifier of a purchased shipment when it differs from
-- the tracking number (UPS ShipmentIdentificationNumber); a void needs it.
ALTER TABLE shipments ADD COLUMN carrier_shipment_id TEXT;
-- Live trackers are polled: the carrier's latest estimated delivery replaces
-- the one estimated at purchase.
