package addresses_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
)

func ptr[T any](v T) *T { return &v }

// The address book keeps what the rules of an address accept, newest
// first, once per idempotency key; verification needs the mode's verifier.
func TestAddressBook(t *testing.T) {
	t.Parallel()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	svc := addresses.New(s.Store, s.Shipping, s.Accounts, s.Idempotency)
	ctx := context.Background()
	home := shipping.Address{Name: ptr("Ada"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"}
	first, _, err := svc.SaveAddress(ctx, s.Caller, addresses.NewAddress{Address: home, IdempotencyKey: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	again, replayed, err := svc.SaveAddress(ctx, s.Caller, addresses.NewAddress{Address: home, IdempotencyKey: "a1"})
	if err != nil || !replayed || again.ID != first.ID {
		t.Errorf("the same key again: %+v, replayed %v, %v; want the first", again, replayed, err)
	}
	noState := home
	noState.State = nil
	var input *shipping.InputError
	if _, _, err := svc.SaveAddress(ctx, s.Caller, addresses.NewAddress{Address: noState}); !errors.As(err, &input) {
		t.Errorf("a US address without a state: %v, want an InputError", err)
	}
	page, more, err := svc.Addresses(ctx, s.Caller, paging.Request{Limit: 10})
	if err != nil || more || len(page) != 1 {
		t.Fatalf("the book: %v (more %v), %v", page, more, err)
	}
	if d := cmp.Diff(first, page[0]); d != "" {
		t.Errorf("listed (-saved +listed):\n%s", d)
	}
	if _, err := svc.VerifyAddress(ctx, s.Caller, home); !errors.Is(err, addresses.ErrVerifierNotConfigured) {
		t.Errorf("verify without a verifier: %v, want ErrVerifierNotConfigured", err)
	}
}
