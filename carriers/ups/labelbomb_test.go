package ups

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// testLabelPDF converts a label image as Buy does, with the default label
// memory.
func testLabelPDF(img []byte, now time.Time, trackingNumber string) ([]byte, error) {
	c := &Carrier{cfg: Config{Now: func() time.Time { return now }, LabelMemory: carriers.NewLabelMemory(0)}}
	return c.labelPDF(context.Background(), 200, img, trackingNumber)
}

// sized is a uniform image of any size that takes no memory: the encoders
// read it pixel by pixel, so a huge image costs only its compressed bytes.
type sized struct {
	*image.Uniform
	rect  image.Rectangle
	model color.Model
}

func (s sized) Bounds() image.Rectangle { return s.rect }
func (s sized) ColorModel() color.Model { return s.model }

// bombPNG is a w×h PNG of 16-bit RGBA pixels (half transparent, so the
// encoder keeps the alpha channel): a uniform image compresses to a few
// hundred kilobytes, and decoded it is w*h*8 bytes.
func bombPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	img := sized{image.NewUniform(color.NRGBA64{R: 0x1234, G: 0x5678, B: 0x9abc, A: 0x8000}), image.Rect(0, 0, w, h), color.NRGBA64Model}
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombGIF is a w×h one-frame GIF of one color.
func bombGIF(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black})
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated is how many bytes f allocates. The tests that call it do not
// run in parallel, so the count is f's alone.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An image whose header declares more pixels than any label is refused from
// its header: converting it allocates next to nothing, where decoding the
// 4000×3999 16-bit PNG would allocate 122 MiB. Not parallel: it measures
// the process's allocations.
func TestLabelImageBombRefusedBeforeDecoding(t *testing.T) {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		img        []byte
	}{
		{"16-bit RGBA PNG", "the carrier's label image is 4000×3999 pixels, larger than any label", bombPNG(t, 4000, 3999)},
		{"GIF", "the carrier's label image is 4000×3999 pixels, larger than any label", bombGIF(t, 4000, 3999)},
		{"tall PNG", "the carrier's label image is 1000×2500 pixels, larger than any label", bombPNG(t, 1000, 2500)},
		{"square PNG", "the carrier's label image is 1900×1900 pixels, larger than any label", bombPNG(t, 1900, 1900)},
		// JPEG (and TIFF, which no decoder here reads) are never decoded.
		{"JPEG", "the carrier's label image is jpeg, not [gif png]", jpg.Bytes()},
		{"more bytes than a label", "larger than any label (at most 4194304)", make([]byte, carriers.MaxLabelBytes+1)},
	} {
		var err error
		n := allocated(func() { _, err = testLabelPDF(c.img, testNow(), "1Z") })
		var ce *carriers.Error
		if !errors.As(err, &ce) || !errors.Is(err, carriers.ErrFailed) || !strings.Contains(ce.Message, c.want) {
			t.Errorf("%s: %v, want ErrFailed with %q", c.name, err, c.want)
		}
		if n > 1<<20 {
			t.Errorf("%s: refusing the image allocated %d KiB", c.name, n>>10)
		}
	}
}

// Images as large as allowed still convert, and a conversion allocates no
// more than the label memory it takes (Cost): the budget bounds what
// conversions really hold. Not parallel: it measures the process's
// allocations.
func TestLabelCostBoundsConversion(t *testing.T) {
	for _, c := range []struct {
		name string
		img  []byte
	}{
		{"UPS GIF 1400×800", bombGIF(t, 1400, 800)},
		{"largest GIF", bombGIF(t, carriers.MaxLabelImageLong, carriers.MaxLabelImageShort)},
		{"largest 16-bit RGBA PNG", bombPNG(t, carriers.MaxLabelImageShort, carriers.MaxLabelImageLong)},
		{"largest landscape 16-bit RGBA PNG", bombPNG(t, carriers.MaxLabelImageLong, carriers.MaxLabelImageShort)},
	} {
		info, err := carriers.CheckLabelImage(c.img, "gif", "png")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var pdf []byte
		n := allocated(func() { pdf, err = convertLabel(c.img, info, testNow(), "1Z") })
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: %d KiB allocated, cost %d KiB", c.name, n>>10, info.Cost()>>10)
		if n > uint64(info.Cost()) {
			t.Errorf("%s: the conversion allocated %d KiB, more than its cost %d KiB", c.name, n>>10, info.Cost()>>10)
		}
	}
}

// Sixteen purchases converting labels at once hold no more label memory than
// the budget, which here admits two conversions at a time: the others wait
// their turn, and all of them get their label.
func TestLabelMemoryBoundsConcurrentConversions(t *testing.T) {
	t.Parallel()
	img := bombGIF(t, 1400, 800)
	info, err := carriers.CheckLabelImage(img, "gif")
	if err != nil {
		t.Fatal(err)
	}
	mem := carriers.NewLabelMemory(2*info.Cost() + info.Cost()/2)
	c := &Carrier{cfg: Config{Now: testNow, LabelMemory: mem}}
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() {
			pdf, err := c.labelPDF(t.Context(), 200, img, "1Z")
			if err == nil && !bytes.HasPrefix(pdf, []byte("%PDF")) {
				err = errors.New("not a PDF")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if peak := mem.Peak(); peak > mem.Budget() || peak < info.Cost() {
		t.Fatalf("peak label memory %d, want between one conversion (%d) and the budget (%d)", peak, info.Cost(), mem.Budget())
	}
}

// A conversion waiting for label memory gives up when its purchase's
// context ends, with the context's error (the purchase runs again), and an
// image that alone needs more than the whole budget fails at once instead
// of waiting for ever.
func TestLabelMemoryWait(t *testing.T) {
	t.Parallel()
	img := bombGIF(t, 1400, 800)
	info, err := carriers.CheckLabelImage(img, "gif")
	if err != nil {
		t.Fatal(err)
	}
	mem := carriers.NewLabelMemory(info.Cost())
	c := &Carrier{cfg: Config{Now: testNow, LabelMemory: mem}}
	release, err := mem.Acquire(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.labelPDF(ctx, 200, img, "1Z"); !errors.Is(err, context.Canceled) || errors.Is(err, carriers.ErrFailed) {
		t.Fatalf("waiting with an ended context: %v, want context.Canceled", err)
	}
	release()
	if _, err := c.labelPDF(t.Context(), 200, img, "1Z"); err != nil {
		t.Fatalf("with the budget free: %v", err)
	}

	small := &Carrier{cfg: Config{Now: testNow, LabelMemory: carriers.NewLabelMemory(info.Cost() - 1)}}
	if _, err := small.labelPDF(t.Context(), 200, img, "1Z"); !errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), carriers.ErrLabelMemory.Error()) {
		t.Fatalf("an image larger than the budget: %v, want ErrFailed", err)
	}
}

// A ship answer whose label image is a bomb fails the purchase with a clear
// message, through the whole Buy against the fake UPS.
func TestBuyRefusesALabelImageBomb(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	fake.SetLabelImage(bombPNG(t, 4000, 3999))
	_, err := c.Buy(t.Context(), buyRequest(domesticShipment(), "Ground"))
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrFailed) || ce.Operation != opBuy ||
		!strings.Contains(ce.Message, "the carrier's label image is 4000×3999 pixels, larger than any label") {
		t.Fatalf("Buy with a 4000×3999 label image: %v", err)
	}
}
