package dhlparcelde

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/spec"
)

// The tests in this file hold the adapter, and dhlparceldefake, to DHL's
// documents vendored in carriers/dhlparcelde/spec: every golden request
// must be one the document of its operation accepts, and every request of
// the adapter's flows against the fake, and every answer the fake gives,
// must match the operation it was sent to. A problem the documents report
// is either fixed (in the adapter or the fake) or excused in
// spec.Exceptions, with the reason.

func loadDocuments(t testing.TB) *apidoc.Excused {
	t.Helper()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// The placeholder karrio vendors as the tracking document is vendored
// too, and documents nothing: one path, no parameter, no schema.
func TestSpecPlaceholderDocumentsNothing(t *testing.T) {
	t.Parallel()
	set, err := apidoc.Load(spec.FS(), spec.Placeholder)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodGet, "https://api-eu.dhl.com/track/shipments?trackingNumber=00340434161094015902", nil)
	if _, err := set.Operation(r); err == nil {
		t.Error("the placeholder documents the tracking API's path; load it instead of the unified API's document")
	}
	if slices.Contains(spec.Names(), spec.Placeholder) {
		t.Error("the placeholder is among the documents checked")
	}
}

// undocumented are the endpoints no document covers: the token endpoint
// (its grant is tested in the adapter's own tests).
var undocumented = apidoc.Undocumented{tokenPath: func(testing.TB, apidoc.Exchange) {}}

// goldenPaths are the operations each golden request is sent to.
var goldenPaths = map[string]apidoc.GoldenRequest{
	"order_domestic.golden.json":       apidoc.Post(shippingPath + "/orders"),
	"order_kleinpaket.golden.json":     apidoc.Post(shippingPath + "/orders"),
	"order_eu.golden.json":             apidoc.Post(shippingPath + "/orders"),
	"order_customs.golden.json":        apidoc.Post(shippingPath + "/orders"),
	"return_order.golden.json":         apidoc.Post(returnsPath + "/orders"),
	"return_order_customs.golden.json": apidoc.Post(returnsPath + "/orders"),
	"closeout.golden.json":             apidoc.Post(shippingPath + "/manifests"),
	"pickup.golden.json":               apidoc.Post(pickupPath + "/orders"),
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new golden file must be added to
// goldenPaths.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	loadDocuments(t).CheckGoldenRequests(t, "testdata", "*.golden.json", goldenPaths)
}

// TestSpecFlows runs the adapter's flows against the fake and checks every
// request and answer against the documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	docs := loadDocuments(t)
	ctx := context.Background()
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	pickup := carriers.PickupRequest{Reference: "pkp_0123456789abcdef01234567", Address: bonn(),
		ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 2, TotalWeightOz: 90, Instructions: "Bitte am Lieferanteneingang klingeln"}
	buy := func(s carriers.Shipment, service string, f carriers.LabelFormat, size carriers.LabelSize) func(*testing.T, *Carrier) error {
		return func(t *testing.T, c *Carrier) error {
			req := buyRequest(s, service)
			req.LabelFormat, req.LabelSize = f, size
			_, err := c.Buy(ctx, req)
			return err
		}
	}
	flows := []struct {
		name string
		run  func(t *testing.T, c *Carrier) error
	}{
		{"credentials", func(t *testing.T, c *Carrier) error { return c.CheckCredentials(ctx) }},
		{"buy Paket, PDF 4x6", buy(domesticShipment(), "Paket", carriers.LabelPDF, carriers.Label4x6)},
		{"buy Paket, ZPL", buy(domesticShipment(), "Paket", carriers.LabelZPL, carriers.Label4x6)},
		{"buy Paket, A6", buy(domesticShipment(), "Paket", carriers.LabelPDF, carriers.LabelA6)},
		{"buy Paket, A4", buy(domesticShipment(), "Paket", carriers.LabelPDF, carriers.LabelA4)},
		{"buy Kleinpaket", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.Parcel = carriers.MetricParcelOf(carriers.MetricParcel{WeightG: 600, LengthCm: 30, WidthCm: 20, HeightCm: 5})
			return buy(s, "Kleinpaket", carriers.LabelPDF, "")(t, c)
		}},
		{"buy Europaket", buy(euShipment(), "Europaket", carriers.LabelPDF, "")},
		{"buy Paket International in the EU", buy(euShipment(), "PaketInternational", carriers.LabelPDF, "")},
		{"buy Paket International with customs", buy(swissShipment(), "PaketInternational", carriers.LabelPDF, "")},
		{"buy Warenpost International with customs", buy(swissShipment(), "WarenpostInternational", carriers.LabelZPL, "")},
		{"buy a return", buy(returnShipment(), "Retoure", carriers.LabelPDF, "")},
		{"buy a return with customs", func(t *testing.T, c *Carrier) error {
			s := returnShipment()
			s.From = zurich()
			s.Customs = swissShipment().Customs
			return buy(s, "Retoure", carriers.LabelPDF, "")(t, c)
		}},
		{"buy and void, void again", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
			if err != nil {
				return err
			}
			if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: testReference}); err != nil {
				return err
			}
			_, _ = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: testReference}) // refused: the answer is checked
			return nil
		}},
		{"buy, manifest, void refused, manifest again", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
			if err != nil {
				return err
			}
			req := carriers.ManifestRequest{Reference: "man_0123456789abcdef01234567", From: bonn(),
				Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}}
			if _, err := c.Manifest(ctx, req); err != nil {
				return err
			}
			_, _ = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: testReference})
			req.Resumed = true
			_, err = c.Manifest(ctx, req)
			return err
		}},
		{"track to delivered, then a number never sold", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
			if err != nil {
				return err
			}
			for range 5 {
				if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
					return err
				}
			}
			_, err = c.Track(ctx, "00340434161094099999")
			return err
		}},
		{"pickup and cancel, cancel again", func(t *testing.T, c *Carrier) error {
			conf, err := c.SchedulePickup(ctx, pickup)
			if err != nil {
				return err
			}
			cancel := carriers.PickupCancelRequest{Reference: pickup.Reference, ConfirmationNumber: conf.ConfirmationNumber, ReadyAt: pickup.ReadyAt}
			if err := c.CancelPickup(ctx, cancel); err != nil {
				return err
			}
			_ = c.CancelPickup(ctx, cancel) // refused: the answer is checked
			return nil
		}},
		{"refused order", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.To.Street1 = "Heidestraße" // no house number: DHL cannot encode it
			req := buyRequest(s, "Paket")
			body, err := c.order(s, services[0], testReference)
			if err != nil {
				return err
			}
			query, _ := labelQuery(req.Format(), req.Size())
			_, err = c.do(ctx, apiRequest{op: opBuy, method: http.MethodPost, path: shippingPath + "/orders", query: query, body: body})
			return err
		}},
	}
	seen := map[string]bool{}
	for _, f := range flows {
		c, _, rec := recordedCarrier(t)
		// The exchanges are checked even when the flow failed: the
		// document may say why the fake refused.
		if err := f.run(t, c); err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		ops := docs.CheckExchanges(t, rec.Exchanges(), undocumented)
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	// Every operation the adapter calls was exercised.
	want := []string{
		"no document: POST " + tokenPath,
		"parcel-de-pickup-v3.yaml DELETE /orders (deleteOrders)",
		"parcel-de-pickup-v3.yaml POST /orders (orderPickup)",
		"parcel-de-shipping-v2_2.yaml DELETE /orders (ordersAccountDelete)",
		"parcel-de-shipping-v2_2.yaml GET /manifests (getManifests)",
		"parcel-de-shipping-v2_2.yaml POST /manifests (manifestsPost)",
		"parcel-de-shipping-v2_2.yaml POST /orders (createOrders)",
		"pp-parcel-returns.yaml POST /orders (createReturnOrder)",
		"utapi-traking-api-1.4.1.yaml GET /shipments",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}
