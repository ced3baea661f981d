-- committed marks a key whose request has committed its resource, set in the
-- same transaction: 0 not yet, 1 committed (its response is being recorded),
-- 2 committed but the response was lost (the request failed after its commit).
-- A committed key is never released nor taken over, so a retry can never
-- create the resource a second time.
ALTER TABLE idempotency_keys ADD COLUMN committed INTEGER NOT NULL DEFAULT 0;
