package dhlparcelde

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// The golden files under testdata/ are the exact requests sent to DHL
// (indented); regenerate them with
//
//	go test ./carriers/dhlparcelde/ -run Golden -update
//
// and review the diff: it is the wire format change.

func goldenBuy(t *testing.T, name string, req carriers.BuyRequest, op string) {
	t.Helper()
	c, fake := testCarrier(t)
	if _, err := c.Buy(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, name, fake.LastRequest(op))
}

// DHL Paket within Germany, signed for by the recipient: the street
// parted from the house number, the second street line as
// additionalAddressInformation1, no consignee phone (not transmitted
// within Germany), the shipper without one (the document has none).
func TestGoldenOrderDomestic(t *testing.T) {
	t.Parallel()
	s := domesticShipment()
	s.Options.SignatureConfirmation = true
	goldenBuy(t, "order_domestic.golden.json", buyRequest(s, "Paket"), dhlparceldefake.OpOrder)
}

// Kleinpaket: its own procedure (62) in the billing number.
func TestGoldenOrderKleinpaket(t *testing.T) {
	t.Parallel()
	s := domesticShipment()
	s.Parcel = carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 480.5, LengthCm: 25, WidthCm: 17.6, HeightCm: 3})
	goldenBuy(t, "order_kleinpaket.golden.json", buyRequest(s, "Kleinpaket"), dhlparceldefake.OpOrder)
}

// Europaket to a French business: the house number before the street,
// the consignee's phone sent abroad, no customs within the EU.
func TestGoldenOrderEU(t *testing.T) {
	t.Parallel()
	goldenBuy(t, "order_eu.golden.json", buyRequest(euShipment(), "Europaket"), dhlparceldefake.OpOrder)
}

// Paket International to Switzerland: the CN23's lines at unit value and
// weight, in euros and grams, the export reference, the endorsement.
func TestGoldenOrderCustoms(t *testing.T) {
	t.Parallel()
	goldenBuy(t, "order_customs.golden.json", buyRequest(swissShipment(), "PaketInternational"), dhlparceldefake.OpOrder)
}

// A DHL Retoure label from Vienna: receiverId aut, the customer's house
// number parted, the reference twice.
func TestGoldenReturnOrder(t *testing.T) {
	t.Parallel()
	goldenBuy(t, "return_order.golden.json", buyRequest(returnShipment(), "Retoure"), dhlparceldefake.OpReturn)
}

// A DHL Retoure label from Zürich carries its customs lines.
func TestGoldenReturnOrderCustoms(t *testing.T) {
	t.Parallel()
	s := returnShipment()
	s.From = zurich()
	s.Customs = swissShipment().Customs
	goldenBuy(t, "return_order_customs.golden.json", buyRequest(s, "Retoure"), dhlparceldefake.OpReturn)
}

// The closeout names the labels' shipments, not the return labels.
func TestGoldenCloseout(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	var labels []carriers.ManifestLabel
	for _, req := range []carriers.BuyRequest{buyRequest(domesticShipment(), "Paket"), buyRequest(euShipment(), "PaketInternational"),
		buyRequest(returnShipment(), "Retoure")} {
		l, err := c.Buy(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, carriers.ManifestLabel{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID})
	}
	if _, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_0123456789abcdef01234567", From: bonn(), Labels: labels}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "closeout.golden.json", fake.LastRequest(dhlparceldefake.OpCloseout))
}

// A pickup at the shop, tomorrow from 9 to 17, of the two labels named.
func TestGoldenPickup(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	_, err := c.SchedulePickup(context.Background(), carriers.PickupRequest{Reference: "pkp_0123456789abcdef01234567",
		Address: bonn(), ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 2, TotalWeightOz: 90,
		Instructions: "Bitte am Lieferanteneingang klingeln", TrackingNumbers: []string{"00340434160000000001", "00340434160000000002"}})
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "pickup.golden.json", fake.LastRequest(dhlparceldefake.OpPickup))
}
