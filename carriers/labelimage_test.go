package carriers_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

func gifOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black}), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Labels either way round up to the bounds pass; one pixel more on either
// side does not, nor does an empty image.
func TestCheckLabelImage(t *testing.T) {
	t.Parallel()
	long, short := carriers.MaxLabelImageLong, carriers.MaxLabelImageShort
	for _, c := range []struct {
		w, h int
		ok   bool
	}{
		{1400, 800, true}, {800, 1400, true}, {1200, 1800, true}, {long, short, true}, {short, long, true},
		{long + 1, short, false}, {short, long + 1, false}, {short + 1, short + 1, false}, {4000, 3999, false},
	} {
		info, err := carriers.CheckLabelImage(gifOf(t, c.w, c.h), "gif")
		if (err == nil) != c.ok {
			t.Errorf("%d×%d: %v, want ok=%v", c.w, c.h, err, c.ok)
			continue
		}
		if c.ok && (info.Width != c.w || info.Height != c.h || info.BytesPerPixel != 1 || info.Format != "gif") {
			t.Errorf("%d×%d: %+v", c.w, c.h, info)
		}
		if !c.ok && !strings.Contains(err.Error(), "larger than any label") {
			t.Errorf("%d×%d: %v", c.w, c.h, err)
		}
	}
	if _, err := carriers.CheckLabelImage(gifOf(t, 10, 10), "png"); err == nil || !strings.Contains(err.Error(), "is gif, not [png]") {
		t.Errorf("a GIF where only PNG is taken: %v", err)
	}
}

// The default budget admits a conversion of the largest image allowed, so
// no image that passes CheckLabelImage waits for ever.
func TestDefaultLabelMemoryAdmitsTheLargestImage(t *testing.T) {
	t.Parallel()
	largest := carriers.LabelImage{Width: carriers.MaxLabelImageLong, Height: carriers.MaxLabelImageShort, BytesPerPixel: 8}
	if cost := largest.Cost(); cost > carriers.NewLabelMemory(0).Budget() {
		t.Fatalf("the largest image costs %d bytes, more than the default budget %d", cost, carriers.DefaultLabelMemory)
	}
}

// Goroutines taking parts of the budget never hold more than the budget
// together, as counted by the holders themselves.
func TestLabelMemoryNeverExceedsTheBudget(t *testing.T) {
	t.Parallel()
	const budget = 100
	mem := carriers.NewLabelMemory(budget)
	var held, most atomic.Int64
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for j := range 20 {
				n := int64(1 + (i*7+j*13)%60)
				release, err := mem.Acquire(context.Background(), n)
				if err != nil {
					t.Error(err)
					return
				}
				now := held.Add(n)
				for {
					m := most.Load()
					if now <= m || most.CompareAndSwap(m, now) {
						break
					}
				}
				runtime.Gosched()
				held.Add(-n)
				release()
				release() // a second call gives nothing back twice
			}
		})
	}
	wg.Wait()
	if m := most.Load(); m > budget || m == 0 {
		t.Fatalf("held %d bytes at most, budget %d", m, budget)
	}
	if p := mem.Peak(); p > budget {
		t.Fatalf("Peak %d, budget %d", p, budget)
	}
	if _, err := mem.Acquire(context.Background(), budget+1); !errors.Is(err, carriers.ErrLabelMemory) {
		t.Fatalf("more than the budget: %v", err)
	}
}
