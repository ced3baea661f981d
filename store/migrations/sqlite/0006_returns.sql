-- Return labels (issue 27). is_return marks a return label, return_of the
-- shipment it returns (POST /labels/create with returnOf; NULL for a return
-- of an order shipped elsewhere, and for outbound labels). A return label is
-- paid on use: nothing is reserved at create, and use_charged_at is set by
-- the transaction of the carrier's first scan that charges it, so that the
-- charge happens once (shipping/returns.go).
ALTER TABLE shipments ADD COLUMN is_return INTEGER NOT NULL DEFAULT 0;
ALTER TABLE shipments ADD COLUMN return_of TEXT REFERENCES shipments (id);
ALTER TABLE shipments ADD COLUMN use_charged_at TIMESTAMP;
