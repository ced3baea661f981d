package gls

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
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
)

// Rates answer the products ShipIT allows on the route, unpriced, with
// their product codes; Express is not allowed to Switzerland, and a
// parcel over 40 kg gets no rate but the limit it is past.
func TestRatesAreTheAllowedProductsUnpriced(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	rates, err := c.Rates(ctx, domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	want := []carriers.Rate{
		{Carrier: "GLS", Service: "Parcel", ServiceCategory: carriers.CategoryStandard, EstimatedDays: 2, ProductCode: "PARCEL", Unpriced: true},
		{Carrier: "GLS", Service: "Express", ServiceCategory: carriers.CategoryExpress, EstimatedDays: 1, Guaranteed: true, ProductCode: "EXPRESS", Unpriced: true},
	}
	if diff := cmp.Diff(want, rates); diff != "" {
		t.Errorf("domestic rates (-want +got):\n%s", diff)
	}
	checkGolden(t, "allowedservices.golden.json", fake.LastRequest(glsfake.OpAllowed))
	rates, err = c.Rates(ctx, switzerland())
	if err != nil || len(rates) != 1 || rates[0].Service != "Parcel" || rates[0].EstimatedDays != 6 {
		t.Errorf("to Switzerland: %+v, %v", rates, err)
	}
	// Over 40 kg: no rate, and GLS says which limit, as its sandbox twin.
	heavy := domesticShipment()
	heavy.Parcel = kg(40.5)
	var ce *carriers.Error
	if rates, err := c.Rates(ctx, heavy); len(rates) != 0 || !errors.As(err, &ce) || !errors.Is(err, carriers.ErrRejected) ||
		ce.Code != carriers.CodeParcelTooHeavy || !strings.Contains(ce.Message, "at most 40 kg (88.18 lb) a parcel; this one weighs 40.5 kg") {
		t.Errorf("40.5 kg: %+v, %v", rates, err)
	}
}

// A rate sheet prices the unpriced rates by service name or product code.
func TestRatesFromSheet(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	sheet, err := carriers.ParseRateSheet(strings.NewReader("service,destination,maxWeightG,price,currency\nParcel,DE,5000,4.95,EUR\nEXPRESS,*,10000,12.50,EUR\n"))
	if err != nil {
		t.Fatal(err)
	}
	priced := Descriptor().Priced(c, sheet, "test")
	rates, err := priced.Rates(context.Background(), domesticShipment())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rates {
		if r.Currency != "EUR" || r.Unpriced {
			t.Errorf("rate %+v", r)
		}
		got[r.Service] = r.CarrierRateCents
	}
	if diff := cmp.Diff(map[string]int64{"Parcel": 495, "Express": 1250}, got); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
	// Without a sheet, a carrier without a rating API says where to set one.
	_, err = Descriptor().Priced(c, nil, "set SHIPD_GLS_RATE_SHEET").Rates(context.Background(), domesticShipment())
	if !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), "SHIPD_GLS_RATE_SHEET") {
		t.Errorf("no sheet: %v", err)
	}
}

// A void cancels every parcel by its TrackID; once GLS has scanned a
// parcel, it refuses, and the refusal says so.
func TestVoid(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{kg(1), kg(2)}
	l, err := c.Buy(ctx, buyRequest(s, "Parcel"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID, Pieces: l.Pieces})
	if err != nil || st != carriers.VoidConfirmed {
		t.Fatalf("void: %s, %v", st, err)
	}
	for _, sale := range fake.Sales("shp_0123456789abcdef01234567") {
		if !sale.Cancelled {
			t.Errorf("parcel %s not cancelled", sale.ParcelNumber)
		}
	}

	req := buyRequest(domesticShipment(), "Parcel")
	req.Reference = "shp_scanned"
	l, err = c.Buy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	fake.Scan(l.TrackingNumber)
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID})
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrRejected) || ce.Code != "SCANNED" || !strings.Contains(ce.Message, l.TrackingNumber) {
		t.Errorf("void after the scan: %v", err)
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber}); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("void without a TrackID: %v", err)
	}
	// An unknown TrackID: GLS's 404 with its headers.
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: "1", CarrierShipmentID: "ZZ999999"})
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || ce.Code != "ERROR_TRACKID" || ce.HTTPStatus != http.StatusNotFound {
		t.Errorf("unknown TrackID: %#v", ce)
	}
}

// Tracking polls Track And Trace: pre-transit, in transit, out for
// delivery, delivered; events oldest first with GLS's codes and places.
func TestTrackToDelivered(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Parcel"))
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	var last carriers.TrackingUpdate
	for range 4 {
		last, err = c.Track(ctx, l.TrackingNumber)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, last.Status)
	}
	want := []string{carriers.StatusPreTransit, carriers.StatusInTransit, carriers.StatusOutForDelivery, carriers.StatusDelivered}
	if diff := cmp.Diff(want, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	var codes []string
	for i, e := range last.Events {
		codes = append(codes, e.CarrierCode+" "+e.Status)
		if i > 0 && e.OccurredAt.Before(last.Events[i-1].OccurredAt) {
			t.Error("events are not oldest first")
		}
	}
	if diff := cmp.Diff([]string{"INTIAL.PREADVICE pre_transit", "INTIAL.NORMAL in_transit", "INDELV.DELIVERY in_transit", "DELIVD.NORMAL delivered"}, codes); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if e := last.Events[3]; e.Location != "München, 80331, DE" || !e.OccurredAt.Equal(testNow().Add(31*time.Hour)) {
		t.Errorf("delivery event %+v", e)
	}
	if got := fake.LastHeader(glsfake.OpTrack).Get("Accept"); got != "application/json" {
		t.Errorf("Accept %q", got)
	}
	// A number GLS does not know yet is unknown, not an error; ten go in one call.
	rs, err := c.TrackMany(ctx, []string{l.TrackingNumber, "12345678901"})
	if err != nil || len(rs) != 2 || rs[1].Err != nil || rs[1].Update.Status != carriers.StatusUnknown || rs[0].Update.Status != carriers.StatusDelivered {
		t.Fatalf("batch: %+v, %v", rs, err)
	}
	if got := string(fake.LastRequest(glsfake.OpTrack)); got != "" {
		t.Errorf("query %q", got)
	}
	if _, err := c.TrackMany(ctx, make([]string, 11)); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("11 numbers: %v", err)
	}
	if _, err := c.Track(ctx, "12/34"); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("a number with a slash: %v", err)
	}
}

// A purchase cut off mid-call is found by its reference and its labels
// reprinted; a cancelled one is not found; nothing sold is not found.
func TestFindPurchase(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{kg(1), kg(2)}
	req := buyRequest(s, "Parcel")
	req.LabelFormat = carriers.LabelZPL
	if _, found, err := c.FindPurchase(ctx, req); err != nil || found {
		t.Fatalf("before the purchase: %v, %v", found, err)
	}
	bought, err := c.Buy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	l, found, err := c.FindPurchase(ctx, req)
	if err != nil || !found {
		t.Fatalf("after: %v, %v", found, err)
	}
	if diff := cmp.Diff(bought.Pieces, l.Pieces); diff != "" || l.CarrierShipmentID != bought.CarrierShipmentID || len(l.PieceDocuments) != 2 ||
		!bytes.HasPrefix(l.PieceDocuments[1], []byte("^XA")) || !bytes.Contains(l.PieceDocuments[1], []byte(bought.Pieces[1])) {
		t.Fatalf("found %+v (-bought +found pieces):\n%s", l, diff)
	}
	checkGolden(t, "parcels_find.golden.json", fake.LastRequest(glsfake.OpFind))
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: bought.TrackingNumber, CarrierShipmentID: bought.CarrierShipmentID}); err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.FindPurchase(ctx, req); err != nil || found {
		t.Errorf("after the void: %v, %v", found, err)
	}
}

// The end-of-day report lists the manifest's parcels with GLS's data; a
// parcel GLS does not report refuses the manifest.
func TestManifest(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	ctx := context.Background()
	var labels []carriers.ManifestLabel
	for _, ref := range []string{"shp_a", "shp_b"} {
		req := buyRequest(domesticShipment(), "Parcel")
		req.Reference = ref
		l, err := c.Buy(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, carriers.ManifestLabel{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID})
	}
	form, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_1", From: berlin(), ShipDate: testNow(), Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(form.Number, "EOD-20260310-") || !bytes.HasPrefix(form.PDF, []byte("%PDF-")) ||
		!bytes.Contains(form.PDF, []byte(labels[1].TrackingNumber)) || !bytes.Contains(form.PDF, []byte("Grace Hopper, 80331 ")) {
		t.Fatalf("form %s, %d bytes", form.Number, len(form.PDF))
	}
	again, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_1", From: berlin(), ShipDate: testNow(), Labels: labels, Resumed: true})
	if err != nil || again.Number != form.Number {
		t.Errorf("resumed: %s, %v", again.Number, err)
	}
	_, err = c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_2", From: berlin(), ShipDate: testNow().AddDate(0, 0, 1), Labels: labels})
	if !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), labels[0].TrackingNumber) || !strings.Contains(err.Error(), "2026-03-11") {
		t.Errorf("the next day: %v", err)
	}
}

// A pickup is a sporadic collection of the contact, the address in its
// note; the confirmation is GLS's estimated day; cancelling is refused.
func TestPickups(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	sat := time.Date(2026, 3, 14, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	pc, err := c.SchedulePickup(ctx, carriers.PickupRequest{Reference: "pkp_1", Address: berlin(), ReadyAt: sat, CloseAt: sat.Add(8 * time.Hour),
		PackageCount: 3, TotalWeightOz: 100, Instructions: "Hof, Tor 2"})
	if err != nil || pc.ConfirmationNumber != "2026-03-16" {
		t.Fatalf("pickup: %+v, %v", pc, err)
	}
	got := fake.Collections()
	want := []glsfake.Collection{{ContactID: glsfake.ContactID, Product: "PARCEL", PreferredPickUpDate: sat, NumberOfParcels: 3,
		AdditionalInformation: "Pickup at Analytical Engines GmbH, Ada Lovelace, Friedrichstraße 123, 10117 Berlin; ready 09:00-17:00; Hof, Tor 2"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("collections (-want +got):\n%s", diff)
	}
	checkGolden(t, "sporadiccollection.golden.json", fake.LastRequest(glsfake.OpPickup))
	if err := c.CancelPickup(ctx, carriers.PickupCancelRequest{ConfirmationNumber: pc.ConfirmationNumber}); !errors.Is(err, carriers.ErrRejected) ||
		!strings.Contains(err.Error(), "customer service") {
		t.Errorf("cancel: %v", err)
	}
}

func TestMultiPieceService(t *testing.T) {
	t.Parallel()
	c, _, _ := testCarrier(t)
	if !c.MultiPieceService("Parcel") || !c.MultiPieceService("express") || c.MultiPieceService("Freight") {
		t.Error("MultiPieceService: Parcel and Express, nothing else")
	}
}

// A label of several parcels has a line of the report for each.
func TestManifestPieces(t *testing.T) {
	t.Parallel()
	c, fake, _ := testCarrier(t)
	ctx := context.Background()
	s := domesticShipment()
	s.Pieces = []carriers.Parcel{kg(1), kg(2)}
	l, err := c.Buy(ctx, buyRequest(s, "Parcel"))
	if err != nil {
		t.Fatal(err)
	}
	form, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_1", From: berlin(), ShipDate: testNow(),
		Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, sale := range fake.Sales("shp_0123456789abcdef01234567") {
		if !bytes.Contains(form.PDF, []byte(sale.ParcelNumber)) || !bytes.Contains(form.PDF, []byte(sale.TrackID)) {
			t.Errorf("the report lacks parcel %s", sale.ParcelNumber)
		}
	}
}
