package pdfmerge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/internal/pdfmerge/pdftest"
)

// Damaged documents are refused, or read when they can be repaired, and
// never panic: the reader is called unguarded here (readGuarded's recover
// would hide a panic), then through a Merger, whose output keeps a
// placeholder page in a refused document's place.
func TestMalformedDocumentsAreRefusedWithoutPanic(t *testing.T) {
	t.Parallel()
	for _, s := range pdftest.Seeds() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			_, err := prepare(s.Doc, newMeter(Limits{}.withDefaults(), len(s.Doc)))
			if s.Refused && !errors.Is(err, ErrUnmergeable) {
				t.Fatalf("prepare: %v, want ErrUnmergeable", err)
			}
			if err != nil && !errors.Is(err, ErrUnmergeable) {
				t.Fatalf("prepare: %v, want nil or ErrUnmergeable", err)
			}

			var out bytes.Buffer
			m := NewMerger(&out, NewBudget(0, Limits{}))
			addErr := m.Add(t.Context(), s.Doc)
			if (addErr == nil) != (err == nil) {
				t.Fatalf("Add: %v, prepare: %v", addErr, err)
			}
			want := []string{"BT (x) Tj ET"}
			if addErr != nil {
				m.Placeholder("The label of shp_x could not be merged")
				want = []string{"BT /F1 9 Tf 18 400 Td (The label of shp_x could not be merged) Tj ET"}
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			contents, _ := pageTexts(t, out.Bytes())
			if diff := cmp.Diff(want, contents); diff != "" {
				t.Errorf("merged pages (-want +got):\n%s", diff)
			}
		})
	}
}

// allocated is the bytes the Go runtime allocated while fn ran. Tests that
// call it are not parallel, so that no other test allocates meanwhile.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The issue's bomb: a 1 MB label of 16 object streams that each inflate to
// 64 MiB. The merger inflated and kept them all (2.5 GiB allocated, 1.1 GiB
// held); it is now refused at the first stream, having counted past the
// stream limit into nothing.
func TestObjectStreamBombIsRefusedBeforeItIsHeld(t *testing.T) {
	doc := pdftest.ObjectStreamBomb(16, 64<<20)
	if len(doc) < 1<<20-64<<10 || len(doc) > 1<<20+64<<10 {
		t.Fatalf("the bomb is %d bytes, want about 1 MB", len(doc))
	}
	b := NewBudget(0, Limits{})
	var err error
	bytes := allocated(func() { err = b.Check(t.Context(), doc) })
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrUnmergeable) {
		t.Fatalf("Check: %v, want ErrTooLarge and ErrUnmergeable", err)
	}
	if !strings.Contains(err.Error(), "inflates past 2048 KiB") {
		t.Errorf("the error %q does not say which limit", err)
	}
	// The decompressor's state and the document's tables; nothing of what
	// the streams inflate to.
	if bytes > DefaultStreamLimit/4 {
		t.Errorf("reading the bomb allocated %d bytes, want at most %d", bytes, DefaultStreamLimit/4)
	}
	stats := b.Stats()
	if stats.TooLarge != 1 || stats.PeakDocument > DefaultDocumentLimit || stats.Held != 0 {
		t.Errorf("budget %+v: want one document refused, no more than the document limit charged, nothing held", stats)
	}
}

// Streams each within the stream limit are refused together past the
// document limit, and what they allocate stays within it.
func TestDocumentLimitBoundsManyStreams(t *testing.T) {
	limits := Limits{Stream: 1 << 20, Document: 4 << 20}
	doc := pdftest.ObjectStreamBomb(16, 1<<20-1024) // 16 MiB in all
	b := NewBudget(0, limits)
	var err error
	bytes := allocated(func() { err = b.Check(t.Context(), doc) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Check: %v, want ErrTooLarge", err)
	}
	if bytes > uint64(limits.Document) {
		t.Errorf("reading allocated %d bytes, more than the document limit %d", bytes, limits.Document)
	}
	if peak := b.Stats().PeakDocument; peak > limits.Document || peak < limits.Document/2 {
		t.Errorf("the reading charged at most %d bytes; want between half the limit and the limit %d", peak, limits.Document)
	}
}

// The meter's approximations cover what parsing allocates: a document of a
// million tiny values (an array of numbers a page reaches) is refused at
// the document limit having allocated about that much, not the hundred
// megabytes its values would take.
func TestParsedValuesAreChargedAsAllocated(t *testing.T) {
	numbers := strings.Repeat("0 ", 1_000_000)
	doc := pdftest.Classic([]string{
		"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R /Annots 5 0 R >>",
		pdftest.Stream("BT (x) Tj ET"), "[" + numbers + "]"}, nil)
	limits := Limits{}.withDefaults()
	b := NewBudget(0, limits)
	var err error
	bytes := allocated(func() { err = b.Check(t.Context(), doc) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Check: %v, want ErrTooLarge", err)
	}
	if bytes > 2*uint64(limits.Document) {
		t.Errorf("parsing allocated %d bytes, more than twice the document limit %d: the meter undercounts", bytes, limits.Document)
	}
}

// Every reading at once holds no more than the budget: concurrent checks
// wait their turn, a document that alone needs more than the budget is
// refused at once, and a wait ends with its context.
func TestBudgetBoundsConcurrentReadings(t *testing.T) {
	t.Parallel()
	limits := Limits{Stream: 64 << 10, Document: 256 << 10}
	doc := pdftest.Label15("BT (x) Tj ET").Bytes()
	reservation := int64(len(doc)) + limits.Document + decompressorCost
	b := NewBudget(3*reservation, limits)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() { errs <- b.Check(t.Context(), doc) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s := b.Stats(); s.PeakHeld > s.Budget || s.PeakHeld < reservation || s.Held != 0 {
		t.Errorf("budget %+v: want a peak within the budget, nothing held after", s)
	}

	small := NewBudget(reservation-1, limits)
	if err := small.Check(t.Context(), doc); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a document needing more than the whole budget: %v, want ErrTooLarge", err)
	}

	one := NewBudget(reservation, limits)
	hold := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = one.readGuarded(context.Background(), doc, func(*prepared) error {
			close(held)
			<-hold
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := one.Check(ctx, doc); !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnmergeable) {
		t.Errorf("waiting with an ended context: %v, want context.Canceled, not ErrUnmergeable", err)
	}
	close(hold)
}

// PNG predictors are undone in place for every row filter and pixel width.
func TestPNGPredictorsUndoneInPlace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ colors, bpc, columns int }{{1, 8, 7}, {3, 8, 5}, {4, 16, 3}, {1, 1, 20}} {
		p := predictor{png: true, rowLen: (tt.colors*tt.bpc*tt.columns + 7) / 8, bpp: max(1, (tt.colors*tt.bpc+7)/8)}
		var rows [][]byte
		for r := range 12 {
			row := make([]byte, p.rowLen)
			for i := range row {
				row[i] = byte(r*31 + i*17 + r*i)
			}
			rows = append(rows, row)
		}
		var encoded, want []byte
		prev := make([]byte, p.rowLen)
		for r, row := range rows {
			kind := byte(r % 5)
			encoded = append(encoded, kind)
			for i := range row {
				var left, upLeft byte
				if i >= p.bpp {
					left, upLeft = row[i-p.bpp], prev[i-p.bpp]
				}
				pred := map[byte]byte{0: 0, 1: left, 2: prev[i], 3: byte((int(left) + int(prev[i])) / 2), 4: paeth(left, prev[i], upLeft)}[kind]
				encoded = append(encoded, row[i]-pred)
			}
			want = append(want, row...)
			prev = row
		}
		encoded = append(encoded, 2, 1) // a short last row, dropped
		got, err := p.undo(encoded, "test")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt, diff)
		}
	}
}

// Check accepts what merges; reading a label allocates no more than the
// meter charged, and that is a few hundred kilobytes at most (README's
// figure for what a merge holds), mostly the two decompressors of a PDF
// 1.5 file.
func TestCheckAcceptsLabelsWithinWhatItCharges(t *testing.T) {
	for name, doc := range map[string][]byte{
		"object streams": pdftest.Label15("BT (a) Tj ET").Bytes(),
		"PDF 1.5":        buildPDF15("BT (b) Tj ET"),
		"classic": pdftest.Classic([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>", pdftest.Stream("BT (c) Tj ET")}, nil),
	} {
		b := NewBudget(0, Limits{})
		var err error
		bytes := allocated(func() { err = b.Check(t.Context(), doc) })
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		charged := b.Stats().PeakDocument
		if bytes > uint64(charged) || charged > 256<<10 {
			t.Errorf("%s: allocated %d bytes, charged %d: want the charge to cover the allocations, and at most 256 KiB", name, bytes, charged)
		}
	}
}

func ExampleBudget_Check() {
	budget := NewBudget(0, Limits{}) // one per process, shared
	err := budget.Check(context.Background(), []byte("GIF89a"))
	fmt.Println(errors.Is(err, ErrUnmergeable))
	// Output: true
}
