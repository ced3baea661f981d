-- How many of a batch's items cross a border with a declaration, so have a
-- customs document once bought: the batch then shows customsUrl. 0 for
-- batches made before this column existed (their customs.pdf still works).
ALTER TABLE batches ADD COLUMN customs_items INTEGER NOT NULL DEFAULT 0;
