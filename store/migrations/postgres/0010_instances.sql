-- Each instance (--node-id) writes its heartbeat here every second or so, on
-- the database's clock. alive_since is when its current unbroken run of
-- heartbeats began: a survivor reclaims the jobs of an instance whose
-- heartbeat is stale only if its own run has lasted the whole bound, so a
-- database that was away (every heartbeat stale at once) kills nobody.
CREATE TABLE instances (
    node_id     TEXT PRIMARY KEY,
    seen_at     TIMESTAMPTZ NOT NULL,
    alive_since TIMESTAMPTZ NOT NULL
);
