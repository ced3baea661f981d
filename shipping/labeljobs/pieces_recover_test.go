package labeljobs

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/shipping"
)

// A rescued multi-piece UPS purchase: UPS Label Recovery gives the first
// package's label alone, so the shipment sold to the interrupted attempt is
// voided (every package with it) and bought again, never adopted with one
// label for three boxes.
func TestRescuedMultiPiecePurchaseVoidsAndBuysAgain(t *testing.T) {
	t.Parallel()
	b := setupLiveWorkers(t)
	carrier := "UPS"
	in := shipping.NewLabel{Input: shipping.Input{
		From: shipping.Address{Name: ptr("Sender"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105",
			Country: "US", Phone: ptr("4155550100")},
		To: shipping.Address{Name: ptr("Recipient"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118",
			Country: "US", Phone: ptr("2125550199")},
		Parcels: []shipping.Parcel{{WeightOz: new(float64(16))}, {WeightOz: new(float64(24))}, {WeightOz: new(float64(40))}},
	}, Selection: shipping.Selection{Carrier: &carrier, Service: ptr("Ground")}}
	sh, _, err := b.svc.Create(context.Background(), b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	sales := salesOf(b.ups.Sales, sh.ID)
	b.interruptPurchase(t, sh.ID, sales, b.ups.HoldShips, b.ups.ReleaseShips)
	first := sales()[0].TrackingNumber

	if err := b.lj.purchase(context.Background(), sh.ID, 0); err != nil {
		t.Fatal(err)
	}
	got, err := b.svc.Get(context.Background(), b.caller, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := sales()
	if len(all) != 2 || got.Status != "purchased" || got.TrackingNumber == nil || len(got.Packages) != 3 {
		t.Fatalf("after the rescue: %s with %v and %d packages; UPS sales %+v", got.Status, got.TrackingNumber, len(got.Packages), all)
	}
	if d := cmp.Diff([]sale{{TrackingNumber: first, Voided: true}, {TrackingNumber: *got.TrackingNumber}}, all); d != "" {
		t.Errorf("UPS sales for %s (-want +got):\n%s", sh.ID, d)
	}
	if d := cmp.Diff([]string{"shipd purchase.orphan_voided " + sh.ID + " " + first}, b.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}
