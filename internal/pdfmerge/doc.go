// Package pdfmerge merges label PDFs into one document, streamed. Each
// input is parsed on its own (its cross-reference table, then only the
// objects its pages reach), its pages' objects are written out renumbered,
// and only the output's object offsets and page numbers are kept until the
// end, where the page tree, the catalog and the cross-reference table are
// written: memory grows by a few bytes per object, not with the documents.
//
// The parser reads what label PDFs use: classic cross-reference tables
// (with incremental updates) and PDF 1.5 cross-reference streams with
// object streams (FlateDecode and PNG predictors), direct and indirect
// objects, and streams copied as they are (filters untouched). Inherited
// page attributes (Resources, MediaBox, CropBox, Rotate) are copied onto
// each page. A document this cannot read (encryption, other filters on the
// structure, damage) is refused whole with ErrUnmergeable, before anything
// of it is written; the caller puts a page in its place (Placeholder).
//
// The package imports nothing of shipd (app/layers_test.go): it reads
// documents carriers wrote and is fuzzed on its own.
package pdfmerge
