package pdfmerge

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"
)

// What reading a document may cost. A label's structure (its
// cross-reference stream, its object streams) inflates to a few kilobytes,
// a customs invoice's to tens; the limits leave room for far more and
// still refuse a decompression bomb before it holds anything: an object
// stream is inflated once to count its bytes (nothing kept) and only then,
// when within the limits, into a buffer of exactly its size.
const (
	// DefaultStreamLimit is the most bytes one structure stream (a
	// cross-reference or object stream) may inflate to.
	DefaultStreamLimit = 2 << 20
	// DefaultDocumentLimit is the most bytes reading one document may
	// allocate beside the document itself: inflated streams, parsed objects
	// and the tables that index them, as charged (meter).
	DefaultDocumentLimit = 8 << 20
	// DefaultBudget is the most bytes every reading at once may reserve
	// (Budget): eight documents at the document limit.
	DefaultBudget = 64 << 20
)

// workFactor bounds the bytes a reading may scan, as a multiple of what it
// may hold: each object is parsed once (cached), so a well-formed document
// scans each of its bytes about once; a hostile one whose cross-reference
// entries all point into one long object would scan it once per entry.
const workFactor = 16

// decompressorCost is what one zlib reader holds while inflating (its
// 32 KiB window and Huffman tables), charged while it is in use.
const decompressorCost = 64 << 10

// ErrTooLarge is wrapped (with ErrUnmergeable) by a document whose reading
// would pass a limit: a stream inflating too far, too many objects, too
// much to scan, or more than the whole budget.
var ErrTooLarge = errors.New("larger than any label")

// Limits bound the reading of one document; zero fields take the defaults.
type Limits struct {
	// Stream is the most bytes one structure stream may inflate to.
	Stream int64
	// Document is the most bytes reading one document may allocate beside
	// the document itself.
	Document int64
}

func (l Limits) withDefaults() Limits {
	if l.Stream <= 0 {
		l.Stream = DefaultStreamLimit
	}
	if l.Document <= 0 {
		l.Document = DefaultDocumentLimit
	}
	l.Stream = min(l.Stream, l.Document)
	return l
}

// Budget bounds the memory of every reading at once (merges and checks,
// across concurrent downloads and purchases): each document reserves the
// most it may hold (its own bytes and Limits.Document) before it is read,
// waiting while others hold the budget, and gives it back when done. It is
// safe for concurrent use; one Budget serves a whole process.
type Budget struct {
	limits Limits
	budget int64
	sem    *semaphore.Weighted

	// inflaters keeps zlib readers for reuse: each holds a 32 KiB window
	// and tables, two per PDF 1.5 label, garbage after every document.
	inflaters sync.Pool

	mu           sync.Mutex
	held         int64
	peakHeld     int64
	peakDocument int64
	tooLarge     int64
}

// NewBudget returns a budget of the given bytes (DefaultBudget when 0 or
// less) for documents read within limits.
func NewBudget(budget int64, limits Limits) *Budget {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Budget{limits: limits.withDefaults(), budget: budget, sem: semaphore.NewWeighted(budget)}
}

// Limits are the limits each document is read within.
func (b *Budget) Limits() Limits { return b.limits }

// BudgetStats is what a Budget has seen (tests, metrics).
type BudgetStats struct {
	// Budget is the bytes every reading at once may reserve.
	Budget int64
	// Held and PeakHeld are the bytes reserved now and at most so far.
	Held, PeakHeld int64
	// PeakDocument is the most one document's reading allocated, as the
	// meter counts it: what it inflated and parsed.
	PeakDocument int64
	// TooLarge counts the documents refused for a limit (ErrTooLarge).
	TooLarge int64
}

// Stats reports what the budget has seen.
func (b *Budget) Stats() BudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetStats{Budget: b.budget, Held: b.held, PeakHeld: b.peakHeld, PeakDocument: b.peakDocument, TooLarge: b.tooLarge}
}

// read reserves what reading doc may hold, runs fn with a meter of the
// document's limits, and gives the reservation back.
func (b *Budget) read(ctx context.Context, doc []byte, fn func(*meter) error) error {
	n := int64(len(doc)) + b.limits.Document + decompressorCost
	if n > b.budget {
		b.count(0, true)
		return fmt.Errorf("%w: %w: reading it may take %.1f MiB, more than the whole budget of %.1f MiB",
			ErrUnmergeable, ErrTooLarge, float64(n)/(1<<20), float64(b.budget)/(1<<20))
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return fmt.Errorf("waiting for PDF memory: %w", err)
	}
	b.mu.Lock()
	b.held += n
	b.peakHeld = max(b.peakHeld, b.held)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.held -= n
		b.mu.Unlock()
		b.sem.Release(n)
	}()
	m := newMeter(b.limits, len(doc))
	m.inflaters = &b.inflaters
	err := fn(m)
	b.count(m.used, errors.Is(err, ErrTooLarge))
	return err
}

func (b *Budget) count(charged int64, tooLarge bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.peakDocument = max(b.peakDocument, charged)
	if tooLarge {
		b.tooLarge++
	}
}

// meter counts the bytes one document's reading allocates (inflated data,
// parsed values and the slices that hold them, table entries: charged
// before they are made, or as Go's maps grow, approximately) and the bytes
// it scans, and refuses past the limits. It counts allocations, not what
// is still held: garbage is memory until the collector runs, and a sum that
// only grows bounds both. TestParsedValuesAreChargedAsAllocated and
// TestDocumentLimitBoundsManyStreams check the counts against what the
// runtime reports allocated.
type meter struct {
	limits    Limits
	inflaters *sync.Pool // zlib readers to reuse; nil: none
	used      int64
	work      int64
	workLimit int64
}

func newMeter(l Limits, docLen int) *meter {
	return &meter{limits: l, workLimit: workFactor * (int64(docLen) + l.Document)}
}

// Approximate allocations, charged per item: a value boxed in an interface
// (a slice header, a reference, a dictionary's header: at most 48 bytes),
// a map entry with its share of the buckets a growing map leaves behind.
const (
	valueCost = 48
	entryCost = 96
	// slotCost is one element of an array or dictionary: an interface (and
	// a key's string header).
	slotCost = 16
)

// charge counts n bytes about to be allocated.
func (m *meter) charge(n int64, what string) error {
	if n < 0 || n > m.limits.Document-m.used {
		return fmt.Errorf("%w: %w: %s would take its reading past %d MiB", ErrUnmergeable, ErrTooLarge, what, m.limits.Document>>20)
	}
	m.used += n
	return nil
}

// left is what the document may still allocate.
func (m *meter) left() int64 { return m.limits.Document - m.used }

// scan counts n bytes scanned.
func (m *meter) scan(n int) error {
	m.work += int64(max(n, 0))
	if m.work > m.workLimit {
		return fmt.Errorf("%w: %w: reading it scans more than %d MiB", ErrUnmergeable, ErrTooLarge, m.workLimit>>20)
	}
	return nil
}

// grow returns s with room for one more element, charging a new backing
// array (twice as large) before it is made.
func grow[T any](m *meter, s []T, slot int64, what string) ([]T, error) {
	if len(s) < cap(s) {
		return s, nil
	}
	n := max(4, 2*cap(s))
	if err := m.charge(int64(n)*slot, what); err != nil {
		return nil, err
	}
	bigger := make([]T, len(s), n)
	copy(bigger, s)
	return bigger, nil
}
