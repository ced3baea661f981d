package dhlparcelde

import (
	"context"
	"maps"
	"net/http"
	"os"
	"path/filepath"
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

func loadDocuments(t *testing.T) *apidoc.Set {
	t.Helper()
	set, err := apidoc.Load(spec.FS(), spec.Names()...)
	if err != nil {
		t.Fatal(err)
	}
	return set
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

// checkExchanges checks every recorded exchange against the documents and
// returns the operations they went to; an exchange with the token
// endpoint, which no document has, is named as such.
func checkExchanges(t *testing.T, set *apidoc.Set, exchanges []apidoc.Exchange) []string {
	t.Helper()
	var ops []string
	for _, x := range exchanges {
		if x.Request.URL.Path == tokenPath {
			ops = append(ops, "token endpoint (no document)")
			continue
		}
		op, err := set.Operation(x.Request)
		if err != nil {
			t.Errorf("%s %s: %v", x.Request.Method, x.Request.URL.Path, err)
			continue
		}
		ops = append(ops, op.String())
		if err := apidoc.Except(set.CheckRequest(x.Request, x.RequestBody), apidoc.Excusing(spec.Exceptions()...)); err != nil {
			t.Error(err)
		}
		if err := apidoc.Except(set.CheckResponse(x.Request, x.Status, x.Header, x.Body), apidoc.Excusing(spec.Exceptions()...)); err != nil {
			t.Error(err)
		}
	}
	return ops
}

// goldenPaths are the operations each golden request is sent to.
var goldenPaths = map[string]string{
	"order_domestic.golden.json":       shippingPath + "/orders",
	"order_kleinpaket.golden.json":     shippingPath + "/orders",
	"order_eu.golden.json":             shippingPath + "/orders",
	"order_customs.golden.json":        shippingPath + "/orders",
	"return_order.golden.json":         returnsPath + "/orders",
	"return_order_customs.golden.json": returnsPath + "/orders",
	"closeout.golden.json":             shippingPath + "/manifests",
	"pickup.golden.json":               pickupPath + "/orders",
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new golden file must be added to
// goldenPaths.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	set := loadDocuments(t)
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(goldenPaths)), names); diff != "" {
		t.Errorf("golden files without an operation here, or gone (-here +testdata):\n%s", diff)
	}
	for name, path := range goldenPaths {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Error(err)
			continue
		}
		if err := apidoc.Except(set.CheckRequestBody(http.MethodPost, path, "application/json", body), apidoc.Excusing(spec.Exceptions()...)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSpecFlows runs the adapter's flows against the fake and checks every
// request and answer against the documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	set := loadDocuments(t)
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
		ops := checkExchanges(t, set, rec.Exchanges())
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	// Every operation the adapter calls was exercised.
	want := []string{
		"parcel-de-pickup-v3.yaml DELETE /orders (deleteOrders)",
		"parcel-de-pickup-v3.yaml POST /orders (orderPickup)",
		"parcel-de-shipping-v2_2.yaml DELETE /orders (ordersAccountDelete)",
		"parcel-de-shipping-v2_2.yaml GET /manifests (getManifests)",
		"parcel-de-shipping-v2_2.yaml POST /manifests (manifestsPost)",
		"parcel-de-shipping-v2_2.yaml POST /orders (createOrders)",
		"pp-parcel-returns.yaml POST /orders (createReturnOrder)",
		"token endpoint (no document)",
		"utapi-traking-api-1.4.1.yaml GET /shipments",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}
