package contracttest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/gen"
)

// The Go client generated from the contract (gen/, `client: true`) works
// against the server: quote, buy, poll until purchased, download the PDF,
// refund, poll until voided.
func TestGeneratedClient(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fx := suite.target.Fixtures
	account, err := fx.CreateAccount(ctx, "contract client", true)
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := fx.CreateToken(ctx, account, "test", []string{"write:shipments"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gen.NewClientWithResponses(suite.target.BaseURL+apiPrefix,
		gen.WithHTTPClient(suite.target.Client),
		gen.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+token)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}

	state := "CA"
	toState := "NY"
	name, shop := "Ada Lovelace", "Shop"
	fromPhone, toPhone := "415 555 0100", "212 555 0199"
	dim := func(v float64) *float64 { return &v }
	from := gen.Address{Name: &shop, Phone: &fromPhone, Street1: "1 Market St", City: "San Francisco", State: &state, Zip: "94105", Country: "US"}
	to := gen.Address{Name: &name, Phone: &toPhone, Street1: "350 Fifth Avenue", City: "New York", State: &toState, Zip: "10118", Country: "US"}
	parcel := gen.Parcel{WeightOz: dim(32), LengthIn: dim(10), WidthIn: dim(8), HeightIn: dim(4)}

	quote, err := c.QuoteLabelWithResponse(ctx, gen.QuoteLabelJSONRequestBody{FromAddress: &from, ToAddress: &to, Parcel: &parcel})
	if err != nil {
		t.Fatal(err)
	}
	if quote.JSON200 == nil || len(quote.JSON200.Rates) == 0 {
		t.Fatalf("quote: %d %s", quote.StatusCode(), quote.Body)
	}
	cheapest := quote.JSON200.Rates[0]

	// A label is refundable until the carrier first scans it, which the
	// in-process sandbox does 200 ms after the purchase: on a loaded machine
	// the refund can come after that scan (409 ineligible_state, as the
	// contract says). Each such attempt buys another label; three in a row
	// would be a real fault.
	var sh gen.Shipment
	var poll func(want gen.ShipmentStatus) gen.Shipment
	for attempt := 1; ; attempt++ {
		created, err := c.CreateLabelWithResponse(ctx, gen.CreateLabelJSONRequestBody{
			FromAddress: &from, ToAddress: &to, Parcel: &parcel, Carrier: &cheapest.Carrier, Service: &cheapest.Service})
		if err != nil {
			t.Fatal(err)
		}
		if created.JSON202 == nil {
			t.Fatalf("create: %d %s", created.StatusCode(), created.Body)
		}
		sh = *created.JSON202
		if sh.Status != gen.ShipmentStatusPaying || sh.CustomerPriceCents != cheapest.CustomerPriceCents {
			t.Fatalf("created shipment: status %s, price %d; want paying, %d", sh.Status, sh.CustomerPriceCents, cheapest.CustomerPriceCents)
		}
		id := sh.Id
		poll = func(want gen.ShipmentStatus) gen.Shipment {
			t.Helper()
			for {
				got, err := c.GetLabelWithResponse(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if got.JSON200 == nil {
					t.Fatalf("get: %d %s", got.StatusCode(), got.Body)
				}
				if got.JSON200.Status == want {
					return *got.JSON200
				}
				if ctx.Err() != nil {
					t.Fatalf("shipment still %s, want %s", got.JSON200.Status, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		purchased := poll(gen.ShipmentStatusPurchased)
		if purchased.TrackingNumber == nil || purchased.LabelUrl == nil {
			t.Fatalf("purchased without trackingNumber or labelUrl: %+v", purchased)
		}

		pdf, err := c.GetLabelPDFWithResponse(ctx, sh.Id)
		if err != nil {
			t.Fatal(err)
		}
		if pdf.StatusCode() != http.StatusOK || !strings.HasPrefix(string(pdf.Body), "%PDF-") {
			t.Fatalf("label.pdf: %d, body starts %q", pdf.StatusCode(), truncate(pdf.Body, 20))
		}
		if ct := pdf.HTTPResponse.Header.Get("Content-Type"); ct != "application/pdf" {
			t.Errorf("label.pdf Content-Type %q", ct)
		}

		refund, err := c.RefundLabelWithResponse(ctx, sh.Id, gen.RefundLabelJSONRequestBody{})
		if err != nil {
			t.Fatal(err)
		}
		if refund.JSON409 != nil && refund.JSON409.Code == "ineligible_state" && attempt < 3 {
			t.Logf("attempt %d: the label was scanned before its refund: %s", attempt, refund.Body)
			continue
		}
		if refund.JSON202 == nil || refund.JSON202.Status != gen.ShipmentStatusVoidRequested {
			t.Fatalf("refund: %d %s", refund.StatusCode(), refund.Body)
		}
		break
	}
	voided := poll(gen.ShipmentStatusVoided)
	if voided.VoidedAt == nil {
		t.Errorf("voided without voidedAt")
	}

	// Errors decode into the contract's Error type too.
	missing, err := c.GetLabelWithResponse(ctx, "shp_missing")
	if err != nil {
		t.Fatal(err)
	}
	if missing.JSON404 == nil || missing.JSON404.Code != "not_found" {
		t.Fatalf("missing shipment: %d %s", missing.StatusCode(), missing.Body)
	}
}
