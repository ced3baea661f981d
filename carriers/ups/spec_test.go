package ups

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
	"github.com/shipd-dev/shipd/carriers/ups/spec"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// The tests in this file hold the adapter, and upsfake, to UPS's published
// OpenAPI documents vendored in carriers/ups/spec: every golden request
// must be one the document of its operation accepts, and every request of
// the adapter's flows against upsfake, and every answer upsfake gives, must
// match the operation it was sent to. A problem the documents report is
// either fixed (in the adapter or the fake) or excused below, with the
// reason.

func upsDocuments(t testing.TB) *apidoc.Excused {
	t.Helper()
	docs, err := spec.Checker()
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// recordedCarrier is testCarrier with every exchange recorded.
func recordedCarrier(t *testing.T) (*Carrier, *upsfake.Server, *apidoc.Recorder) {
	t.Helper()
	fake := upsfake.New(t)
	fake.SetNow(testNow)
	rec := &apidoc.Recorder{Next: fake.Client().Transport}
	c, err := New(Config{
		ClientID: upsfake.ClientID, ClientSecret: upsfake.ClientSecret, AccountNumber: upsfake.AccountNumber,
		BaseURL: fake.URL(), HTTPClient: &http.Client{Transport: rec}, Now: testNow,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake, rec
}

// TestSpecGoldenRequests checks every golden request file against the
// operation the adapter sends it to. A new golden file must be added here.
func TestSpecGoldenRequests(t *testing.T) {
	t.Parallel()
	ratePath := "/api/rating/" + ratingVersion + "/" + rateOption
	shipPath := "/api/shipments/" + shippingVersion + "/ship"
	sentTo := map[string]apidoc.GoldenRequest{
		"rate_request_domestic.golden.json":      apidoc.Post(ratePath),
		"rate_request_international.golden.json": apidoc.Post(ratePath),
		"rate_request_pieces.golden.json":        apidoc.Post(ratePath),
		"ship_request_ddp.golden.json":           apidoc.Post(shipPath),
		"ship_request_domestic.golden.json":      apidoc.Post(shipPath),
		"ship_request_international.golden.json": apidoc.Post(shipPath),
		"ship_request_pieces.golden.json":        apidoc.Post(shipPath),
		"ship_request_return.golden.json":        apidoc.Post(shipPath),
		"verify_request.golden.json":             apidoc.Post("/api/addressvalidation/" + validationVersion + "/" + xavRequestOption),
		"label_recovery.json":                    apidoc.Post(recoveryPath),
	}
	upsDocuments(t).CheckGoldenRequests(t, "testdata", "*.json", sentTo)
}

// TestSpecFlows runs the adapter's flows against upsfake and checks every
// request and answer against the documents.
func TestSpecFlows(t *testing.T) {
	t.Parallel()
	docs := upsDocuments(t)
	ctx := context.Background()
	readyAt := time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC)
	pickup := carriers.PickupRequest{
		Reference: "pkp_0123456789abcdef01234567", Address: domesticShipment().From,
		ReadyAt: readyAt, CloseAt: readyAt.Add(8 * time.Hour), PackageCount: 2, TotalWeightOz: 64,
		Instructions: "Ring at the loading dock",
	}
	flows := []struct {
		name string
		run  func(t *testing.T, c *Carrier) error
	}{
		{"token", func(t *testing.T, c *Carrier) error { return c.CheckCredentials(ctx) }},
		{"rates domestic", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, domesticShipment())
			return err
		}},
		{"rates international", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, internationalShipment())
			return err
		}},
		{"rates multi-piece", func(t *testing.T, c *Carrier) error {
			_, err := c.Rates(ctx, threePieces())
			return err
		}},
		{"buy domestic", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.Options.SignatureConfirmation = true
			_, err := c.Buy(ctx, buyRequest(s, "Ground"))
			return err
		}},
		{"buy international", func(t *testing.T, c *Carrier) error {
			_, err := c.Buy(ctx, buyRequest(internationalShipment(), "WorldwideExpedited"))
			return err
		}},
		{"buy international DDP", func(t *testing.T, c *Carrier) error {
			_, err := c.Buy(ctx, buyRequest(ddpShipment(), "WorldwideExpedited"))
			return err
		}},
		{"buy return", func(t *testing.T, c *Carrier) error {
			s := domesticShipment()
			s.Return = true
			_, err := c.Buy(ctx, buyRequest(s, "Ground"))
			return err
		}},
		{"buy multi-piece and void", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(threePieces(), "Ground"))
			if err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber,
				CarrierShipmentID: l.CarrierShipmentID, Reference: "shp_0123456789abcdef01234567", Pieces: l.Pieces})
			return err
		}},
		{"buy and void", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Ground"))
			if err != nil {
				return err
			}
			_, err = c.Void(ctx, carriers.VoidRequest{TrackingNumber: l.TrackingNumber,
				CarrierShipmentID: l.CarrierShipmentID, Reference: "shp_0123456789abcdef01234567"})
			return err
		}},
		{"buy, find the purchase, track", func(t *testing.T, c *Carrier) error {
			req := buyRequest(domesticShipment(), "Ground")
			l, err := c.Buy(ctx, req)
			if err != nil {
				return err
			}
			if _, found, err := c.FindPurchase(ctx, req); err != nil || !found {
				t.Errorf("FindPurchase: found %v, %v", found, err)
			}
			_, err = c.Track(ctx, l.TrackingNumber)
			return err
		}},
		{"verify", func(t *testing.T, c *Carrier) error {
			_, err := c.Verify(ctx, usAddress())
			return err
		}},
		{"pickup, find it, and cancel", func(t *testing.T, c *Carrier) error {
			conf, err := c.SchedulePickup(ctx, pickup)
			if err != nil {
				return err
			}
			if found, ok, err := c.FindPickup(ctx, pickup); err != nil || !ok || found != conf {
				t.Errorf("FindPickup: %+v %v %v, want %+v", found, ok, err, conf)
			}
			return c.CancelPickup(ctx, carriers.PickupCancelRequest{Reference: pickup.Reference,
				ConfirmationNumber: conf.ConfirmationNumber, Location: conf.Location, Address: pickup.Address,
				ReadyAt: pickup.ReadyAt})
		}},
		// The fake's own answers to what it refuses or does not know are
		// answers too: they must be documented ones.
		{"track to delivery, then a number never sold", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Ground"))
			if err != nil {
				return err
			}
			for range 6 {
				if _, err := c.Track(ctx, l.TrackingNumber); err != nil {
					return err
				}
			}
			_, err = c.Track(ctx, "1Z999AA10123456784")
			return err
		}},
		{"void twice, then track the voided label", func(t *testing.T, c *Carrier) error {
			l, err := c.Buy(ctx, buyRequest(domesticShipment(), "Ground"))
			if err != nil {
				return err
			}
			void := carriers.VoidRequest{TrackingNumber: l.TrackingNumber, Reference: "shp_0123456789abcdef01234567"}
			if _, err := c.Void(ctx, void); err != nil {
				return err
			}
			_, _ = c.Void(ctx, void) // refused or reported as voided: the answer is what is checked
			_, err = c.Track(ctx, l.TrackingNumber)
			return err
		}},
		{"find a purchase never made", func(t *testing.T, c *Carrier) error {
			if _, found, err := c.FindPurchase(ctx, buyRequest(domesticShipment(), "Ground")); err != nil || found {
				t.Errorf("FindPurchase: found %v, %v", found, err)
			}
			return nil
		}},
		{"pickup where UPS does not come", func(t *testing.T, c *Carrier) error {
			p := pickup
			p.Address.Zip = upsfake.PickupNoServicePostal
			if _, err := c.SchedulePickup(ctx, p); err == nil {
				t.Error("a pickup at an address without service was scheduled")
			}
			return nil
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
		ops := docs.CheckExchanges(t, rec.Exchanges(), nil)
		for _, op := range ops {
			seen[op] = true
		}
		t.Logf("%s: %s", f.name, strings.Join(ops, "; "))
	}
	// Every operation the adapter calls was exercised.
	want := []string{
		"AddressValidation.yaml POST /addressvalidation/{version}/{requestoption} (AddressValidation)",
		"OAuthClientCredentials.yaml POST /security/v1/oauth/token (CreateToken)",
		"Pickup.yaml DELETE /shipments/{version}/pickup/{CancelBy} (Pickup Cancel)",
		"Pickup.yaml GET /shipments/{version}/pickup/{pickuptype} (Pickup Pending Status)",
		"Pickup.yaml POST /pickupcreation/{version}/pickup (Pickup Creation)",
		"Rating.yaml POST /rating/{version}/{requestoption} (Rate)",
		"Shipping.yaml DELETE /shipments/{version}/void/cancel/{shipmentidentificationnumber} (VoidShipment)",
		"Shipping.yaml POST /labels/{version}/recovery (LabelRecovery)",
		"Shipping.yaml POST /shipments/{version}/ship (Shipment)",
		"Tracking.yaml GET /track/v1/details/{inquiryNumber} (getSingleTrackResponseUsingGET)",
	}
	if diff := cmp.Diff(want, slices.Sorted(maps.Keys(seen))); diff != "" {
		t.Errorf("operations exercised (-want +got):\n%s", diff)
	}
}
