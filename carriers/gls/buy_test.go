package gls

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
)

// A domestic parcel bought as a PDF: its parcel number is the tracking
// number, its TrackID the carrier's id, the label GLS's PDF.
func TestBuyDomesticPDF(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Parcel"))
	if err != nil {
		t.Fatal(err)
	}
	sales := fake.Sales("shp_0123456789abcdef01234567")
	if len(sales) != 1 {
		t.Fatalf("sales %+v", sales)
	}
	want := carriers.Label{TrackingNumber: sales[0].ParcelNumber, CarrierShipmentID: sales[0].TrackID, Format: carriers.LabelPDF}
	got := l
	got.Document = nil
	if diff := cmp.Diff(want, got); diff != "" || !bytes.HasPrefix(l.Document, []byte("%PDF-")) {
		t.Fatalf("label (-want +got):\n%s (document %.8q)", diff, l.Document)
	}
	if !bytes.Contains(l.Document, []byte(sales[0].ParcelNumber)) {
		t.Error("the PDF does not carry the parcel number")
	}
}

// Three pieces are one shipment of three ShipmentUnits: a label per
// parcel, in piece order, every TrackID kept.
func TestBuyPieces(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{kg(1), kg(2), kg(39.5)}
	s.Parcel = s.Pieces[0]
	l, err := c.Buy(context.Background(), buyRequest(s, "Parcel"))
	if err != nil {
		t.Fatal(err)
	}
	sales := fake.Sales("shp_0123456789abcdef01234567")
	var numbers, ids []string
	for _, s := range sales {
		numbers, ids = append(numbers, s.ParcelNumber), append(ids, s.TrackID)
	}
	if diff := cmp.Diff(numbers, l.Pieces); diff != "" || l.TrackingNumber != numbers[0] || l.CarrierShipmentID != strings.Join(ids, ",") {
		t.Fatalf("pieces (-sold +label):\n%s; label %s %s", diff, l.TrackingNumber, l.CarrierShipmentID)
	}
	if len(l.PieceDocuments) != 3 || l.Document != nil {
		t.Fatalf("%d piece documents, document %d bytes", len(l.PieceDocuments), len(l.Document))
	}
	checkGolden(t, "shipments_pieces.golden.json", fake.LastRequest(glsfake.OpShip))
}

// ZPL is asked as ZEBRA with the 203 dpi template; PNG as PNG.
func TestBuyFormats(t *testing.T) {
	t.Parallel()
	for _, f := range []carriers.LabelFormat{carriers.LabelZPL, carriers.LabelPNG} {
		c, _, _ := testCarrier(t)
		req := buyRequest(domesticShipment(), "Express")
		req.LabelFormat = f
		l, err := c.Buy(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		doc, format := l.Doc()
		if format != f || (f == carriers.LabelZPL && !bytes.HasPrefix(doc, []byte("^XA"))) || (f == carriers.LabelPNG && !bytes.HasPrefix(doc, []byte("\x89PNG"))) {
			t.Errorf("%s: a %s label of %.8q", f, format, doc)
		}
	}
}

func TestGoldenShipmentDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Parcel")); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "shipments_domestic.golden.json", fake.LastRequest(glsfake.OpShip))
}

func TestGoldenShipmentSwitzerland(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	req := buyRequest(switzerland(), "Parcel")
	req.LabelFormat = carriers.LabelZPL
	if _, err := c.Buy(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "shipments_switzerland_zpl.golden.json", fake.LastRequest(glsfake.OpShip))
}
