-- A label is bought in one format (pdf, png, zpl) and size (4x6, letter: a
-- PDF's page); labels bought before formats were 4x6 PDFs.
ALTER TABLE shipments ADD COLUMN label_format TEXT NOT NULL DEFAULT 'pdf';
ALTER TABLE shipments ADD COLUMN label_size TEXT NOT NULL DEFAULT '4x6';
