package fedex

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

func threePieces() carriers.Shipment {
	s := domestic()
	s.Pieces = []carriers.Parcel{s.Parcel, {WeightOz: 40}, {LengthIn: 12, WidthIn: 12, HeightIn: 12, WeightOz: 80}}
	return s
}

// A multi-piece shipment is a single-shot MPS: a line item per piece,
// numbered, with totalPackageCount and the total weight; the answer's piece
// documents come back in order, the master first, and cancelling the
// master cancels them all.
func TestGoldenShipRequestPieces(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234569", threePieces(), "Ground"))
	if err != nil {
		t.Fatalf("Buy: %v", err)
	}
	checkGolden(t, "ship_pieces.json", fake.LastRequestBody(fedexfake.OpShip))
	sold, _ := fake.Pieces(l.TrackingNumber)
	if diff := cmp.Diff(sold, l.Pieces); diff != "" || len(sold) != 3 {
		t.Errorf("pieces (-sold +label):\n%s", diff)
	}
	if len(l.PieceDocuments) != 3 {
		t.Fatalf("%d piece documents, want 3", len(l.PieceDocuments))
	}
	for i, d := range l.PieceDocuments {
		if !bytes.HasPrefix(d, []byte("%PDF")) || !bytes.Contains(d, []byte(l.Pieces[i])) {
			t.Errorf("piece %d's document is not its PDF label", i)
		}
	}
	if _, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID, Pieces: l.Pieces}); err != nil {
		t.Fatal(err)
	}
	if _, cancelled := fake.Pieces(l.TrackingNumber); !cancelled {
		t.Error("the shipment is not cancelled")
	}
}

func TestGoldenRateRequestPieces(t *testing.T) {
	t.Parallel()
	c, fake := newTestCarrier(t)
	if _, err := c.Rates(context.Background(), threePieces()); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "rate_pieces.json", fake.LastRequestBody(fedexfake.OpRate))
}
