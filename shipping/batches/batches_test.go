package batches_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/batches"
	"github.com/shipd-dev/shipd/shipping/customs"
	"github.com/shipd-dev/shipd/shipping/labeljobs"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/webhooks"
)

func setup(t *testing.T) (*shippingtest.Services, *batches.Service) {
	t.Helper()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	b := batches.New(s.Store, s.Shipping, customs.New(s.Store, s.Shipping), s.Accounts, s.Webhooks, s.Idempotency, batches.Config{})
	s.Start(t, labeljobs.New(s.Store, s.Shipping).RegisterWorkers)
	return s, b
}

func ptr[T any](v T) *T { return &v }

func item(recipient string) batches.BatchItem {
	return batches.BatchItem{Input: shipping.Input{
		From: shipping.Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco",
			State: ptr("CA"), Zip: "94105", Country: "US"},
		To: shipping.Address{Name: &recipient, Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York",
			State: ptr("NY"), Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(float64(32))},
	}, Selection: shipping.Selection{Carrier: ptr("USPS"), Service: ptr("Priority")}}
}

// A batch is bought item by item by the purchase jobs, completed once when
// its last item is bought (one batch.completed), and its labels merge into
// one PDF.
func TestBatchBoughtAndCompletedOnce(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	b, replayed, err := svc.CreateBatch(ctx, s.Caller, batches.NewBatch{Items: []batches.BatchItem{item("Ada"), item("Grace"), item("Alan")}})
	if err != nil || replayed {
		t.Fatalf("CreateBatch: %v (replayed %v)", err, replayed)
	}
	if b.Status != batches.BatchPurchasing || b.Counts.Total != 3 {
		t.Fatalf("accepted: %+v", b)
	}
	shippingtest.Eventually(t, "the batch completed", func() bool {
		b, err = svc.GetBatch(ctx, s.Caller, b.ID)
		return err == nil && b.Status == batches.BatchCompleted
	})
	if d := cmp.Diff(batches.BatchCounts{Total: 3, Purchased: 3}, b.Counts); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
	events, _, err := s.Store.ListEvents(ctx, s.Caller.AccountID, string(s.Caller.Mode), webhooks.EventBatchCompleted, paging.Request{Limit: 10})
	if err != nil || len(events) != 1 {
		t.Errorf("batch.completed events: %d, %v; want 1", len(events), err)
	}
	write, err := svc.BatchLabelsPDF(ctx, s.Caller, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	var pdf bytes.Buffer
	if err := write(&pdf); err != nil || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF")) {
		t.Errorf("merged labels: %d bytes, %v", pdf.Len(), err)
	}
	if _, err := svc.BatchLabelsZPL(ctx, s.Caller, b.ID); !errors.As(err, new(*batches.BatchFormatError)) {
		t.Errorf("labels.zpl of a PDF batch: %v, want a BatchFormatError", err)
	}
}

// One invalid item refuses the whole batch, naming every item's problem at
// its path; nothing is stored.
func TestBatchRefusedWhole(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	bad := item("Grace")
	bad.To.State = ptr("ZZ")
	_, _, err := svc.CreateBatch(ctx, s.Caller, batches.NewBatch{Items: []batches.BatchItem{item("Ada"), bad}})
	var items *batches.BatchItemsError
	if !errors.As(err, &items) || len(items.Issues) == 0 || items.Issues[0].Path != "shipments.1.toAddress.state" {
		t.Fatalf("a batch with an invalid item: %v, want its issue at shipments.1.toAddress.state", err)
	}
	if _, _, err := svc.CreateBatch(ctx, s.Caller, batches.NewBatch{}); !errors.Is(err, batches.ErrBatchSize) {
		t.Errorf("an empty batch: %v, want ErrBatchSize", err)
	}
	page, _, err := svc.ListBatches(ctx, s.Caller, paging.Request{Limit: 5})
	if err != nil || len(page) != 0 {
		t.Errorf("batches after refusals: %v, %v", page, err)
	}
	shipments, _, err := s.Shipping.List(ctx, s.Caller, "", paging.Request{Limit: 5})
	if err != nil || len(shipments) != 0 {
		t.Errorf("shipments after refusals: %d, %v", len(shipments), err)
	}
}
