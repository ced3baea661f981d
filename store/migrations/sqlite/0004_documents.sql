-- Label documents kept in the database (store.DatabaseDocuments, the default
-- on SQLite): a PDF of a few KiB is cheaper to write as a row than as a new
-- file, and a backup of the database holds every label it refers to.
CREATE TABLE documents (
    key        TEXT PRIMARY KEY,
    data       BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL
);
