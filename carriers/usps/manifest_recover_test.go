package usps

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// A SCAN form request for labels USPS already put on one form is refused,
// each label "already on SCAN form N": Manifest answers that form, known
// by its number (Recovered, no image: USPS cannot give it again). Labels
// of which some are on no form, or a refusal that names no label, stay
// refusals.
func TestManifestOfLabelsAlreadyOnAForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := newFake(t)
	c := newCarrier(t, fake)
	var labels []carriers.ManifestLabel
	for _, ref := range []string{"shp_form_1", "shp_form_2", "shp_form_3"} {
		l, err := c.Buy(ctx, buyRequest(ref, "GroundAdvantage", domesticShipment()))
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, carriers.ManifestLabel{TrackingNumber: l.TrackingNumber})
	}
	req := carriers.ManifestRequest{Reference: "man_1", From: domesticShipment().From, ShipDate: testNow, Labels: labels[:2]}
	made, err := c.Manifest(ctx, req)
	if err != nil || made.Recovered {
		t.Fatalf("the form: %+v, %v", made, err)
	}
	again, err := c.Manifest(ctx, req)
	if err != nil {
		t.Fatalf("the form again: %v", err)
	}
	if diff := cmp.Diff(carriers.ManifestForm{Number: made.Number, Recovered: true}, again); diff != "" {
		t.Errorf("the form again (-want +got):\n%s", diff)
	}
	if n := fake.Requests(uspsfake.OpSCANForm); n != 2 {
		t.Errorf("%d SCAN form requests, want 2", n)
	}

	mixed := req
	mixed.Labels = labels
	// USPS refuses two on a form and one that is not: no form covers them all.
	if _, err := c.Manifest(ctx, mixed); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("labels of which one is on no form: %v, want ErrRejected", err)
	}
	if fake.SCANForm(labels[2].TrackingNumber) != "" {
		t.Error("the refused request put a label on a form")
	}

	fake.FailNext(uspsfake.OpSCANForm, http.StatusBadRequest, `{"apiVersion":"/scan-forms/v3","error":{"code":"400","message":"Bad Request","errors":[{"status":"400","code":"400000","title":"Bad Request","detail":"label is already on SCAN form 9475711899000000000001"}]}}`)
	if _, err := c.Manifest(ctx, req); !errors.Is(err, carriers.ErrRejected) {
		t.Errorf("a refusal naming no label: %v, want ErrRejected", err)
	}
}
