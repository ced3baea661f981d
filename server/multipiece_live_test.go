package server_test

import (
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// Live multi-piece shipments end to end, on the carriers' fakes.
func TestLiveMultiPiece(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	body := liveBody(withParcels(16, 24, 40))

	for _, r := range quoteRates(t, b, live, body) {
		if r.Carrier == "USPS" {
			t.Errorf("USPS rate %s for several pieces", r.Service)
		}
	}

	c := createLabel(t, b, live, liveBody(withParcels(16, 24, 40), withField("carrier", "UPS"), withField("service", "Ground")))
	s := waitForStatus(t, b, live, c.ID, "purchased")
	var d piecesDoc
	b.doT(t, "GET", "/api/v1/labels/"+c.ID, live, nil).Decode(t, &d)
	if len(d.Packages) != 3 || d.Packages[0].TrackingNumber != s.str(s.TrackingNumber) {
		t.Fatalf("packages %+v, master %s", d.Packages, s.str(s.TrackingNumber))
	}
	sold, _ := f.ups.Pieces(s.str(s.TrackingNumber))
	for i, p := range d.Packages {
		if i >= len(sold) || sold[i] != p.TrackingNumber {
			t.Errorf("package %d is %s; UPS sold %v", i, p.TrackingNumber, sold)
		}
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", live, nil)
	wantStatus(t, r, http.StatusOK)
	if m := regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`).FindSubmatch(r.Body); m == nil || string(m[1]) != "3" {
		t.Errorf("label page count = %s, want 3", m)
	}

	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", live, nil), http.StatusAccepted)
	waitForStatus(t, b, live, c.ID, "voided")
	if _, voided := f.ups.Pieces(s.str(s.TrackingNumber)); !voided {
		t.Error("UPS has not voided the shipment")
	}
}

// FedEx answers a PDF per piece; the purchase joins them into one document
// of a page per piece, and the refund cancels the master, every piece.
func TestLiveMultiPieceFedEx(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t, unscanned)
	c := createLabel(t, b, live, liveBody(withParcels(16, 24, 40), withField("carrier", "FedEx"), withField("service", "Ground")))
	s := waitForStatus(t, b, live, c.ID, "purchased")
	var d piecesDoc
	b.doT(t, "GET", "/api/v1/labels/"+c.ID, live, nil).Decode(t, &d)
	sold, _ := f.fedex.Pieces(s.str(s.TrackingNumber))
	var got []string
	for _, p := range d.Packages {
		got = append(got, p.TrackingNumber)
	}
	if diff := cmp.Diff(sold, got); diff != "" || len(got) != 3 {
		t.Fatalf("packages (-sold +shipment):\n%s", diff)
	}
	r := b.doT(t, "GET", "/api/v1/labels/"+c.ID+"/label.pdf", live, nil)
	wantStatus(t, r, http.StatusOK)
	if m := regexp.MustCompile(`/Type /Pages /Count (\d+)`).FindSubmatch(r.Body); m == nil || string(m[1]) != "3" {
		t.Errorf("label page count = %s, want 3", m)
	}
	// Each page is the piece's own label in order (the FedEx test of
	// parsePieces); the fake's text is compressed, so the page count it is.

	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", live, nil), http.StatusAccepted)
	waitForStatus(t, b, live, c.ID, "voided")
	if _, cancelled := f.fedex.Pieces(s.str(s.TrackingNumber)); !cancelled {
		t.Error("FedEx has not cancelled the shipment")
	}
}

// deliveredThreeBoxes buys a live three-box Ground shipment of carrier and
// reads it once its master is delivered.
func deliveredThreeBoxes(t *testing.T, b *bundle, live, carrier string) piecesDoc {
	t.Helper()
	c := createLabel(t, b, live, liveBody(withParcels(16, 24, 40), withField("carrier", carrier), withField("service", "Ground")))
	waitForStatus(t, b, live, c.ID, "purchased")
	waitForTracking(t, b, live, c.ID, "delivered")
	var d piecesDoc
	b.doT(t, "GET", "/api/v1/labels/"+c.ID, live, nil).Decode(t, &d)
	return d
}

// Live tracking follows the master; UPS answers the other packages' scans
// with it, and they appear among the shipment's events named by their box.
func TestLiveMultiPieceTracking(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t)
	d := deliveredThreeBoxes(t, b, live, "UPS")
	var named []string
	for _, e := range d.TrackingEvents {
		if e.TrackingNumber != "" {
			named = append(named, e.TrackingNumber)
		}
	}
	// Newest first: the third box's origin scan, then the second's.
	want := []string{d.Packages[2].TrackingNumber, d.Packages[1].TrackingNumber}
	if diff := cmp.Diff(want, named); diff != "" {
		t.Errorf("scans naming a box (-want +got):\n%s", diff)
	}
}

// FedEx tracks a master alone: the other boxes' scans come from its Track
// by associated shipments, asked when the master says it has some, and
// appear named by their box, as many as the master's own.
func TestLiveMultiPieceTrackingFedEx(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	d := deliveredThreeBoxes(t, b, live, "FedEx")
	perBox := map[string]int{}
	for _, e := range d.TrackingEvents {
		perBox[e.TrackingNumber]++
	}
	master := perBox[""]
	want := map[string]int{"": master, d.Packages[1].TrackingNumber: master, d.Packages[2].TrackingNumber: master}
	if diff := cmp.Diff(want, perBox); master == 0 || diff != "" {
		t.Errorf("scans per box, \"\" the master's (-want +got):\n%s", diff)
	}
	if f.fedex.Requests(fedexfake.OpTrackAssociated) == 0 {
		t.Error("the other boxes were never asked for")
	}
}
