-- Deliveries waiting for an automatic retry after a failed attempt: the
-- failing endpoints gauge reads only these. A delivery that succeeds at once
-- never enters the index.
CREATE INDEX webhook_deliveries_retrying ON webhook_deliveries (subscription_id)
    WHERE status = 'pending' AND auto_attempts > 0;
