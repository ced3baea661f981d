package dhlparcelde

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

// A label is voided by deleting its order before the closeout; after it,
// DHL's refusal is ErrRejected with its message; deleting twice is refused
// too (DHL cannot tell a deleted shipment from one it never had).
func TestVoid(t *testing.T) {
	t.Parallel()
	c, fake, rec := recordedCarrier(t)
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
	if err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	st, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: testReference})
	if err != nil || st != carriers.VoidConfirmed || !fake.Voided(l.TrackingNumber) {
		t.Fatalf("void: %v %v, voided %v", st, err, fake.Voided(l.TrackingNumber))
	}
	if x := rec.Exchanges(); len(x) != 1 || x[0].Request.Method != "DELETE" {
		t.Fatalf("the void's exchanges: %v", x)
	}
	q := rec.Exchanges()[0].Request.URL.RawQuery
	if !strings.Contains(q, "profile=STANDARD_GRUPPENPROFIL") || !strings.Contains(q, "shipment="+l.TrackingNumber) {
		t.Errorf("delete query %q", q)
	}
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: testReference})
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || ce.Message != "Shipment not found or already deleted." {
		t.Errorf("a second void: %v", err)
	}

	closed, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Manifest(ctx, carriers.ManifestRequest{Labels: []carriers.ManifestLabel{{TrackingNumber: closed.TrackingNumber}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: closed.TrackingNumber, Reference: testReference})
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(ce.Message, "has been manifested") {
		t.Errorf("a void after the closeout: %v, want DHL's refusal", err)
	}
	if fake.Voided(closed.TrackingNumber) {
		t.Error("the fake deleted a closed-out shipment")
	}
}

// A DHL Retoure label has nothing to delete: it is paid only when used.
func TestVoidReturnLabel(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(returnShipment(), "Retoure"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber, CarrierShipmentID: l.CarrierShipmentID, Reference: testReference})
	if err != nil || st != carriers.VoidConfirmed || fake.Requests(dhlparceldefake.OpDelete) != 0 {
		t.Fatalf("void of a return label: %v %v, %d deletes", st, err, fake.Requests(dhlparceldefake.OpDelete))
	}
}

// The closeout names the labels, 30 a call, and the day's manifest is the
// form, numbered by the first label's sheet; return labels are left out,
// and a manifest of return labels alone is refused.
func TestManifest(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	var labels []carriers.ManifestLabel
	for range 31 {
		l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, carriers.ManifestLabel{TrackingNumber: l.TrackingNumber})
	}
	ret, err := c.Buy(ctx, buyRequest(returnShipment(), "Retoure"))
	if err != nil {
		t.Fatal(err)
	}
	labels = append(labels, carriers.ManifestLabel{TrackingNumber: ret.TrackingNumber, CarrierShipmentID: ret.CarrierShipmentID})
	req := carriers.ManifestRequest{Reference: "man_1", From: bonn(), ShipDate: testNow(), Labels: labels}
	form, err := c.Manifest(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if form.Number != "20260311001" || !strings.HasPrefix(string(form.PDF), "%PDF-") || !strings.Contains(string(form.PDF), labels[30].TrackingNumber) {
		t.Errorf("form %q, %d bytes", form.Number, len(form.PDF))
	}
	if n := fake.Requests(dhlparceldefake.OpCloseout); n != 2 {
		t.Errorf("%d closeouts for 31 labels, want 2", n)
	}
	for _, l := range labels[:31] {
		if fake.ClosedOn(l.TrackingNumber) != "2026-03-11" {
			t.Errorf("%s not closed out", l.TrackingNumber)
		}
	}
	// Asked again after a lost answer: DHL's warning, the same form.
	req.Resumed = true
	again, err := c.Manifest(ctx, req)
	if err != nil || again.Number != form.Number {
		t.Errorf("a resumed manifest: %q %v", again.Number, err)
	}
	_, err = c.Manifest(ctx, carriers.ManifestRequest{Labels: labels[31:]})
	if !errors.Is(err, carriers.ErrRejected) || fake.Requests(dhlparceldefake.OpCloseout) != 4 {
		t.Errorf("a manifest of a return label alone: %v", err)
	}
}

// A closeout DHL refuses for one shipment (deleted) is a refusal naming it.
func TestManifestRefused(t *testing.T) {
	t.Parallel()
	c, _ := testCarrier(t)
	ctx := context.Background()
	l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Paket"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Manifest(ctx, carriers.ManifestRequest{Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}})
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(ce.Message, l.TrackingNumber+": Shipment not found or deleted.") {
		t.Fatalf("closeout of a deleted shipment: %v", err)
	}
}

// A pickup is ordered on the account's billing number with a token of the
// password grant, kept and renewed when DHL refuses it; cancelled by its
// orderID; a second cancel is DHL's refusal.
func TestPickups(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	if !c.Capabilities().Has(carriers.CapPickups) {
		t.Fatal("a connector with the API secret does not declare pickups")
	}
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	req := carriers.PickupRequest{Reference: "pkp_1", Address: bonn(), ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 3}
	conf, err := c.SchedulePickup(ctx, req)
	if err != nil || len(conf.ConfirmationNumber) != 32 {
		t.Fatalf("pickup: %+v %v", conf, err)
	}
	body, cancelled, ok := fake.Pickup(conf.ConfirmationNumber)
	if !ok || cancelled || strings.Count(string(body), `"transportationType":"PAKET"`) != 3 {
		t.Fatalf("the fake's pickup %s (cancelled %v, known %v)", body, cancelled, ok)
	}
	fake.ExpireTokens()
	if _, err := c.SchedulePickup(ctx, req); err != nil {
		t.Fatalf("a pickup after the token expired: %v", err)
	}
	if n := fake.TokenRequests(); n != 2 {
		t.Errorf("%d token requests, want 2 (the first, then one after the refusal)", n)
	}
	cancel := carriers.PickupCancelRequest{Reference: "pkp_1", ConfirmationNumber: conf.ConfirmationNumber}
	if err := c.CancelPickup(ctx, cancel); err != nil {
		t.Fatal(err)
	}
	if _, cancelled, _ := fake.Pickup(conf.ConfirmationNumber); !cancelled {
		t.Error("the fake's pickup is not cancelled")
	}
	err = c.CancelPickup(ctx, cancel)
	if ce := carrierError(t, err); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(ce.Message, "already cancelled") {
		t.Errorf("a second cancel: %v", err)
	}
}

// Pickups refused before any call: outside Germany, without a house number;
// and without the API secret, the connector declares none and calls nothing.
func TestPickupsRefused(t *testing.T) {
	t.Parallel()
	c, fake := testCarrier(t)
	ctx := context.Background()
	readyAt := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	for _, a := range []carriers.Address{vienna(), func() carriers.Address { a := bonn(); a.Street1 = "Sträßchensweg"; return a }()} {
		_, err := c.SchedulePickup(ctx, carriers.PickupRequest{Address: a, ReadyAt: readyAt, PackageCount: 1})
		if !errors.Is(err, carriers.ErrRejected) {
			t.Errorf("a pickup at %s: %v, want a refusal", a.Street1, err)
		}
	}
	cfg := testConfig(fake)
	cfg.APISecret = ""
	noSecret, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if noSecret.Capabilities().Has(carriers.CapPickups) {
		t.Error("a connector without the API secret declares pickups")
	}
	_, err = noSecret.SchedulePickup(ctx, carriers.PickupRequest{Address: bonn(), ReadyAt: readyAt, PackageCount: 1})
	if !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), "API secret") {
		t.Errorf("a pickup without the API secret: %v", err)
	}
	if n := fake.Requests(dhlparceldefake.OpPickup) + fake.TokenRequests(); n != 0 {
		t.Errorf("%d calls to DHL", n)
	}
}

// A wrong API secret: the token endpoint's refusal is the account's.
func TestPickupTokenRefused(t *testing.T) {
	t.Parallel()
	fake := dhlparceldefake.New(t)
	cfg := testConfig(fake)
	cfg.APISecret = "not-the-secret"
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckCredentials(context.Background())
	ce := carrierError(t, err)
	if !errors.Is(err, carriers.ErrFailed) || ce.Operation != "token" || ce.Message != msgCredentialsRefused+": Client authentication failed. (invalid_client)" {
		t.Fatalf("a wrong API secret: %+v", ce)
	}
}
