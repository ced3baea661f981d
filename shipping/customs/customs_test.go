package customs_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
)

func ptr[T any](v T) *T { return &v }

// An international label's customs document is stored when it is bought
// and served on its own; a domestic label has none.
func TestCustomsDocumentOfInternationalLabelsOnly(t *testing.T) {
	t.Parallel()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	s.Start(t, labeljobs.New(s.Store, s.Shipping).RegisterWorkers)
	svc := customs.New(s.Store, s.Shipping)
	ctx := context.Background()

	domestic := s.Label(t, "Ada Lovelace")
	if _, err := svc.CustomsDocument(ctx, s.Caller, domestic.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("a domestic label's customs document: %v, want ErrNotFound", err)
	}

	in := shipping.NewLabel{Input: shipping.Input{
		From: shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco",
			State: ptr("CA"), Zip: "94105", Country: "US"},
		To: shipping.Address{Name: ptr("Grace Hopper"), Phone: ptr("+44 20 7946 0000"), Street1: "10 Downing St", City: "London",
			Zip: "SW1A 2AA", Country: "GB"},
		Parcel: shipping.Parcel{WeightOz: new(float64(16))},
		Customs: &shipping.Customs{ContentsType: "merchandise", Items: []shipping.CustomsItem{
			{Description: "Wool scarf", Quantity: 2, ValueCents: 4500, WeightOz: new(float64(12)), HSTariffNumber: ptr("611710"), OriginCountry: ptr("US")}}},
	}}
	sh, _, err := s.Shipping.Create(ctx, s.Caller, in)
	if err != nil {
		t.Fatal(err)
	}
	shippingtest.Eventually(t, "the international label bought", func() bool {
		sh, err = s.Shipping.Get(ctx, s.Caller, sh.ID)
		return err == nil && sh.Status == shipping.Purchased
	})
	doc, err := svc.CustomsDocument(ctx, s.Caller, sh.ID)
	if err != nil || !bytes.HasPrefix(doc, []byte("%PDF")) {
		t.Fatalf("the customs document: %d bytes, %v", len(doc), err)
	}
	if k := customs.Key(sh.ID); !strings.HasSuffix(k, sh.ID+".customs.pdf") || !strings.HasPrefix(k, "labels/") {
		t.Errorf("Key(%s) = %s, want beside the label", sh.ID, k)
	}
}
