package fakekit_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// A fake's own records embed the kit's: label a sale, booked a pickup.
type (
	label struct {
		fakekit.Sale
		scans int
	}
	booked struct {
		fakekit.Pickup
		date string
	}
)

func TestSalesStates(t *testing.T) {
	t.Parallel()
	var b fakekit.Sales[*label]
	// Sold in this order; tracking numbers that do not sort that way.
	b.Sell(&label{Sale: fakekit.Sale{TrackingNumber: "9", Reference: "shp_1", Account: "A1", Pieces: []string{"9", "10"}}})
	b.Sell(&label{Sale: fakekit.Sale{TrackingNumber: "10", Reference: "shp_2", Account: "A1", Pieces: []string{"10"}, Return: true}})
	b.Sell(&label{Sale: fakekit.Sale{TrackingNumber: "1", Reference: "shp_1", Account: "B2", Pieces: []string{"1"}}})

	errPickedUp := errors.New("picked up")
	pickedUp := func(l *label) error {
		if l.scans > 1 {
			return errPickedUp
		}
		return nil
	}
	b.With("1", func(l *label) { l.scans = 2 })
	for _, tc := range []struct {
		number, account string
		want            error
	}{
		{"nope", "", fakekit.ErrNotSold},
		{"9", "B2", fakekit.ErrNotSold}, // another account's label
		{"1", "B2", errPickedUp},
		{"9", "A1", nil},
		{"9", "A1", fakekit.ErrVoided},
	} {
		if err := b.Void(tc.number, tc.account, pickedUp); !errors.Is(err, tc.want) {
			t.Errorf("Void(%s, %s) = %v, want %v", tc.number, tc.account, err, tc.want)
		}
	}
	b.With("10", func(l *label) { l.State = fakekit.RefundRequested })

	ignoreTimes := cmpopts.IgnoreFields(fakekit.Sale{}, "SoldAt")
	want := []fakekit.Sale{
		{TrackingNumber: "9", Reference: "shp_1", Account: "A1", Pieces: []string{"9", "10"}, State: fakekit.Voided},
		{TrackingNumber: "1", Reference: "shp_1", Account: "B2", Pieces: []string{"1"}},
	}
	if diff := cmp.Diff(want, b.ByReference("shp_1"), ignoreTimes, cmpopts.IgnoreUnexported(fakekit.Sale{})); diff != "" {
		t.Errorf("ByReference, in the order sold (-want +got):\n%s", diff)
	}
	pieces, voided := b.Pieces("9")
	got := map[string]any{
		"pieces of 9": pieces, "9 voided": voided, "10 return": b.IsReturn("10"), "9 return": b.IsReturn("9"),
		"10 refund": b.ByReference("shp_2")[0].State == fakekit.RefundRequested, "count": b.Len(),
		"unknown": b.With("nope", func(*label) { t.Error("With ran on an unknown number") }),
	}
	if diff := cmp.Diff(map[string]any{
		"pieces of 9": []string{"9", "10"}, "9 voided": true, "10 return": true, "9 return": false,
		"10 refund": true, "count": 3, "unknown": false,
	}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var order []string
	b.Each(func(l *label) { order = append(order, l.TrackingNumber) })
	if diff := cmp.Diff([]string{"9", "10", "1"}, order); diff != "" {
		t.Errorf("Each, in the order sold (-want +got):\n%s", diff)
	}
}

func TestSalesAreSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	var b fakekit.Sales[*label]
	b.Sell(&label{Sale: fakekit.Sale{TrackingNumber: "1"}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.With("1", func(l *label) { l.scans++ })
			}
		})
	}
	wg.Wait()
	b.With("1", func(l *label) {
		if l.scans != 800 {
			t.Errorf("scans = %d, want 800", l.scans)
		}
	})
}

func TestPickupsStates(t *testing.T) {
	t.Parallel()
	var b fakekit.Pickups[*booked]
	b.Schedule(&booked{Pickup: fakekit.Pickup{Code: "PRN1", Body: []byte(`{"n":1}`)}, date: "2026-03-10"})
	errWrongDate := errors.New("wrong date")
	onDate := func(date string) func(*booked) error {
		return func(p *booked) error {
			if p.date != date {
				return errWrongDate
			}
			return nil
		}
	}
	for _, tc := range []struct {
		code, date string
		want       error
	}{
		{"PRN9", "2026-03-10", fakekit.ErrNoPickup},
		{"PRN1", "2026-03-11", errWrongDate},
		{"PRN1", "2026-03-10", nil},
		{"PRN1", "2026-03-10", fakekit.ErrPickupCancelled},
	} {
		if err := b.Cancel(tc.code, onDate(tc.date)); !errors.Is(err, tc.want) {
			t.Errorf("Cancel(%s, %s) = %v, want %v", tc.code, tc.date, err, tc.want)
		}
	}
	body, cancelled, ok := b.Pickup("PRN1")
	if string(body) != `{"n":1}` || !cancelled || !ok {
		t.Errorf("Pickup(PRN1) = %s, %v, %v; want its body, cancelled", body, cancelled, ok)
	}
	if _, _, ok := b.Pickup("PRN9"); ok {
		t.Error("Pickup(PRN9) found an unknown pickup")
	}
}
