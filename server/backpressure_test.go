package server_test

// Purchases have a queue and workers of their own, and a bound on how many
// may wait: past it, creates are refused at once with 503 and Retry-After.

import (
	"context"
	"net/http"
	"testing"

	"github.com/shipd-dev/shipd/app"
)

func withPurchaseQueue(workers, backlog int) setupOption {
	return func(c *app.Config) { c.PurchaseWorkers, c.MaxPurchaseBacklog = workers, backlog }
}

func TestPurchaseBacklogIsBounded(t *testing.T) {
	t.Parallel()
	buyGate := newGate()
	b := setupLabels(t, withGated(0, buyGate, nil, nil), withPurchaseQueue(2, 3))
	ctx := context.Background()

	// Two purchases hold both workers at the carrier; three more wait.
	var ids []string
	for range 2 {
		s := createLabel(t, b, b.token, labelBody())
		buyGate.awaitEntered(t, s.ID)
		ids = append(ids, s.ID)
	}
	for range 3 {
		ids = append(ids, createLabel(t, b, b.token, labelBody()).ID)
	}
	waitUntil(t, "the three waiting purchases are counted", func() bool {
		n, err := b.app.Shipping.PurchaseBacklog(ctx)
		return err == nil && n == 3
	})

	body := labelBody(func(m map[string]any) { m["idempotencyKey"] = "after-the-rush" })
	r := b.doT(t, "POST", "/api/v1/labels/create", b.token, body)
	wantError(t, r, http.StatusServiceUnavailable, "purchase_queue_full")
	if got := r.Header.Get("Retry-After"); got != "5" {
		t.Errorf("Retry-After = %q, want 5", got)
	}
	var list shipmentList
	b.doT(t, "GET", "/api/v1/labels?limit=100", b.token, nil).Decode(t, &list)
	if len(list.Data) != len(ids) {
		t.Errorf("%d shipments after the refusal, want %d: a refused create stores nothing", len(list.Data), len(ids))
	}

	// Once the carrier answers the queue drains, and the refused request,
	// retried with its key, is accepted: the refusal did not keep the key.
	buyGate.open()
	for _, id := range ids {
		waitForStatus(t, b, b.token, id, "purchased")
	}
	waitUntil(t, "the backlog is counted empty", func() bool {
		n, err := b.app.Shipping.PurchaseBacklog(ctx)
		return err == nil && n == 0
	})
	r = b.doT(t, "POST", "/api/v1/labels/create", b.token, body)
	wantStatus(t, r, http.StatusAccepted)
	var s shipmentDoc
	r.Decode(t, &s)
	waitForStatus(t, b, b.token, s.ID, "purchased")
}

// Voids and tracking have their own workers: with every one of them held by
// a carrier that does not answer, purchases still complete.
func TestPurchasesAreNotHeldUpByOtherJobs(t *testing.T) {
	t.Parallel()
	voidGate := newGate()
	b := setupLabels(t, withGated(0, nil, voidGate, nil), func(c *app.Config) { c.JobWorkers = 1 })
	t.Cleanup(voidGate.open) // before the server stops (cleanups run last first)

	first := createLabel(t, b, b.token, labelBody())
	purchased := waitForStatus(t, b, b.token, first.ID, "purchased")
	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+first.ID+"/refund", b.token, nil), http.StatusAccepted)
	voidGate.awaitEntered(t, *purchased.TrackingNumber) // the only general worker is now busy

	for range 3 {
		s := createLabel(t, b, b.token, labelBody())
		waitForStatus(t, b, b.token, s.ID, "purchased")
	}
}
