package usps

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// A return is priced with the return services (ALL_RETURNS) and bought from
// /labels/v3/return-label: the customer (From) mails it to the merchant (To).
func TestReturnLabel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := newFake(t)
	c := newCarrier(t, fake)
	s := domesticShipment()
	s.Return = true

	rates, err := c.Rates(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, r := range rates {
		quoted = append(quoted, r.Service)
		if !c.ReturnService(r.Service) {
			t.Errorf("%s quoted for a return but ReturnService says no", r.Service)
		}
	}
	if d := cmp.Diff([]string{"GroundAdvantage", "Priority", "PriorityExpress"}, quoted); d != "" {
		t.Errorf("return services quoted (-want +got):\n%s", d)
	}
	golden(t, "rates_return.json", fake.LastRequest(uspsfake.OpRates))

	label, err := c.Buy(ctx, carriers.BuyRequest{Reference: "shp_0123456789abcdef0123456a", Shipment: s,
		Rate: carriers.Rate{Carrier: "USPS", Service: "Priority"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(label.Document, []byte("%PDF")) || !fake.IsReturn(label.TrackingNumber) {
		t.Errorf("return label %q (%d bytes): sold as a return %v", label.TrackingNumber, len(label.Document), fake.IsReturn(label.TrackingNumber))
	}
	if fake.Requests(uspsfake.OpLabel) != 0 {
		t.Error("a return was bought from the outbound label API")
	}
	golden(t, "label_return.json", fake.LastRequest(uspsfake.OpReturnLabel))

	// Sold again with the same reference: the same label, not a second one.
	again, err := c.Buy(ctx, carriers.BuyRequest{Reference: "shp_0123456789abcdef0123456a", Shipment: s,
		Rate: carriers.Rate{Carrier: "USPS", Service: "Priority"}})
	if err != nil || again.TrackingNumber != label.TrackingNumber {
		t.Errorf("retried return: %q, %v; want %q", again.TrackingNumber, err, label.TrackingNumber)
	}
	// An unused return is cancelled like any label.
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: label.TrackingNumber, Reference: "shp_0123456789abcdef0123456a"}); err != nil {
		t.Errorf("void of an unused return: %v", err)
	}
}

// The multipart answer names its parts returnLabelMetadata and
// returnLabelImage.
func TestReturnLabelMultipart(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	s := domesticShipment()
	s.Return = true
	req := buyRequest("shp_return_multi", "GroundAdvantage", s)
	a, err := c.send(context.Background(), request{op: opBuy, method: http.MethodPost, path: returnLabelPath, payment: true,
		accept: "application/json", header: map[string]string{"X-Idempotency-Key": idempotencyKey(req.Reference)},
		body: c.returnLabelRequest(req, services[0])})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.header.Get("Content-Type"), "multipart/") || !bytes.Contains(a.body, []byte(`name="returnLabelImage"`)) {
		t.Fatalf("the fake answered %q without a returnLabelImage part", a.header.Get("Content-Type"))
	}
	label, err := parseLabel(a.header.Get("Content-Type"), a.body)
	if err != nil || label.TrackingNumber == "" || !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("multipart return label %q with %d bytes of PDF: %v", label.TrackingNumber, len(label.Document), err)
	}
}

// USPS makes domestic return labels only, and shipd sells no signature on a
// return: those quotes are empty, and a purchase that gets here anyway is
// refused before any call.
func TestReturnRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := newFake(t)
	c := newCarrier(t, fake)
	intl := internationalShipment()
	intl.Return = true
	signed := domesticShipment()
	signed.Return, signed.Options.SignatureConfirmation = true, true
	for name, s := range map[string]carriers.Shipment{"international": intl, "signature": signed} {
		if rates, err := c.Rates(ctx, s); err != nil || len(rates) != 0 {
			t.Errorf("%s return quoted %v, %v; want none", name, rates, err)
		}
	}
	if c.ReturnService("PriorityMailInternational") || c.ReturnService("NoSuchService") {
		t.Error("ReturnService says yes to a service USPS makes no return label of")
	}
	before := fake.Requests(uspsfake.OpInternationalLabel) + fake.Requests(uspsfake.OpReturnLabel)
	_, err := c.Buy(ctx, carriers.BuyRequest{Reference: "shp_intl_return", Shipment: intl,
		Rate: carriers.Rate{Carrier: "USPS", Service: "PriorityMailInternational"}})
	if !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("international return bought: %v, want a rejection", err)
	}
	if after := fake.Requests(uspsfake.OpInternationalLabel) + fake.Requests(uspsfake.OpReturnLabel); after != before {
		t.Error("the refused return reached USPS")
	}
}
