-- Nothing on SQLite: one server process writes its database and knows each
-- change itself (store/details.go). PostgreSQL's instances hear of changes
-- from triggers that this number adds there.
SELECT 1;
