package server_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
)

// hugeImage is a uniform image of any size that takes no memory.
type hugeImage struct {
	*image.Uniform
	rect image.Rectangle
}

func (h hugeImage) Bounds() image.Rectangle { return h.rect }
func (h hugeImage) ColorModel() color.Model { return color.NRGBA64Model }

// A live UPS purchase whose label image is a 4000×3999 16-bit RGBA PNG (a
// 124 KB answer that would decode to 122 MiB) fails with a clear message
// instead of being decoded.
func TestLiveLabelImageBombFailsThePurchase(t *testing.T) {
	t.Parallel()
	var bomb bytes.Buffer
	img := hugeImage{image.NewUniform(color.NRGBA64{R: 0x1234, A: 0x8000}), image.Rect(0, 0, 4000, 3999)}
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&bomb, img); err != nil {
		t.Fatal(err)
	}
	b, f, live := setupLive(t)
	f.ups.SetLabelImage(bomb.Bytes())
	sh := createLabel(t, b, live, liveBody(withField("carrier", "UPS"), withField("service", "Ground")))
	sh = waitForStatus(t, b, live, sh.ID, "failed")
	const want = "the carrier's label image is 4000×3999 pixels, larger than any label"
	if msg := sh.str(sh.ErrorMessage); !strings.Contains(msg, want) {
		t.Fatalf("errorMessage %q, want it to say %q", msg, want)
	}
	// UPS sold that label: it is voided, once, and the audit log says so.
	waitUntil(t, "UPS's label voided", func() bool {
		sales := f.ups.Sales(sh.ID)
		return len(sales) == 1 && sales[0].Voided
	})
	waitUntil(t, "the void in the audit log", func() bool {
		return cmp.Equal([]string{labeljobs.AuditUnusableVoided}, auditActions(t, b, "live", sh.ID))
	})
	if ships, voids := f.ups.Requests(upsfake.OpShip), f.ups.Requests(upsfake.OpVoid); ships != 1 || voids != 1 {
		t.Errorf("UPS saw %d ship and %d void requests, want one each", ships, voids)
	}
	noCharge(t, b)
}
