package shipping_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// services are the domain services over a fresh database, without HTTP.
type services struct {
	st       *store.Store
	accounts *accounts.Service
	shipping *shipping.Service
	caller   accounts.Caller
}

func newServices(t *testing.T) *services {
	t.Helper()
	s := shipping.NewTestServices(t, accounts.Test, shipping.Config{})
	return &services{st: s.Store, accounts: s.Accounts, shipping: s.Shipping, caller: s.Caller}
}

// credit puts cents on the caller's balance, as a voided label's refund would.
func (s *services) credit(t *testing.T, cents int64) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	err := s.st.Tx(ctx, func(tx *store.Tx) error {
		row := store.Shipment{ID: store.NewID("shp"), AccountID: s.caller.AccountID, Mode: string(s.caller.Mode), Status: "voided",
			CreatedAt: now, UpdatedAt: now, Carrier: "USPS", Service: "Priority", ServiceCategory: "standard",
			CustomerPriceCents: cents, Currency: "USD", Request: `{"fromAddress":{"street1":"x","city":"x","zip":"1","country":"US"},"toAddress":{"street1":"x","city":"x","zip":"1","country":"US"},"parcel":{"weightOz":1}}`, Source: "api"}
		if err := tx.InsertShipment(ctx, &row); err != nil {
			return err
		}
		_, err := tx.AddLedgerEntry(ctx, store.LedgerEntry{AccountID: row.AccountID, Mode: row.Mode, ShipmentID: row.ID,
			Kind: store.LedgerRefundCredit, AmountCents: cents, CreatedAt: now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newLabel() shipping.NewLabel {
	ny, ca := "NY", "CA"
	shop, ada, phone := "Shop", "Ada Lovelace", "+1 212 555 0100"
	return shipping.NewLabel{Input: shipping.Input{
		From:   shipping.Address{Name: &shop, Phone: &phone, Street1: "1 Market St", City: "San Francisco", State: &ca, Zip: "94105", Country: "US"},
		To:     shipping.Address{Name: &ada, Phone: &phone, Street1: "350 Fifth Avenue", City: "New York", State: &ny, Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(float64(16))},
	}}
}

// TestBalanceDebitRace runs concurrent creates against a balance that pays
// for some of them: together they take exactly the balance, never more, and
// the ledger agrees with the balance. The balance row is locked for each
// debit, so this holds on any database, not only one that serialises writers.
func TestBalanceDebitRace(t *testing.T) {
	t.Parallel()
	s := newServices(t)
	ctx := context.Background()
	quote, err := s.shipping.Quote(ctx, s.caller, newLabel().Input)
	if err != nil {
		t.Fatal(err)
	}
	price := quote.Rates[0].CustomerPriceCents // the cheapest: what a create without a hint buys
	const creates = 20
	balance := price*creates/3 + price/2 // pays for a third and a half
	s.credit(t, balance)

	shipments := make([]shipping.Shipment, creates)
	var wg sync.WaitGroup
	for i := range shipments {
		wg.Go(func() {
			sh, _, err := s.shipping.Create(ctx, s.caller, newLabel())
			if err != nil {
				t.Error(err)
			}
			shipments[i] = sh
		})
	}
	wg.Wait()
	var applied, charged int64
	for _, sh := range shipments {
		if sh.BalanceAppliedCents < 0 || sh.BalanceAppliedCents+sh.ChargeAmountCents != price {
			t.Fatalf("shipment %s: applied %d + charged %d != price %d", sh.ID, sh.BalanceAppliedCents, sh.ChargeAmountCents, price)
		}
		applied += sh.BalanceAppliedCents
		charged += sh.ChargeAmountCents
	}
	if applied != balance {
		t.Fatalf("creates took %d from a balance of %d", applied, balance)
	}
	entries, left, err := s.shipping.Ledger(ctx, s.caller)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, e := range entries {
		sum += e.AmountCents
	}
	if left != 0 || sum != 0 {
		t.Fatalf("balance %d and ledger sum %d after the race, want 0 and 0", left, sum)
	}
}

// A create made with a token revoked after it authenticated stores nothing.
func TestCreateRechecksTheToken(t *testing.T) {
	t.Parallel()
	s := newServices(t)
	ctx := context.Background()
	if err := s.accounts.RevokeToken(ctx, s.caller.TokenID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.shipping.Create(ctx, s.caller, newLabel()); !errors.Is(err, accounts.ErrTokenRevoked) {
		t.Fatalf("err = %v, want ErrTokenRevoked", err)
	}
}
