-- Instances' heartbeats (see the PostgreSQL migration). SQLite has one
-- server, trivially alive: the table is there so that the two schemas match.
CREATE TABLE instances (
    node_id     TEXT PRIMARY KEY,
    seen_at     TEXT NOT NULL,
    alive_since TEXT NOT NULL
);
