package dpd

import (
	"context"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/dpd/dpdfake"
	"github.com/shipd-dev/shipd/carriers/dpd/spec"
)

// The tests in this file hold the adapter, and dpdfake, to DPD's published
// documents vendored in spec/: every golden request must be one both
// documents accept (the shipment's is in both), and every exchange of the
// adapter's flows against dpdfake must match the operation it was sent to,
// but for the defects spec.Exceptions excuses, each with its reason.

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new golden file must be added here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	sentTo := map[string]string{
		"shipment_domestic.golden.json":      shipmentPath + "?LabelPrintFormat=PDF",
		"shipment_pieces.golden.json":        shipmentPath + "?LabelPrintFormat=PDF",
		"shipment_international.golden.json": shipmentPath + "?LabelPrintFormat=PDF",
		"pickupscheduling.golden.json":       pickupPath,
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(sentTo)), names); diff != "" {
		t.Errorf("golden files without an operation here, or gone (-here +testdata):\n%s", diff)
	}
	for name, path := range sentTo {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := docs.CheckRequestBody(http.MethodPost, path, "application/json", body); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSpecFlows runs every operation against dpdfake through a recorder
// and checks each exchange, both ways, against both documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	meta, err := apidoc.Load(spec.FS(), "meta-api-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := dpdfake.New(t)
	fake.SetNow(testNow)
	rec := &apidoc.Recorder{Next: fake.Client().Transport}
	c, err := New(Config{Login: dpdfake.Login, Password: dpdfake.Password, BUCode: dpdfake.BUCode, CustomerID: dpdfake.CustomerID,
		BaseURL: fake.URL(), HTTPClient: &http.Client{Transport: rec}, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.CheckCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []carriers.Shipment{domesticShipment(), toLondon()} {
		req := buyRequest(s, "Classic")
		req.LabelFormat = carriers.LabelZPL
		if _, err := c.Buy(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SchedulePickup(ctx, carriers.PickupRequest{Reference: "pkp_1", Address: hamburg(), ReadyAt: testNow(), PackageCount: 1}); err != nil {
		t.Fatal(err)
	}
	// A refusal: the META-API's Error.
	bad := domesticShipment()
	bad.To.Zip = ""
	if _, err := c.Buy(ctx, buyRequest(bad, "Classic")); err == nil {
		t.Fatal("a shipment without a zip code was bought")
	}
	var ops []string
	for _, x := range rec.Exchanges() {
		op, err := meta.Operation(x.Request)
		if err != nil {
			t.Errorf("%s %s: %v", x.Request.Method, x.Request.URL.Path, err)
			continue
		}
		ops = append(ops, op.ID)
		if err := docs.CheckRequest(x.Request, x.RequestBody); err != nil {
			t.Error(err)
		}
		if err := docs.CheckResponse(x.Request, x.Status, x.Header, x.Body); err != nil {
			t.Error(err)
		}
	}
	want := []string{"shippingV1LoginPost", "shippingV1ShipmentPost", "shippingV1ShipmentPost", "shippingV1PickupschedulingPost", "shippingV1ShipmentPost"}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}
