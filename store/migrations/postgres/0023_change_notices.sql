-- Every instance keeps the shipment rows and tracking scans it read
-- (store/details.go) and drops one when it hears it changed: these triggers
-- send the changed key on the channel shipd_details from inside the writing
-- transaction, so the notice goes out when it commits (never when it rolls
-- back), whichever instance, CLI or operator's tool wrote the row.
-- Payloads: 's' and a shipment id; 'e' and a tracker id; '*' drops all.
CREATE FUNCTION shipd_notify_shipment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('shipd_details', '*');
    ELSE
        PERFORM pg_notify('shipd_details', 's' || OLD.id);
    END IF;
    RETURN NULL;
END
$$;

-- A new shipment was never cached (a read of a missing id keeps nothing).
CREATE TRIGGER shipments_notify AFTER UPDATE OR DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION shipd_notify_shipment();
CREATE TRIGGER shipments_notify_truncate AFTER TRUNCATE ON shipments
    FOR EACH STATEMENT EXECUTE FUNCTION shipd_notify_shipment();

CREATE FUNCTION shipd_notify_scans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('shipd_details', '*');
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM pg_notify('shipd_details', 'e' || OLD.tracker_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pg_notify('shipd_details', 'e' || NEW.tracker_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER tracking_events_notify AFTER INSERT OR UPDATE OR DELETE ON tracking_events
    FOR EACH ROW EXECUTE FUNCTION shipd_notify_scans();
CREATE TRIGGER tracking_events_notify_truncate AFTER TRUNCATE ON tracking_events
    FOR EACH STATEMENT EXECUTE FUNCTION shipd_notify_scans();
