-- Label documents kept in the database (store.DatabaseDocuments).
CREATE TABLE documents (
    key        TEXT PRIMARY KEY,
    data       BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
