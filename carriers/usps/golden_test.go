package usps

import (
	"context"
	"net/url"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// TestGoldenRequests compares every request body the adapter sends with a
// reviewed file under testdata/golden. Regenerate them with
//
//	go test ./carriers/usps/ -run Golden -update
//
// and read the diff: it is the adapter's wire format.
func TestGoldenRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("rates", func(t *testing.T) {
		t.Parallel()
		fake := newFake(t)
		c := newCarrier(t, fake)
		// 24 oz must go out as weight 1.5 (pounds), inches unchanged.
		if _, err := c.Rates(ctx, domesticShipment()); err != nil {
			t.Fatal(err)
		}
		golden(t, "rates_domestic.json", fake.LastRequest(uspsfake.OpRates))

		s := domesticShipment()
		s.Options.SignatureConfirmation = true
		s.Parcel = carriers.Parcel{WeightOz: 3.3} // no dimensions given
		if _, err := c.Rates(ctx, s); err != nil {
			t.Fatal(err)
		}
		golden(t, "rates_signature_no_dimensions.json", fake.LastRequest(uspsfake.OpRates))

		if _, err := c.Rates(ctx, internationalShipment()); err != nil {
			t.Fatal(err)
		}
		golden(t, "rates_international.json", fake.LastRequest(uspsfake.OpRates))
	})

	t.Run("buy", func(t *testing.T) {
		t.Parallel()
		fake := newFake(t)
		c := newCarrier(t, fake)
		s := domesticShipment()
		s.Options.SignatureConfirmation = true
		_, err := c.Buy(ctx, carriers.BuyRequest{Reference: "shp_0123456789abcdef01234567", Shipment: s,
			Rate: carriers.Rate{Carrier: "USPS", Service: "GroundAdvantage"}})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "label_domestic.json", fake.LastRequest(uspsfake.OpLabel))
		golden(t, "payment_authorization.json", fake.LastRequest(uspsfake.OpPayment))

		_, err = c.Buy(ctx, carriers.BuyRequest{Reference: "shp_89abcdef0123456789abcdef", Shipment: internationalShipment(),
			Rate: carriers.Rate{Carrier: "USPS", Service: "PriorityMailInternational"}})
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "label_international.json", fake.LastRequest(uspsfake.OpInternationalLabel))
	})

	t.Run("track", func(t *testing.T) {
		t.Parallel()
		fake := newFake(t)
		c := newCarrier(t, fake)
		if _, err := c.Track(ctx, "9205590234567800000011"); err != nil {
			t.Fatal(err)
		}
		golden(t, "track.json", fake.LastRequest(uspsfake.OpTrack))
	})

	t.Run("verify", func(t *testing.T) {
		t.Parallel()
		fake := newFake(t)
		c := newCarrier(t, fake)
		if _, err := c.Verify(ctx, verifier.Address{Company: "Acme", Street1: "3120 M Street", Street2: "Suite 4",
			City: "Washington", State: "dc", Zip: "20007-3704", Country: "US"}); err != nil {
			t.Fatal(err)
		}
		q, err := url.ParseQuery(string(fake.LastRequest(uspsfake.OpAddress)))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "address_query.json", []byte(mustJSON(t, q)))
	})
}
