package shipping_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
)

// TestStatusTransitions walks every (status, trigger) pair: the allowed ones
// lead where the table says, every other one is refused.
func TestStatusTransitions(t *testing.T) {
	t.Parallel()
	const refused = shipping.Status("")
	want := map[shipping.Status]map[shipping.Trigger]shipping.Status{
		shipping.Paying: {
			shipping.PurchaseSucceeded: shipping.Purchased, shipping.PurchaseDeferred: shipping.Pending, shipping.PurchaseFailed: shipping.Failed,
		},
		shipping.Pending: {
			shipping.PurchaseSucceeded: shipping.Purchased, shipping.PurchaseDeferred: shipping.Pending, shipping.PurchaseFailed: shipping.Failed,
		},
		shipping.Purchased:     {shipping.RefundRequested: shipping.VoidRequested},
		shipping.VoidRequested: {shipping.VoidConfirmed: shipping.Voided, shipping.VoidRejected: shipping.Purchased},
		shipping.Failed:        {},
		shipping.Voided:        {},
	}
	for _, from := range shipping.Statuses() {
		for _, trig := range shipping.Triggers() {
			t.Run(string(from)+"/"+string(trig), func(t *testing.T) {
				to, ok := from.Next(trig)
				expected, allowed := want[from][trig]
				if !allowed {
					expected = refused
				}
				if !ok {
					to = refused
				}
				if to != expected {
					t.Fatalf("%s --%s--> %q, want %q", from, trig, to, expected)
				}
			})
		}
	}
}

// TestStatusRules checks the questions the rest of the code asks a status.
func TestStatusRules(t *testing.T) {
	t.Parallel()
	type rules struct {
		Purchasing, LabelPending bool
		RefundCode               string // "" when refundable
		OnScan                   shipping.ScanAction
	}
	want := map[shipping.Status]rules{
		shipping.Paying:        {Purchasing: true, LabelPending: true, RefundCode: "not_purchased", OnScan: shipping.ScanDrop},
		shipping.Pending:       {Purchasing: true, LabelPending: true, RefundCode: "ineligible_state", OnScan: shipping.ScanDrop},
		shipping.Purchased:     {OnScan: shipping.ScanApply},
		shipping.Failed:        {RefundCode: "ineligible_state", OnScan: shipping.ScanDrop},
		shipping.VoidRequested: {RefundCode: "refund_in_progress", OnScan: shipping.ScanHold},
		shipping.Voided:        {RefundCode: "already_voided", OnScan: shipping.ScanDrop},
	}
	got := map[shipping.Status]rules{}
	for _, s := range shipping.Statuses() {
		r := rules{Purchasing: s.Purchasing(), LabelPending: s.LabelPending(), OnScan: s.OnScan()}
		if err := s.CanRefund(); err != nil {
			var rc *shipping.RefundConflictError
			if !errors.As(err, &rc) || rc.Message == "" {
				t.Fatalf("%s: CanRefund = %v, want a RefundConflictError with a message", s, err)
			}
			r.RefundCode = rc.Code
		}
		got[s] = r
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("status rules (-want +got):\n%s", diff)
	}
}

// A purchased label is refundable until the carrier scans it.
func TestCanRefundLabelUntilScanned(t *testing.T) {
	t.Parallel()
	for _, tracking := range carriers.Statuses() {
		err := shipping.CanRefundLabel(shipping.Purchased, tracking)
		used := shipping.Used(tracking)
		var rc *shipping.RefundConflictError
		switch {
		case used && (!errors.As(err, &rc) || rc.Code != "ineligible_state"):
			t.Errorf("tracking %s: CanRefundLabel = %v, want ineligible_state", tracking, err)
		case !used && err != nil:
			t.Errorf("tracking %s: CanRefundLabel = %v, want refundable", tracking, err)
		}
	}
	if err := shipping.CanRefundLabel(shipping.Purchased, ""); err != nil {
		t.Errorf("before any scan: %v", err)
	}
	var want []string
	for _, s := range carriers.Statuses() {
		if shipping.Used(s) {
			want = append(want, s)
		}
	}
	if diff := cmp.Diff([]string{"in_transit", "out_for_delivery", "delivered", "available_for_pickup", "return_to_sender", "failure"}, want); diff != "" {
		t.Errorf("used statuses (-want +got):\n%s", diff)
	}
	// The status's own reason comes first.
	var rc *shipping.RefundConflictError
	if err := shipping.CanRefundLabel(shipping.Voided, "delivered"); !errors.As(err, &rc) || rc.Code != "already_voided" {
		t.Errorf("voided and delivered: %v, want already_voided", err)
	}
}
