package gls

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/apidoc"
	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
	"github.com/shipd-dev/shipd/carriers/gls/spec"
)

// The tests in this file hold the adapter, and glsfake, to GLS's
// published documents vendored in spec/: every golden request must be one
// the document of its operation accepts, and every request of the
// adapter's flows against glsfake, and every answer glsfake gives, must
// match the operation it was sent to, but for the documents' defects that
// spec.Exceptions excuses, each with its reason.

func loadDocuments(t *testing.T) *apidoc.Set {
	t.Helper()
	set, err := apidoc.Load(spec.FS(), spec.Names()...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new golden file must be added here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	post := func(path string) apidoc.GoldenRequest {
		return apidoc.GoldenRequest{Method: http.MethodPost, Path: shipitPath + path, ContentType: mediaType}
	}
	docs.CheckGoldenRequests(t, "testdata", "*.json", map[string]apidoc.GoldenRequest{
		"allowedservices.golden.json":           post("/shipments/allowedservices"),
		"shipments_domestic.golden.json":        post("/shipments"),
		"shipments_pieces.golden.json":          post("/shipments"),
		"shipments_switzerland_zpl.golden.json": post("/shipments"),
		"parcels_find.golden.json":              post("/tracking/parcels"),
		"sporadiccollection.golden.json":        post("/sporadiccollection"),
	})
}

// TestSpecFlows runs every operation against glsfake through a recorder
// and checks each exchange, both ways, against the documents: the fake's
// own check is the kit's, this one is the adapter's.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	set := loadDocuments(t)
	fake := glsfake.New(t)
	fake.SetNow(testNow)
	rec := &apidoc.Recorder{Next: fake.Client().Transport}
	c, err := New(Config{ClientID: glsfake.ClientID, ClientSecret: glsfake.ClientSecret, ContactID: glsfake.ContactID,
		BaseURL: fake.URL(), HTTPClient: &http.Client{Transport: rec}, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.CheckCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rates(ctx, domesticShipment()); err != nil {
		t.Fatal(err)
	}
	req := buyRequest(domesticShipment(), "Parcel")
	l, err := c.Buy(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.FindPurchase(ctx, req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Manifest(ctx, carriers.ManifestRequest{Reference: "man_1", From: berlin(), ShipDate: testNow(),
		Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}}); err != nil {
		t.Fatal(err)
	}
	ready := time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC)
	if _, err := c.SchedulePickup(ctx, carriers.PickupRequest{Address: berlin(), ReadyAt: ready, CloseAt: ready.Add(time.Hour), PackageCount: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID}); err != nil {
		t.Fatal(err)
	}
	// A refusal: the error headers ShipIT answers.
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: "1", CarrierShipmentID: "ZZ000000"}); err == nil {
		t.Fatal("an unknown TrackID was cancelled")
	}
	var ops []string
	for _, x := range rec.Exchanges() {
		op, err := set.Operation(x.Request)
		if err != nil {
			t.Errorf("%s %s: %v", x.Request.Method, x.Request.URL.Path, err)
			continue
		}
		ops = append(ops, op.ID)
		if err := apidoc.Except(set.CheckExchange(x), apidoc.Excusing(spec.Exceptions()...)); err != nil {
			t.Error(err)
		}
	}
	want := []string{"createToken", "getAllowedServices", "createParcels", "getEventsByParcelNumber", "findParcels", "reprintParcel",
		"getEndOfDayReport", "orderSporadicCollection", "cancelParcelByID", "cancelParcelByID"}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}
