package ups

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// FindPurchase recovers the label sold under the reference, document
// included, and answers not found for a reference nothing was sold under;
// UPS unavailable is ErrUnavailable, not "nothing sold".
func TestFindPurchaseRecoversTheLabel(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	req := buyRequest(domesticShipment(), "Ground")

	if l, found, err := c.FindPurchase(ctx, req); err != nil || found {
		t.Fatalf("before any sale: %+v %v %v, want not found", l, found, err)
	}
	sold, err := c.Buy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	l, found, err := c.FindPurchase(ctx, req)
	if err != nil || !found || l.TrackingNumber != sold.TrackingNumber || !bytes.HasPrefix(l.Document, []byte("%PDF")) {
		t.Fatalf("after the sale: %s (%d bytes) %v %v, want %s with its PDF", l.TrackingNumber, len(l.Document), found, err, sold.TrackingNumber)
	}
	fake.FailNext(upsfake.OpRecover, http.StatusServiceUnavailable, upsfake.ErrorBody("190001", "The service is temporarily unavailable"))
	if _, _, err := c.FindPurchase(ctx, req); !errors.Is(err, carriers.ErrUnavailable) {
		t.Fatalf("UPS unavailable: %v, want ErrUnavailable", err)
	}
	checkGolden(t, "label_recovery.json", fake.LastRequest(upsfake.OpRecover))
}
