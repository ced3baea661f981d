package server_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// Carriers refund only unused labels: once the carrier has scanned a label,
// its refund is refused at once, as a live carrier would refuse the void.
func TestRefundOfAScannedLabelIsIneligible(t *testing.T) {
	t.Parallel()
	b := setupLabels(t, withSandbox(20*time.Millisecond))
	for _, final := range []string{"delivered", "return_to_sender"} {
		t.Run(final, func(t *testing.T) {
			toName := "Grace Hopper"
			if final == "return_to_sender" {
				toName = "Return To Sender"
			}
			c := createLabel(t, b, b.token, labelBody(withToName(toName)))
			waitForStatus(t, b, b.token, c.ID, "purchased")
			waitForTracking(t, b, b.token, c.ID, final)
			entries := ledgerEntries(t, b)

			r := b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", b.token, nil)
			m := wantError(t, r, http.StatusConflict, "ineligible_state")
			if msg, _ := m["error"].(string); !strings.Contains(msg, "scanned") || !strings.Contains(msg, final) {
				t.Errorf("error %q does not say the label was scanned (%s)", msg, final)
			}
			if s := getLabel(t, b, b.token, c.ID); s.Status != "purchased" {
				t.Errorf("status after the refused refund: %s", s.Status)
			}
			if after := ledgerEntries(t, b); after != entries {
				t.Errorf("ledger entries %d -> %d after a refused refund", entries, after)
			}
		})
	}
}

// The sandbox reaches void_rejected on demand: the carrier refuses the void,
// the label is purchased again with the reason, and shipment.void_rejected
// is recorded.
func TestSandboxVoidRejected(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	c := createLabel(t, b, b.token, labelBody(withToName("Void Rejected")))
	waitForStatus(t, b, b.token, c.ID, "purchased")
	r := b.doT(t, "POST", "/api/v1/labels/"+c.ID+"/refund", b.token, nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("refund: %d %s", r.Status, r.Body)
	}
	s, _ := waitForLabel(t, b, b.token, c.ID, "the void refused", func(s shipmentDoc) bool {
		return s.Status == "purchased" && s.ErrorMessage != nil
	})
	if !strings.Contains(*s.ErrorMessage, "void window") {
		t.Errorf("errorMessage %q does not give the carrier's reason", *s.ErrorMessage)
	}
	if types := eventTypes(eventsOf(listEvents(t, b, b.token, "shipment.void_rejected"), c.ID)); !slices.Contains(types, "shipment.void_rejected") {
		t.Errorf("events of the label: %v, want shipment.void_rejected", types)
	}
}

// ledgerEntries counts the test-mode movements of money of b's account.
func ledgerEntries(t *testing.T, b *bundle) int {
	t.Helper()
	entries, err := b.store.LedgerEntries(context.Background(), b.account.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
