package dhlexpress

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

// A purchase whose answer was lost is found by its reference (CU) within
// the account's shipments: the waybill and its pieces, without a document
// (DHL gives none again); a reference never sold, or another account's,
// finds nothing.
func TestFindPurchase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := newTestCarrier(t)
	req := buyRequest("shp_0123456789abcdef01234540", threePieces(), "ExpressWorldwideEU", "EUR")
	fake.HoldShips()
	done := make(chan error, 1)
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		_, err := c.Buy(cctx, req)
		done <- err
	}()
	for fake.Held(dhlexpressfake.OpShip) == 0 {
		select {
		case err := <-done:
			t.Fatalf("the purchase returned before its answer was held: %v", err)
		default:
		}
	}
	cancel() // the answer is lost
	<-done
	fake.ReleaseShips()
	found, ok, err := c.FindPurchase(ctx, req)
	if err != nil || !ok {
		t.Fatalf("FindPurchase: %v, %v", ok, err)
	}
	sold := fake.Sales(req.Reference)
	if len(sold) != 1 {
		t.Fatalf("DHL sold %+v", sold)
	}
	if d := cmp.Diff(carriers.Label{TrackingNumber: sold[0].Waybill, Pieces: sold[0].Pieces}, found); d != "" {
		t.Errorf("found (-sold +found):\n%s", d)
	}
	q := string(fake.LastRequest(dhlexpressfake.OpTrack))
	if q != "dateRangeFrom=2026-02-17&dateRangeTo=2026-03-04&levelOfDetail=piece&shipmentReference=shp_0123456789abcdef01234540&shipmentReferenceType=CU&shipperAccountNumber=951234567&trackingView=shipment-details-only" {
		t.Errorf("asked %s", q)
	}
	if _, ok, err := c.FindPurchase(ctx, buyRequest("shp_0123456789abcdef01234541", domestic(), "DomesticExpress", "EUR")); err != nil || ok {
		t.Errorf("a purchase never made: %v, %v", ok, err)
	}
	// Another DHL customer's credentials and account see nothing of it.
	fake.AddClient("other-user", "other-password", "987654321")
	other, err := New(Config{Username: "other-user", Password: "other-password", AccountNumber: "987654321", BaseURL: fake.BaseURL(), Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := other.FindPurchase(ctx, req); err != nil || ok {
		t.Errorf("another account: %v, %v", ok, err)
	}
	fake.FailNext(dhlexpressfake.OpTrack, http.StatusInternalServerError, dhlexpressfake.ErrorBody(500, "999: Process failure occurred"))
	if _, _, err := c.FindPurchase(ctx, req); err == nil {
		t.Error("DHL failing found nothing instead of failing")
	}
}
