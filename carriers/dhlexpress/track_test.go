package dhlexpress

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlexpress/dhlexpressfake"
)

func statuses(up carriers.TrackingUpdate) []string {
	var out []string
	for _, e := range up.Events {
		out = append(out, e.CarrierCode+":"+e.Status)
	}
	return out
}

// A waybill moves through DHL's checkpoints to delivered, oldest first,
// each mapped to the tracker vocabulary, with DHL's estimated delivery.
func TestTrackToDelivered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _, _ := newTestCarrier(t)
	l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234530", domestic(), "DomesticExpress", "EUR"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	var up carriers.TrackingUpdate
	for range 7 {
		if up, err = c.Track(ctx, l.TrackingNumber); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, up.Status)
	}
	want := []string{"in_transit", "in_transit", "in_transit", "in_transit", "out_for_delivery", "delivered", "delivered"}
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"PU:in_transit", "PL:in_transit", "DF:in_transit", "AF:in_transit", "WC:out_for_delivery", "OK:delivered"}, statuses(up)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	first := up.Events[0]
	if !first.OccurredAt.Equal(testNow.Add(time.Hour)) || first.Location != "MUNICH - DE" || first.Message != "Shipment picked up" || first.TrackingNumber != "" {
		t.Errorf("first event %+v", first)
	}
	if up.EstimatedDeliveryAt == nil || up.EstimatedDeliveryAt.Format(time.DateOnly) != "2026-03-04" {
		t.Errorf("estimated delivery %v", up.EstimatedDeliveryAt)
	}
}

// A multi-piece waybill's checkpoints are its own, and those of a piece
// scanned apart, named by the piece; a piece is tracked by its JD number.
func TestTrackPieces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _, _ := newTestCarrier(t)
	l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234531", threePieces(), "ExpressWorldwideEU", "EUR"))
	if err != nil {
		t.Fatal(err)
	}
	var up carriers.TrackingUpdate
	for range 3 {
		if up, err = c.Track(ctx, l.TrackingNumber); err != nil {
			t.Fatal(err)
		}
	}
	var named []string
	for _, e := range up.Events {
		if e.TrackingNumber != "" {
			named = append(named, e.TrackingNumber+" "+e.CarrierCode)
		}
	}
	if d := cmp.Diff([]string{l.Pieces[1] + " PL"}, named); d != "" || len(up.Events) != 4 {
		t.Errorf("piece events (-want +got):\n%s\nall: %v", d, statuses(up))
	}
	piece, err := c.Track(ctx, l.Pieces[1])
	if err != nil || piece.Status != carriers.StatusInTransit || len(piece.Events) != 5 {
		t.Errorf("the second piece: %+v, %v", piece, err)
	}
}

// TrackMany asks for many waybills in one call; a number DHL does not know
// (yet) is unknown, in its place; an answer of DHL's 404 for all of them
// too.
func TestTrackMany(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, fake, _ := newTestCarrier(t)
	var numbers []string
	for _, ref := range []string{"shp_0123456789abcdef01234532", "shp_0123456789abcdef01234533"} {
		l, err := c.Buy(ctx, buyRequest(ref, domestic(), "DomesticExpress", "EUR"))
		if err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, l.TrackingNumber)
	}
	numbers = append(numbers[:1], "1999999999", numbers[1])
	results, err := c.TrackMany(ctx, numbers)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range results {
		got = append(got, r.Update.Status)
		if r.Err != nil {
			t.Errorf("result error %v", r.Err)
		}
	}
	if d := cmp.Diff([]string{"in_transit", "unknown", "in_transit"}, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
	if n := fake.Requests(dhlexpressfake.OpTrack); n != 1 {
		t.Errorf("%d tracking calls, want 1", n)
	}
	none, err := c.TrackMany(ctx, []string{"1999999998"})
	if err != nil || len(none) != 1 || none[0].Update.Status != carriers.StatusUnknown {
		t.Errorf("only unknown numbers: %+v, %v", none, err)
	}
	if _, err := c.TrackMany(ctx, make([]string, MaxTrackBatch+1)); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("a batch over the limit: %v", err)
	}
	if c.MaxTrackBatch() != 100 {
		t.Errorf("MaxTrackBatch %d", c.MaxTrackBatch())
	}
}

// A waybill DHL does not know yet is unknown, not an error; DHL down is
// unavailable.
func TestTrackUnknownAndDown(t *testing.T) {
	t.Parallel()
	c, fake, _ := newTestCarrier(t)
	up, err := c.Track(context.Background(), "1999999999")
	if err != nil || up.Status != carriers.StatusUnknown {
		t.Errorf("unknown waybill: %+v, %v", up, err)
	}
	fake.FailNext(dhlexpressfake.OpTrackOne, http.StatusTooManyRequests, dhlexpressfake.ErrorBody(429, "Too many requests"))
	_, err = c.Track(context.Background(), "1999999999")
	if ce := asCarrierError(t, err); !errors.Is(err, carriers.ErrUnavailable) || ce.RetryAfter != 7*time.Second {
		t.Errorf("429: %+v", ce)
	}
}

// mapEvents reads DHL's dates with or without an offset and refuses
// checkpoints without a usable date: ErrFailed.
func TestTrackEventTimes(t *testing.T) {
	t.Parallel()
	up, err := mapEvents([]trackEvent{
		{Date: "2026-03-03", Time: "10:00:00", GMTOffset: "+09:00", TypeCode: "PU"},
		{Date: "2026-03-03", Time: "09:00:00", TypeCode: "ZZ"},
	}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !up.Events[0].OccurredAt.Equal(time.Date(2026, 3, 3, 1, 0, 0, 0, time.UTC)) || up.Events[1].Status != carriers.StatusUnknown ||
		up.Status != carriers.StatusInTransit {
		t.Errorf("events %+v, status %s", up.Events, up.Status)
	}
	for _, ev := range []trackEvent{{Time: "10:00:00"}, {Date: "03/03/2026"}, {Date: "0001-01-01"}, {Date: "2026-03-03", GMTOffset: "nine"}} {
		if _, err := mapEvents([]trackEvent{ev}, "", nil); !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%+v: %v, want ErrFailed", ev, err)
		}
	}
}
