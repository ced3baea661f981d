package labeljobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/fakeclock"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
	"github.com/shipd-dev/shipd/webhooks"
)

// setupReturnWorkers is setupWorkers with the sandbox as the carriers of
// both modes and a caller in mode, so that live mode's card charge shows.
func setupReturnWorkers(t *testing.T, mode accounts.Mode) *workerBundle {
	t.Helper()
	ctx := context.Background()
	st := storetest.Open(t)
	clock := fakeclock.New(time.Date(2031, time.March, 4, 10, 0, 0, 0, time.UTC))
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{5}, 32))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := store.OpenBlobs(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	acc := accounts.New(st, accounts.Config{Now: clock.Now})
	idem := idempotency.New(st, cipher, idempotency.Config{Now: clock.Now})
	wh := webhooks.New(st, acc, idem, cipher, webhooks.Config{Now: clock.Now})
	cs := sandbox.New(sandbox.Config{ScanInterval: scanEvery, Now: clock.Now})
	svc, err := shipping.New(st, acc, wh, idem, shipping.Config{Now: clock.Now, JobNow: clock.Now, Carriers: carriers.NewRegistry(cs, cs), Catalog: connectors.Catalog(),
		Documents: docs, EventData: func(s shipping.Shipment) (json.RawMessage, error) { return json.Marshal(s) }})
	if err != nil {
		t.Fatal(err)
	}
	a, err := acc.CreateAccount(ctx, "Acme", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: mode, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := acc.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := st.JobClient(&river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return &workerBundle{st: st, svc: svc, lj: New(st, svc), clock: clock, caller: c, jobs: jobs}
}

func (b *workerBundle) purchase(t *testing.T, id string) shipping.Shipment {
	t.Helper()
	if err := (&purchaseWorker{s: b.lj}).Work(context.Background(), job[shipping.PurchaseArgs](t, b, shipping.PurchaseArgs{}.Kind(), "shipment_id", id)); err != nil {
		t.Fatal(err)
	}
	sh := b.get(t, id)
	if sh.Status != shipping.Purchased {
		t.Fatalf("after the purchase job: %s (%v)", sh.Status, sh.ErrorMessage)
	}
	return sh
}

// scan applies scan index of the shipment's tracker, and returns the shipment.
func (b *workerBundle) scan(t *testing.T, sh shipping.Shipment, index int) shipping.Shipment {
	t.Helper()
	b.clock.Advance(scanEvery)
	j := &river.Job[scanArgs]{JobRow: job[scanArgs](t, b, scanArgs{}.Kind(), "tracker_id", *sh.TrackerID).JobRow,
		Args: scanArgs{TrackerID: *sh.TrackerID, Index: index}}
	if err := (&scanWorker{s: b.lj}).Work(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return b.get(t, sh.ID)
}

// addBalance puts cents on the caller's balance, as a voided label's refund would.
func (b *workerBundle) addBalance(t *testing.T, cents int64) {
	t.Helper()
	ctx := context.Background()
	now := b.clock.Now()
	err := b.st.Tx(ctx, func(tx *store.Tx) error {
		row := store.Shipment{ID: store.NewID("shp"), AccountID: b.caller.AccountID, Mode: string(b.caller.Mode), Status: "voided",
			CreatedAt: now, UpdatedAt: now, Carrier: "USPS", Service: "Priority", ServiceCategory: "standard",
			CustomerPriceCents: cents, Currency: "USD", Request: `{}`, Source: "api"}
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

func (b *workerBundle) balance(t *testing.T) int64 {
	t.Helper()
	_, bal, err := b.svc.Ledger(context.Background(), b.caller)
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

func (b *workerBundle) returnOf(t *testing.T, id string, sel shipping.Selection) shipping.Shipment {
	t.Helper()
	sh, _, err := b.svc.Create(context.Background(), b.caller, shipping.NewLabel{Selection: sel, Return: shipping.Return{Of: &id}})
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// A return label is charged once, at the carrier's first scan that uses it
// (the drop-off), in that scan's transaction: the balance first, the card
// for the rest (live mode); the create, the purchase and the pre-transit
// scan move no money, and later scans none either.
func TestReturnIsChargedOnceAtTheFirstUse(t *testing.T) {
	t.Parallel()
	b := setupReturnWorkers(t, accounts.Live)
	out := b.purchase(t, b.create(t, "Ada Lovelace").ID)

	balance := int64(100)
	b.addBalance(t, balance)
	ret := b.returnOf(t, out.ID, shipping.Selection{})
	if !ret.IsReturn || ret.ReturnOf == nil || *ret.ReturnOf != out.ID {
		t.Fatalf("return: isReturn %v returnOf %v", ret.IsReturn, ret.ReturnOf)
	}
	if ret.CustomerPriceCents <= balance || ret.CarrierRateCents == 0 {
		t.Fatalf("the return's price %d (rate %d) should be shown and exceed the balance %d", ret.CustomerPriceCents, ret.CarrierRateCents, balance)
	}
	unpaid := func(when string, sh shipping.Shipment) {
		t.Helper()
		if sh.ChargeAmountCents != 0 || sh.BalanceAppliedCents != 0 {
			t.Errorf("%s: charge %d, balance applied %d, want 0 and 0", when, sh.ChargeAmountCents, sh.BalanceAppliedCents)
		}
		if moves := b.ledgerOf(t, ret.ID); len(moves) != 0 {
			t.Errorf("%s: ledger %+v, want nothing", when, moves)
		}
		if got := b.balance(t); got != balance {
			t.Errorf("%s: balance %d, want %d", when, got, balance)
		}
	}
	unpaid("created", ret)
	ret = b.purchase(t, ret.ID)
	unpaid("purchased", ret)
	ret = b.scan(t, ret, 0)
	if *ret.TrackingStatus != carriers.StatusPreTransit {
		t.Fatalf("first scan %s, want pre_transit", *ret.TrackingStatus)
	}
	unpaid("pre-transit", ret)

	ret = b.scan(t, ret, 1) // the customer's drop-off
	scannedAt := b.clock.Now()
	if ret.BalanceAppliedCents != balance || ret.ChargeAmountCents != ret.CustomerPriceCents-balance {
		t.Errorf("after the drop-off: balance applied %d, charge %d, want %d and %d",
			ret.BalanceAppliedCents, ret.ChargeAmountCents, balance, ret.CustomerPriceCents-balance)
	}
	want := []shipping.LedgerEntry{
		{ShipmentID: ret.ID, Kind: shipping.LedgerBalanceApplied, AmountCents: -balance, CreatedAt: scannedAt},
		{ShipmentID: ret.ID, Kind: shipping.LedgerCardCharge, AmountCents: ret.CustomerPriceCents - balance, CreatedAt: scannedAt},
	}
	if d := cmp.Diff(want, b.ledgerOf(t, ret.ID)); d != "" {
		t.Errorf("ledger after the drop-off (-want +got):\n%s", d)
	}
	if got := b.balance(t); got != 0 {
		t.Errorf("balance %d after the drop-off, want 0", got)
	}

	// The same scan again, and the later scans, charge nothing more.
	ret = b.scan(t, ret, 1)
	ret = b.scan(t, ret, 2)
	if d := cmp.Diff(want, b.ledgerOf(t, ret.ID)); d != "" {
		t.Errorf("ledger after later scans (-want +got):\n%s", d)
	}
	if ret.ChargeAmountCents != ret.CustomerPriceCents-balance {
		t.Errorf("charge %d after later scans", ret.ChargeAmountCents)
	}
	// A used return is refused a refund, as any used label.
	var conflict *shipping.RefundConflictError
	if _, _, err := b.svc.Refund(context.Background(), b.caller, ret.ID, shipping.RefundRequest{}); !errors.As(err, &conflict) || conflict.Code != "ineligible_state" {
		t.Errorf("refund of a used return: %v, want ineligible_state", err)
	}
}

// A return label never used is never charged, and its refund credits nothing.
func TestUnusedReturnIsNeverCharged(t *testing.T) {
	t.Parallel()
	b := setupReturnWorkers(t, accounts.Live)
	ctx := context.Background()
	out := b.purchase(t, b.create(t, "Ada Lovelace").ID)
	before := b.balance(t)
	ret := b.purchase(t, b.returnOf(t, out.ID, shipping.Selection{}).ID)
	ret = b.scan(t, ret, 0) // pre-transit: the label exists, nobody used it
	if _, _, err := b.svc.Refund(ctx, b.caller, ret.ID, shipping.RefundRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := (&voidWorker{s: b.lj}).Work(ctx, job[shipping.VoidArgs](t, b, shipping.VoidArgs{}.Kind(), "shipment_id", ret.ID)); err != nil {
		t.Fatal(err)
	}
	got := b.get(t, ret.ID)
	if got.Status != shipping.Voided || got.ChargeAmountCents != 0 || got.BalanceAppliedCents != 0 {
		t.Errorf("voided return: status %s charge %d balance applied %d", got.Status, got.ChargeAmountCents, got.BalanceAppliedCents)
	}
	if moves := b.ledgerOf(t, ret.ID); len(moves) != 0 {
		t.Errorf("ledger of an unused return: %+v, want nothing", moves)
	}
	if after := b.balance(t); after != before {
		t.Errorf("balance %d -> %d after an unused return's refund", before, after)
	}
}

// returnOf makes the return of the original: its addresses swapped, its
// parcel, its customs declared as returned goods, its carrier preferred.
func TestReturnOfTakesTheOriginal(t *testing.T) {
	t.Parallel()
	b := setupReturnWorkers(t, accounts.Test)
	ctx := context.Background()
	in := shipping.NewLabel{Input: shipping.Input{
		From:   shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
		To:     shipping.Address{Name: ptr("Ada Lovelace"), Phone: ptr("+44 20 7946 0000"), Street1: "10 Downing St", City: "London", Zip: "SW1A 2AA", Country: "GB"},
		Parcel: shipping.Parcel{WeightOz: new(float64(24)), LengthIn: ptr(10.0), WidthIn: ptr(8.0), HeightIn: ptr(4.0)},
		Customs: &shipping.Customs{ContentsType: carriers.ContentsMerchandise, Items: []shipping.CustomsItem{
			{Description: "Wool scarf", Quantity: 2, ValueCents: 4500, WeightOz: new(float64(12)), OriginCountry: ptr("US")}}},
	}, Selection: shipping.Selection{Carrier: ptr(sandbox.CarrierFedEx), ServiceCategory: ptr(carriers.CategoryExpress)}}
	out, _, err := b.svc.Create(ctx, b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	b.purchase(t, out.ID)

	// The quote prices the return first.
	q, err := b.svc.QuoteReturn(ctx, b.caller, shipping.Input{}, nil, shipping.Return{Of: &out.ID})
	if err != nil {
		t.Fatal(err)
	}
	ret := b.returnOf(t, out.ID, shipping.Selection{})
	if ret.Carrier != sandbox.CarrierFedEx {
		t.Errorf("return carrier %s, want the original's %s", ret.Carrier, sandbox.CarrierFedEx)
	}
	cheapestFedEx := shipping.Rate{}
	for _, r := range q.Rates {
		if r.Carrier == sandbox.CarrierFedEx {
			cheapestFedEx = r
			break
		}
	}
	if ret.Service != cheapestFedEx.Service || ret.CustomerPriceCents != cheapestFedEx.CustomerPriceCents {
		t.Errorf("return bought %s %s at %d, quoted cheapest FedEx %s at %d", ret.Carrier, ret.Service, ret.CustomerPriceCents,
			cheapestFedEx.Service, cheapestFedEx.CustomerPriceCents)
	}
	want := shipping.Input{From: in.To, To: in.From, Parcel: in.Parcel, Customs: &shipping.Customs{ContentsType: carriers.ContentsReturnedGoods, Items: in.Customs.Items}}
	if d := cmp.Diff(want, ret.Input); d != "" {
		t.Errorf("return input (-want +got):\n%s", d)
	}

	// What the body gives wins; a hint selects as usual.
	// (Not USPS: its return labels are domestic, and this one crosses a border.)
	given := b.returnOf(t, out.ID, shipping.Selection{Carrier: ptr(sandbox.CarrierUPS), ServiceCategory: ptr(carriers.CategoryStandard)})
	if given.Carrier != sandbox.CarrierUPS {
		t.Errorf("return with a carrier hint bought %s", given.Carrier)
	}
	parcel := shipping.Parcel{WeightOz: new(float64(5))}
	withParcel, _, err := b.svc.Create(ctx, b.caller, shipping.NewLabel{Input: shipping.Input{Parcel: parcel}, Return: shipping.Return{Of: &out.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(parcel, withParcel.Input.Parcel); d != "" {
		t.Errorf("given parcel (-want +got):\n%s", d)
	}
}

func TestReturnOfErrors(t *testing.T) {
	t.Parallel()
	b := setupReturnWorkers(t, accounts.Test)
	other := setupReturnWorkers(t, accounts.Test)
	ctx := context.Background()
	paying := b.create(t, "Ada Lovelace")
	purchased := b.purchase(t, b.create(t, "Ada Lovelace").ID)
	ret := b.returnOf(t, purchased.ID, shipping.Selection{})
	voided := b.purchase(t, b.create(t, "Ada Lovelace").ID)
	if _, _, err := b.svc.Refund(ctx, b.caller, voided.ID, shipping.RefundRequest{}); err != nil {
		t.Fatal(err)
	}
	foreign := other.purchase(t, other.create(t, "Ada Lovelace").ID)

	var input *shipping.InputError
	tests := []struct {
		name  string
		of    string
		check func(error) bool
	}{
		{"unknown", "shp_missing", func(err error) bool { return errors.Is(err, accounts.ErrNotFound) }},
		{"another account's", foreign.ID, func(err error) bool { return errors.Is(err, accounts.ErrNotFound) }},
		{"paying", paying.ID, func(err error) bool { return errors.Is(err, shipping.ErrReturnNotPurchased) }},
		{"being voided", voided.ID, func(err error) bool { return errors.Is(err, shipping.ErrReturnNotPurchased) }},
		{"a return", ret.ID, func(err error) bool {
			return errors.As(err, &input) && len(input.Issues) == 1 && input.Issues[0].Path == "returnOf"
		}},
	}
	for _, tt := range tests {
		_, _, err := b.svc.Create(ctx, b.caller, shipping.NewLabel{Return: shipping.Return{Of: &tt.of}})
		if !tt.check(err) {
			t.Errorf("create, return of %s: %v", tt.name, err)
		}
		_, err = b.svc.QuoteReturn(ctx, b.caller, shipping.Input{}, nil, shipping.Return{Of: &tt.of})
		if !tt.check(err) {
			t.Errorf("quote, return of %s: %v", tt.name, err)
		}
	}

	// isReturn without returnOf needs every part.
	_, _, err := b.svc.Create(ctx, b.caller, shipping.NewLabel{Return: shipping.Return{IsReturn: true}})
	if !errors.As(err, &input) || len(input.Issues) != 3 || !input.Issues[0].Missing {
		t.Errorf("isReturn without addresses: %v", err)
	}
}

// isReturn with explicit addresses makes a return label as given.
func TestIsReturnWithAddresses(t *testing.T) {
	t.Parallel()
	b := setupReturnWorkers(t, accounts.Test)
	in := shipping.NewLabel{Input: shipping.Input{
		From:   shipping.Address{Name: ptr("Ada Lovelace"), Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
		To:     shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(float64(16))},
	}, Return: shipping.Return{IsReturn: true}}
	sh, _, err := b.svc.Create(context.Background(), b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	if !sh.IsReturn || sh.ReturnOf != nil || sh.ChargeAmountCents != 0 {
		t.Errorf("isReturn label: isReturn %v returnOf %v charge %d", sh.IsReturn, sh.ReturnOf, sh.ChargeAmountCents)
	}
	if d := cmp.Diff(in.Input, sh.Input); d != "" {
		t.Errorf("input (-want +got):\n%s", d)
	}
}
