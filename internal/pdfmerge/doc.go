// Package pdfmerge merges label PDFs into one document, streamed, and
// checks that a PDF is one it can merge (Budget.Check), so that shipd
// accepts at purchase only documents a later merge will read.
//
// Each input is parsed on its own (its cross-reference table, then only the
// objects its pages reach), its pages' objects are written out renumbered,
// and only the output's object offsets and page numbers are kept until the
// end, where the page tree, the catalog and the cross-reference table are
// written: what a merge keeps grows by a few bytes per object, not with the
// documents (BenchmarkMergeBatch: 5,000 labels keep 172 KB).
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
// # Bounds
//
// Documents come from carriers and are hostile until read. Every number
// taken from one is checked before it becomes an offset, a size or a count;
// the page tree must be a tree; nesting, indirection and the objects
// reached are bounded. A structure stream is inflated once into nothing,
// counting, and refused past Limits.Stream (2 MiB) before a buffer of its
// exact size is made, so a decompression bomb costs the time to inflate
// 2 MiB and no memory. A meter charges what reading one document
// allocates (inflated data, parsed values and the slices holding them,
// table entries) and refuses past Limits.Document (8 MiB); it also bounds
// the bytes scanned. A Budget (64 MiB) bounds all readings at once: each
// document reserves its own bytes and Limits.Document before it is read.
// Bad input is refused with an error, never a panic; the one recover, at
// the entry points, is a last resort (the fuzz targets call the reader
// without it).
//
// # Why not pdfcpu
//
// pdfcpu (v0.15.0, measured against the seeds and bombs, with
// runtime.MemStats and a sampled heap) was weighed for what it bounds:
//
//   - It did not panic on the four malformed seeds. It did panic
//     (a nil dereference in decodeObjectStream, read.go:3091, which its
//     fault.Catch re-panics) on a cross-reference stream that marks an
//     object stream as itself compressed, a one-entry change to a label.
//   - Its ResourceLimits bound each stream (MaxDecodeBytes, 512 MiB by
//     default), not a document nor all documents at once. At the default,
//     the bomb (16 object streams of 64 MiB, 1.09 MB) is read and
//     validated, allocating 5.1 GiB with the heap peaking at 3.7 GiB, the
//     figures of the issue. With MaxDecodeBytes at 2 MiB it refuses that
//     bomb, but accepts 512 object streams of just under 2 MiB (1.18 MB):
//     3.1 GiB allocated, 2.4 GiB peak. This package refuses both, having
//     allocated 533 KiB and 6.8 MiB.
//   - It reads every object stream of a document when it opens it, and its
//     merge builds the whole output in memory: merging 5,000 small labels
//     allocated 573 MiB with a 104 MiB peak, where this package's peak was
//     3.7 MiB, the collector's floor (31 MiB allocated).
//
// So pdfcpu neither bounds memory per document or per process nor streams.
// Adopting it would trade a parser of some 1,600 lines (comments included)
// that reads only what labels use and is fuzzed here for one that reads all
// of PDF, bounds less, and would need a recover around it anyway.
//
// The package imports nothing of shipd (app/layers_test.go): it reads
// documents carriers wrote and is fuzzed on its own.
package pdfmerge
