package carriers

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"slices"
	"sync"

	"golang.org/x/sync/semaphore"
)

// Bounds on the label documents a carrier answers. A 4x6 inch label at
// 300 dpi is 1200x1800 dots and a 4x8 one 1200x2400; UPS's GIF labels are
// 1400x800 (a 4x7 label with its doc tab, at 200 dpi, lying on its side),
// the fake's 1200x800. The bounds allow the largest of these either way
// round with room to spare, and refuse what no label printer prints: an
// image of 4000x3999 16-bit RGBA pixels is 124 KB of PNG but 122 MiB once
// decoded.
const (
	// MaxLabelImageLong is the most pixels along an image's longer side.
	MaxLabelImageLong = 2400
	// MaxLabelImageShort is the most pixels along its shorter side.
	MaxLabelImageShort = 1800
	// MaxLabelBytes bounds a label document as received (a PDF, or an image
	// before decoding, after base64). Carriers' 4x6 PDFs are tens of
	// kilobytes, a customs set a few hundred.
	MaxLabelBytes = 4 << 20
	// DefaultLabelMemory is the budget of a LabelMemory made with 0: room
	// for one conversion of the largest image allowed (a 2400x1800 16-bit
	// RGBA PNG, 66 MiB) or ten of UPS's 1400x800 GIFs (9.6 MiB each) at
	// once, where 64 purchase workers converting unbounded could hold
	// gigabytes.
	DefaultLabelMemory = 96 << 20
)

// LabelImage is what an image's header declares, read without decoding
// any pixel.
type LabelImage struct {
	Format        string // as image.DecodeConfig names it: "gif", "png", ...
	Width, Height int
	// BytesPerPixel is what the decoder allocates per pixel for this image
	// (1 for a paletted GIF, 8 for a 16-bit RGBA PNG).
	BytesPerPixel int
}

// conversionBytesPerPixel is the working memory of a conversion per pixel
// on top of the decoded image: a grey or paletted copy, its quarter turn,
// the PNG re-encoding and the PDF writer's copies of it. TestLabelCost in
// carriers/ups checks that the allocations of a conversion stay within
// Cost.
const conversionBytesPerPixel = 8

// Cost is the memory, in bytes, a conversion of the image may hold at
// once: the decoded pixels and the conversion's working copies.
func (i LabelImage) Cost() int64 {
	return int64(i.Width) * int64(i.Height) * int64(i.BytesPerPixel+conversionBytesPerPixel)
}

// CheckLabelImage reads the header of a label image (image.DecodeConfig,
// which allocates no pixels) and refuses one whose format is not among
// formats or which is larger than any label could be, before anything
// decodes it. The image formats must be registered by the caller (import
// image/gif, image/png).
func CheckLabelImage(data []byte, formats ...string) (LabelImage, error) {
	if err := CheckLabelBytes(len(data)); err != nil {
		return LabelImage{}, err
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return LabelImage{}, fmt.Errorf("the carrier's label image is not a readable image: %w", err)
	}
	if !slices.Contains(formats, format) {
		return LabelImage{}, fmt.Errorf("the carrier's label image is %s, not %v", format, formats)
	}
	img := LabelImage{Format: format, Width: cfg.Width, Height: cfg.Height, BytesPerPixel: bytesPerPixel(cfg.ColorModel)}
	long, short := max(cfg.Width, cfg.Height), min(cfg.Width, cfg.Height)
	if short <= 0 {
		return LabelImage{}, fmt.Errorf("the carrier's label image is %d×%d pixels, an empty image", cfg.Width, cfg.Height)
	}
	if long > MaxLabelImageLong || short > MaxLabelImageShort {
		return LabelImage{}, fmt.Errorf("the carrier's label image is %d×%d pixels, larger than any label (at most %d×%d)",
			cfg.Width, cfg.Height, MaxLabelImageLong, MaxLabelImageShort)
	}
	return img, nil
}

// CheckLabelBase64 refuses a label document whose standard, padded base64
// (without white space) decodes to more than MaxLabelBytes, before it is
// decoded.
func CheckLabelBase64[T ~string | ~[]byte](encoded T) error {
	n := base64.StdEncoding.DecodedLen(len(encoded))
	for i := len(encoded) - 1; i >= 0 && i >= len(encoded)-2 && encoded[i] == '='; i-- {
		n--
	}
	return CheckLabelBytes(n)
}

// CheckLabelBytes refuses a label document of n bytes, larger than any
// label, before it is decoded or stored.
func CheckLabelBytes(n int) error {
	if n > MaxLabelBytes {
		return fmt.Errorf("the carrier's label is %d bytes, larger than any label (at most %d)", n, MaxLabelBytes)
	}
	return nil
}

// bytesPerPixel is what the standard decoders allocate per pixel for a
// color model; an unknown model counts as the largest, 16-bit RGBA.
func bytesPerPixel(m color.Model) int {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	return 8
}

// LabelMemory bounds the memory label conversions hold at once across every
// purchase running concurrently: a conversion acquires its image's Cost
// before it decodes anything and releases it when done, and waits (as long
// as its context allows) while others hold the budget. It is safe for
// concurrent use.
type LabelMemory struct {
	budget int64
	sem    *semaphore.Weighted

	mu         sync.Mutex
	held, peak int64
}

// NewLabelMemory returns a budget of the given bytes, DefaultLabelMemory
// when budget is 0 or less.
func NewLabelMemory(budget int64) *LabelMemory {
	if budget <= 0 {
		budget = DefaultLabelMemory
	}
	return &LabelMemory{budget: budget, sem: semaphore.NewWeighted(budget)}
}

// ErrLabelMemory is wrapped by Acquire when a single image costs more than
// the whole budget: waiting would never end.
var ErrLabelMemory = errors.New("label image larger than the label memory budget")

// Acquire takes n bytes of the budget, waiting while others hold it, and
// returns the function that gives them back. It fails with the context's
// error when the context ends first.
func (m *LabelMemory) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if n > m.budget {
		return nil, fmt.Errorf("%w: it needs %.1f MiB, the budget is %.1f MiB", ErrLabelMemory, float64(n)/(1<<20), float64(m.budget)/(1<<20))
	}
	n = max(n, 1)
	if err := m.sem.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("waiting for label memory: %w", err)
	}
	m.mu.Lock()
	m.held += n
	m.peak = max(m.peak, m.held)
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.held -= n
			m.mu.Unlock()
			m.sem.Release(n)
		})
	}, nil
}

// Budget is the bytes the conversions may hold at once.
func (m *LabelMemory) Budget() int64 { return m.budget }

// Peak is the most bytes held at once so far (tests, metrics).
func (m *LabelMemory) Peak() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

// MaxZPLBytes bounds a ZPL label as received: ZPL is text a printer runs,
// a 4x6 label a few kilobytes of it (graphics fields included, tens of
// kilobytes), so a megabyte is no label.
const MaxZPLBytes = 1 << 20

// CheckZPL refuses a carrier's ZPL document that is larger than any label
// or does not start a label format (^XA, after any white space).
func CheckZPL(data []byte) error {
	if len(data) > MaxZPLBytes {
		return fmt.Errorf("the carrier's ZPL label is %d bytes, larger than any label (at most %d)", len(data), MaxZPLBytes)
	}
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("^XA")) {
		return errors.New("the carrier's ZPL label does not start with ^XA")
	}
	return nil
}
