package dpd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dpd/dpdfake"
	"github.com/shipd-dev/shipd/carriers/dpd/spec"
)

// A domestic Classic parcel, bought as a PDF on A6: the parcel id is the
// tracking number, the label DPD's.
func TestBuyDomestic(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	l, err := c.Buy(context.Background(), buyRequest(domesticShipment(), "Classic"))
	if err != nil {
		t.Fatal(err)
	}
	sales := fake.Sales("shp_0123456789abcdef01234567")
	if len(sales) != 1 || sales[0].Product != "101" || l.TrackingNumber != sales[0].ParcelIDs[0] || l.CarrierShipmentID != "" || l.Format != carriers.LabelPDF ||
		!bytes.HasPrefix(l.Document, []byte("%PDF-")) || !bytes.Contains(l.Document, []byte("/MediaBox [0 0 297.64 419.53]")) {
		t.Fatalf("label %+v of sales %+v", l.TrackingNumber, sales)
	}
	checkGolden(t, "shipment_domestic.golden.json", fake.LastRequest(dpdfake.OpShipment))
	h := fake.LastHeader(dpdfake.OpShipment)
	if !strings.HasPrefix(h.Get("Authorization"), "Bearer dpdfake-") || h.Get("X-DPD-REQUESTOR") != "shipd" {
		t.Errorf("headers %v", h)
	}
}

// The label's format and paper go in the query: ZPL, A4 from the upper
// left, A6 for 4x6.
func TestBuyFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f     carriers.LabelFormat
		size  carriers.LabelSize
		query string
	}{
		{carriers.LabelPDF, carriers.Label4x6, "LabelPaperFormat=A6&LabelPrintFormat=PDF"},
		{carriers.LabelPDF, carriers.LabelA4, "LabelPaperFormat=A4&LabelPrintFormat=PDF&LabelPrinterStartPosition=UPPER_LEFT"},
		{carriers.LabelZPL, "", "LabelPrintFormat=ZPL"},
	} {
		c, fake, _ := testCarrier(t)
		var query string
		docs, err := spec.Checker()
		if err != nil {
			t.Fatal(err)
		}
		fake.SetChecker(queryRecorder{&query, docs.DocumentedOnly()})
		req := buyRequest(domesticShipment(), "Express12")
		req.LabelFormat, req.LabelSize = tc.f, tc.size
		l, err := c.Buy(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.f, tc.size, err)
		}
		if doc, f := l.Doc(); f != req.Format() || (f == carriers.LabelZPL && !bytes.HasPrefix(doc, []byte("^XA"))) {
			t.Errorf("%s: a %s label", tc.f, f)
		}
		if query != tc.query {
			t.Errorf("%s %s: query %q, want %q", tc.f, tc.size, query, tc.query)
		}
	}
}

// queryRecorder keeps the last shipment request's query, and checks the
// exchanges against the documents as the fake does.
type queryRecorder struct {
	query *string
	docs  *spec.Documents
}

func (q queryRecorder) CheckRequest(r *http.Request, body []byte) error {
	if r.URL.Path == shipmentPath {
		*q.query = r.URL.RawQuery
	}
	return q.docs.CheckRequest(r, body)
}

func (q queryRecorder) CheckResponse(r *http.Request, status int, h http.Header, body []byte) error {
	return q.docs.CheckResponse(r, status, h, body)
}

// Three parcels are one shipment: their ids in Pieces, one label document.
func TestBuyPieces(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{kg(1), kg(2), kg(31.5)}
	s.Parcel = s.Pieces[0]
	l, err := c.Buy(context.Background(), buyRequest(s, "Classic"))
	if err != nil {
		t.Fatal(err)
	}
	sale := fake.Sales("shp_0123456789abcdef01234567")[0]
	if diff := cmp.Diff(sale.ParcelIDs, l.Pieces); diff != "" || l.TrackingNumber != sale.ParcelIDs[0] || bytes.Count(l.Document, []byte("/Type /Page\n")) != 3 {
		t.Fatalf("pieces (-sold +label):\n%s", diff)
	}
	checkGolden(t, "shipment_pieces.golden.json", fake.LastRequest(dpdfake.OpShipment))
}

// A shipment out of the customs union carries its declaration.
func TestGoldenShipmentInternational(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	if _, err := c.Buy(context.Background(), buyRequest(toLondon(), "InternationalExpress")); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "shipment_international.golden.json", fake.LastRequest(dpdfake.OpShipment))
}

// Rates answer the products of the route, unpriced, from the BU's country
// only, within DPD's limits.
func TestRates(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	rates, err := c.Rates(ctx, domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rates {
		if !r.Unpriced || r.ProductCode == "" || r.EstimatedDays < 1 || r.CarrierRateCents != 0 {
			t.Errorf("rate %+v", r)
		}
		got = append(got, r.Service+" "+r.ProductCode)
	}
	if diff := cmp.Diff([]string{"Classic 101", "Express830 350", "Express12 225", "Express18 155"}, got); diff != "" {
		t.Errorf("domestic (-want +got):\n%s", diff)
	}
	if rates, _ := c.Rates(ctx, toLondon()); len(rates) != 2 || rates[1].Service != "InternationalExpress" || rates[1].ProductCode != "302" {
		t.Errorf("to London: %+v", rates)
	}
	fromFrance := domesticShipment()
	fromFrance.From.Country = "FR"
	if rates, err := c.Rates(ctx, fromFrance); err != nil || len(rates) != 0 {
		t.Errorf("from France with DPD Germany's BU: %+v, %v", rates, err)
	}
	// Over 31.5 kg: no rate, and DPD says which limit, as its sandbox twin.
	heavy := domesticShipment()
	heavy.Parcel = kg(31.6)
	var ce *carriers.Error
	if rates, err := c.Rates(ctx, heavy); len(rates) != 0 || !errors.As(err, &ce) || !errors.Is(err, carriers.ErrRejected) ||
		ce.Code != carriers.CodeParcelTooHeavy || !strings.Contains(ce.Message, "at most 31.5 kg (69.45 lb) a parcel; this one weighs 31.6 kg") {
		t.Errorf("31.6 kg: %+v, %v", rates, err)
	}
	if n := fake.Requests(dpdfake.OpToken) + fake.Requests(dpdfake.OpShipment); n != 0 {
		t.Errorf("rates called DPD %d times", n)
	}
}

// The META-API cannot cancel: a void is refused, saying so, without a call.
func TestVoidIsRefused(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	_, err := c.Void(context.Background(), carriers.VoidRequest{TrackingNumber: "05308877770001"})
	if !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), "cannot cancel") || !strings.Contains(err.Error(), "05308877770001") {
		t.Errorf("void: %v", err)
	}
	if fake.TokenRequests() != 0 {
		t.Error("the void called DPD")
	}
}

// A pickup is scheduled with its day, window, parcels and reference; DPD's
// pickupreference confirms it; a cancel is refused.
func TestPickups(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	ready := time.Date(2026, 3, 11, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	pc, err := c.SchedulePickup(ctx, carriers.PickupRequest{Reference: "pkp_1", Address: hamburg(), ReadyAt: ready, CloseAt: ready.Add(7 * time.Hour),
		PackageCount: 2, TotalWeightOz: 80, Instructions: "Laderampe 3", TrackingNumbers: []string{"05308877770001", "05308877770002"}})
	if err != nil || pc.ConfirmationNumber != "PU00000001" {
		t.Fatalf("pickup %+v, %v", pc, err)
	}
	want := []dpdfake.Pickup{{Reference: "pkp_1", Date: "2026-03-11", FromTime: "09:30", ToTime: "16:30", NumberOfParcels: 2,
		ParcelNumbers: []string{"05308877770001", "05308877770002"}}}
	if diff := cmp.Diff(want, fake.Pickups()); diff != "" {
		t.Errorf("pickups (-want +got):\n%s", diff)
	}
	checkGolden(t, "pickupscheduling.golden.json", fake.LastRequest(dpdfake.OpPickup))
	if err := c.CancelPickup(ctx, carriers.PickupCancelRequest{ConfirmationNumber: pc.ConfirmationNumber}); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("cancel: %v", err)
	}
	fake.Fail(dpdfake.OpPickup, dpdfake.Failure{Status: 200, Body: `{"scheduledPickupResponse":[{"statusCode":"E102","statusDescription":"No pickup possible on this date"}]}`})
	_, err = c.SchedulePickup(ctx, carriers.PickupRequest{Address: hamburg(), ReadyAt: ready, PackageCount: 1})
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || ce.Code != "E102" || ce.Message != "No pickup possible on this date" {
		t.Errorf("refused pickup: %#v", ce)
	}
}

func TestMultiPieceService(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	if !c.MultiPieceService("Classic") || !c.MultiPieceService("Express830") || c.MultiPieceService("Parcel") {
		t.Error("MultiPieceService: DPD's products, nothing else")
	}
}
