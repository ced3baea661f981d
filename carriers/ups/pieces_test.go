package ups

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// threePieces is the domestic shipment in three boxes.
func threePieces() carriers.Shipment {
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{s.Parcel, {WeightOz: 40}, {LengthIn: 12, WidthIn: 12, HeightIn: 12, WeightOz: 80}}
	return s
}

// A multi-piece shipment is one ShipmentRequest with a Package per piece,
// each with its own weight and dimensions and the shipment's reference.
func TestGoldenShipRequestPieces(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(threePieces(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "ship_request_pieces.golden.json", fake.LastRequest(upsfake.OpShip))

	pieces, voided := fake.Pieces(l.TrackingNumber)
	if diff := cmp.Diff(pieces, l.Pieces); diff != "" || len(pieces) != 3 || voided {
		t.Errorf("pieces sold (-fake +label), voided %v:\n%s", voided, diff)
	}
	if l.Pieces[0] != l.TrackingNumber {
		t.Errorf("first piece %s is not the master %s", l.Pieces[0], l.TrackingNumber)
	}
	doc, f := l.Doc()
	if m := regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`).FindSubmatch(doc); f != carriers.LabelPDF || m == nil || string(m[1]) != "3" {
		t.Errorf("label %s with page count %s, want a PDF of 3", f, m)
	}

	// Voiding the shipment voids every package.
	if _, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID, Reference: "shp_pieces", Pieces: l.Pieces}); err != nil {
		t.Fatal(err)
	}
	if _, voided := fake.Pieces(l.TrackingNumber); !voided {
		t.Error("the shipment is not void")
	}
}

func TestGoldenRateRequestPieces(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Rates(context.Background(), threePieces()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "rate_request_pieces.golden.json", fake.LastRequest(upsfake.OpRate))
}

func TestBuyPiecesZPL(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	req := buyRequest(threePieces(), "Ground")
	req.LabelFormat = carriers.LabelZPL
	l, err := c.Buy(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	doc, f := l.Doc()
	if n := bytes.Count(doc, []byte("^XA")); f != carriers.LabelZPL || n != 3 {
		t.Errorf("%s document with %d labels, want ZPL with 3", f, n)
	}
	for _, tn := range l.Pieces {
		if !bytes.Contains(doc, []byte(tn)) {
			t.Errorf("ZPL lacks piece %s", tn)
		}
	}
}

// The Track answer for a multi-piece shipment's master lists its other
// packages too: their scans come with the master's, oldest first, each
// named by its package.
func TestTrackPieces(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(threePieces(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	var u carriers.TrackingUpdate
	for range 2 { // the fake shows the origin scans from its second answer
		if u, err = c.Track(context.Background(), l.TrackingNumber); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range u.Events {
		got = append(got, e.TrackingNumber+" "+e.Message)
	}
	want := []string{
		" Shipper created a label, UPS has not received the package yet.",
		" Origin Scan",
		l.Pieces[1] + " Origin Scan",
		l.Pieces[2] + " Origin Scan",
		" Departed from Facility",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events, oldest first (-want +got):\n%s", diff)
	}
	if u.Status != carriers.StatusInTransit {
		t.Errorf("status %s, want the master's in_transit", u.Status)
	}
}
