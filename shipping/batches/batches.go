package batches

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Batches: many creates accepted together (POST /batches). Every item is
// checked, quoted and priced before anything is stored, so a batch is all or
// nothing; the accepted items are ordinary shipments (batch_id set) inserted
// in the batch's order in one transaction with their purchase jobs, then
// bought like any create. The batch's counts are counted from its items; the
// move to completed is made by the transaction that finishes the last item
// (batchItemFinished), guarded so batch.completed is recorded once.
// MaxBatchItems is how many shipments one batch may hold.
const MaxBatchItems = 5000

// batchQuoteWorkers bounds the items quoted at once: each quote asks every
// carrier of the mode (three calls), so a 5,000-item batch is 15,000 rate
// calls; in the sandbox that is CPU, against live carriers it is their rate
// limits (carriers' call budgets apply, and a refused quote fails the batch).
const batchQuoteWorkers = 8

// BatchStatus is where a batch is. batchTransitions is its whole state
// machine: a batch purchases until none of its items is paying or pending,
// then it is completed (batch.completed).
type BatchStatus string

// The batch statuses.
const (
	BatchPurchasing BatchStatus = "purchasing"
	BatchCompleted  BatchStatus = "completed"
)

// BatchStatuses lists every batch status.
func BatchStatuses() []BatchStatus { return []BatchStatus{BatchPurchasing, BatchCompleted} }

// BatchTrigger is what moves a batch.
type BatchTrigger string

// The batch triggers.
const (
	// BatchItemsFinished: the last paying or pending item was bought or
	// failed (store.CompleteBatch, guarded in its statement).
	BatchItemsFinished BatchTrigger = "items_finished"
)

// BatchTriggers lists every batch trigger.
func BatchTriggers() []BatchTrigger { return []BatchTrigger{BatchItemsFinished} }

var batchTransitions = map[BatchStatus]map[BatchTrigger]BatchStatus{
	BatchPurchasing: {BatchItemsFinished: BatchCompleted},
}

// Next returns the status t leads to from s; false when s does not allow t.
func (s BatchStatus) Next(t BatchTrigger) (BatchStatus, bool) {
	to, ok := batchTransitions[s][t]
	return to, ok
}

// Batch is a batch as the API shows it, with its counts now.
type Batch struct {
	ID          string        `json:"id"`
	Mode        accounts.Mode `json:"mode"`
	Status      BatchStatus   `json:"status"`
	LabelFormat string        `json:"labelFormat"`
	CreatedAt   time.Time     `json:"createdAt"`
	CompletedAt *time.Time    `json:"completedAt,omitempty"`
	Counts      BatchCounts   `json:"counts"`
	// CustomsItems counts the items that cross a border with a
	// declaration: the batch has customs documents (BatchCustomsPDF).
	CustomsItems int `json:"customsItems"`
	// Labels counts the labels its merged document holds: items purchased
	// and not refunded since (Counts.Purchased counts those too).
	Labels int `json:"labels"`
}

// HasLabels reports whether the batch's merged document has a label in
// it, or may have once its purchases end: a batch completed with none
// (every item failed or was refunded) has no document to offer.
func (b Batch) HasLabels() bool {
	return b.Status != BatchCompleted || b.Labels > 0
}

// NoLabelsError: a completed batch has no purchased label, so no merged
// document (409 batch_has_no_labels). A document of no labels would be a
// PDF without pages, which PDF readers refuse, or an empty ZPL stream.
type NoLabelsError struct {
	BatchID                 string
	Total, Failed, Refunded int
}

func (e *NoLabelsError) Error() string {
	return fmt.Sprintf("this batch has no label to print: of its %d items, %d failed and %d refunded since; "+
		"GET /batches/%s/shipments shows each item's errorMessage", e.Total, e.Failed, e.Refunded, e.BatchID)
}

// BatchCounts counts a batch's items: purchased includes items bought and
// since refunded (void_requested, voided).
type BatchCounts struct {
	Total     int `json:"total"`
	Paying    int `json:"paying"`
	Pending   int `json:"pending"`
	Purchased int `json:"purchased"`
	Failed    int `json:"failed"`
}

// BatchItem is one shipment of a batch: a create without its own key.
type BatchItem struct {
	shipping.Input
	shipping.Selection
}

// NewBatch is what creating a batch takes.
type NewBatch struct {
	Items       []BatchItem `json:"items"`
	LabelFormat string      `json:"labelFormat,omitempty"`
	// IdempotencyKey and RequestFingerprint as for NewLabel.
	IdempotencyKey     string `json:"-"`
	RequestFingerprint []byte `json:"-"`
}

// BatchEncoder renders a batch as event data (batch.completed): the shape
// GET /batches/{id} returns, which is the API layer's to define.
type BatchEncoder func(Batch) (json.RawMessage, error)

// ErrBatchSize: a batch without items or with more than MaxBatchItems.
var ErrBatchSize = &shipping.InputError{Issues: []shipping.Issue{{Path: "shipments", Message: fmt.Sprintf("must hold 1 to %d shipments", MaxBatchItems)}}}

// BatchItemsError lists every invalid item of a batch (422
// invalid_request); paths name the item (shipments.17.toAddress.state).
type BatchItemsError struct{ Issues []shipping.Issue }

func (e *BatchItemsError) Error() string {
	return fmt.Sprintf("%d problems in the batch's shipments", len(e.Issues))
}

// CreateBatch checks, quotes and prices every item, then accepts them all
// in one transaction: the batch, its shipments (paying, in order), the
// balance reserved for each and their purchase jobs. Any invalid item
// refuses the batch with every item's problems, storing nothing.
func (s *Service) CreateBatch(ctx context.Context, c accounts.Caller, in NewBatch) (Batch, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /batches", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	b, replayed, err := idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[Batch]) (Batch, error) {
		if len(in.Items) == 0 || len(in.Items) > MaxBatchItems {
			return Batch{}, ErrBatchSize
		}
		if issues := batchPieceIssues(in.Items, in.LabelFormat); len(issues) > 0 {
			return Batch{}, &BatchItemsError{Issues: issues}
		}
		rows, err := s.priceBatch(ctx, c, in.Items, carriers.LabelFormat(in.LabelFormat))
		if err != nil {
			return Batch{}, err
		}
		account, err := s.store.Account(ctx, c.AccountID)
		if err != nil {
			return Batch{}, err
		}
		if !account.HasPaymentMethod {
			return Batch{}, shipping.ErrNoPaymentMethod
		}
		if err := s.ship.AdmitPurchases(ctx, len(rows)); err != nil {
			return Batch{}, err
		}
		format := in.LabelFormat
		if format == "" {
			format = "pdf"
		}
		now := s.now()
		batch := store.Batch{ID: store.NewID("bat"), AccountID: c.AccountID, Mode: string(c.Mode), Status: string(BatchPurchasing),
			LabelFormat: format, Total: len(rows), CreatedAt: now}
		for _, it := range in.Items {
			if it.Customs != nil && it.CustomsRequired() {
				batch.CustomsItems++
			}
		}
		return commit(ctx, func(tx *store.Tx) (Batch, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return Batch{}, err
			}
			if err := tx.InsertBatch(ctx, &batch); err != nil {
				return Batch{}, err
			}
			// One balance lock for the whole batch: the items take the
			// balance in order, as the same creates one after another would.
			balance, err := tx.LockBalance(ctx, c.AccountID, string(c.Mode))
			if err != nil {
				return Batch{}, err
			}
			ids := make([]string, len(rows))
			for i := range rows {
				row := &rows[i]
				row.ID, row.BatchID, row.CreatedAt, row.UpdatedAt = store.NewID("shp"), &batch.ID, now, now
				// Every item is bought in the batch's format, on 4x6 stock (a
				// thermal printer's morning).
				row.LabelFormat, row.LabelSize = batch.LabelFormat, string(carriers.Label4x6)
				row.BalanceAppliedCents = min(balance, row.CustomerPriceCents)
				row.ChargeAmountCents = row.CustomerPriceCents - row.BalanceAppliedCents
				balance -= row.BalanceAppliedCents
				if err := tx.InsertShipment(ctx, row); err != nil {
					return Batch{}, err
				}
				if err := s.ship.ReservePurchase(ctx, tx, *row, now); err != nil {
					return Batch{}, err
				}
				ids[i] = row.ID
			}
			if err := tx.EnqueueNew(ctx, s.ship.PurchaseJobs(ids)...); err != nil {
				return Batch{}, err
			}
			return batchOf(batch, map[string]int{string(shipping.Paying): len(rows)}), nil
		})
	})
	if err != nil || !replayed {
		return b, replayed, err
	}
	// A replay shows the batch as it is now, not as it was accepted.
	now, err := s.GetBatch(ctx, c, b.ID)
	return now, true, err
}

// priceBatch checks and quotes every item (batchQuoteWorkers at once) and
// returns their shipment rows, in order, without ids. An item's own problem
// (its input, no rate, no matching service, refused by the carriers) is
// collected for BatchItemsError; anything else (carriers unavailable or
// failing, the request cancelled) fails the batch as it would a create.
func (s *Service) priceBatch(ctx context.Context, c accounts.Caller, items []BatchItem, format carriers.LabelFormat) ([]store.Shipment, error) {
	pricing, err := s.ship.PricingFor(ctx, c)
	if err != nil {
		return nil, err
	}
	rows := make([]store.Shipment, len(items))
	problems := make([][]shipping.Issue, len(items))
	fatal := make([]error, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(batchQuoteWorkers, len(items)) {
		wg.Go(func() {
			for i := range next {
				issues, err := s.ship.PriceLabel(ctx, pricing, items[i].Input, items[i].Selection, format, &rows[i])
				problems[i], fatal[i] = issues, err
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	var all []shipping.Issue
	for i := range items {
		if fatal[i] != nil {
			return nil, fatal[i]
		}
		prefix := "shipments." + strconv.Itoa(i)
		for _, is := range problems[i] {
			if is.Path != "" {
				is.Path = prefix + "." + is.Path
			} else {
				is.Path = prefix
			}
			all = append(all, is)
		}
	}
	if len(all) > 0 {
		return nil, &BatchItemsError{Issues: all}
	}
	return rows, nil
}

func batchOf(b store.Batch, counts map[string]int) Batch {
	out := Batch{ID: b.ID, Mode: accounts.Mode(b.Mode), Status: BatchStatus(b.Status), LabelFormat: b.LabelFormat,
		CreatedAt: b.CreatedAt, CompletedAt: b.CompletedAt, CustomsItems: b.CustomsItems}
	out.Counts = BatchCounts{Total: b.Total, Paying: counts[string(shipping.Paying)], Pending: counts[string(shipping.Pending)], Failed: counts[string(shipping.Failed)]}
	out.Counts.Purchased = b.Total - out.Counts.Paying - out.Counts.Pending - out.Counts.Failed
	out.Labels = counts[string(shipping.Purchased)]
	return out
}

// findBatch reads the caller's batch (accounts.ErrNotFound, ErrWrongMode).
func (s *Service) findBatch(ctx context.Context, c accounts.Caller, id string) (store.Batch, error) {
	return accounts.Find(c, func() (store.Batch, error) { return s.store.Batch(ctx, c.AccountID, id) },
		func(b store.Batch) (string, string) { return b.AccountID, b.Mode })
}

// GetBatch reads a batch with its counts now.
func (s *Service) GetBatch(ctx context.Context, c accounts.Caller, id string) (Batch, error) {
	b, err := s.findBatch(ctx, c, id)
	if err != nil {
		return Batch{}, err
	}
	counts, err := s.store.BatchCounts(ctx, b.ID)
	if err != nil {
		return Batch{}, err
	}
	return batchOf(b, counts), nil
}

// ListBatches pages through the caller's batches, newest first, with their counts.
func (s *Service) ListBatches(ctx context.Context, c accounts.Caller, p paging.Request) ([]Batch, bool, error) {
	rows, more, err := s.store.ListBatches(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]Batch, len(rows))
	for i, b := range rows {
		counts, err := s.store.BatchCounts(ctx, b.ID)
		if err != nil {
			return nil, false, err
		}
		out[i] = batchOf(b, counts)
	}
	return out, more, nil
}

// BatchShipments pages through a batch's shipments in item order.
func (s *Service) BatchShipments(ctx context.Context, c accounts.Caller, id string, p paging.Request) ([]shipping.Shipment, bool, error) {
	b, err := s.findBatch(ctx, c, id)
	if err != nil {
		return nil, false, err
	}
	rows, more, err := s.store.BatchShipments(ctx, b.ID, p)
	if err != nil {
		return nil, false, err
	}
	out, err := s.ship.ShipmentsOf(rows)
	return out, more, err
}

// BatchItemFinished is the purchase path's hook (shipping.BatchItemFinisher): in the transaction that
// moved row to purchased or failed, it completes row's batch when no item is
// still being bought, and records batch.completed then. The batch row is
// locked first, so of two transactions finishing the last items at once the
// second sees the first's commit; CompleteBatch's guard makes it act once.
func (s *Service) BatchItemFinished(ctx context.Context, tx *store.Tx, row store.Shipment) error {
	if row.BatchID == nil {
		return nil
	}
	id := *row.BatchID
	if err := tx.LockBatch(ctx, id); err != nil {
		return err
	}
	done, err := tx.CompleteBatch(ctx, id, []string{string(shipping.Paying), string(shipping.Pending)}, s.now())
	if err != nil || !done {
		return err
	}
	b, err := tx.Batch(ctx, row.AccountID, id)
	if err != nil {
		return err
	}
	counts, err := tx.BatchCounts(ctx, id)
	if err != nil {
		return err
	}
	data, err := s.batchEventData(batchOf(b, counts))
	if err != nil {
		return err
	}
	_, err = s.webhooks.Record(ctx, tx, row.AccountID, row.Mode, webhooks.EventBatchCompleted, data)
	return err
}

// batchLabelsPage is how many items a merged document reads at once.
const batchLabelsPage = 200

// BatchLabelsPDF returns a function that writes every purchased label of
// the batch, in item order, as one PDF (failed items, and labels refunded
// since, are skipped); ErrLabelPending while any item is still being bought.
// The function reads the items a page at a time and each label once, so
// memory does not grow with the batch (internal/pdfmerge).
func (s *Service) BatchLabelsPDF(ctx context.Context, c accounts.Caller, id string) (func(io.Writer) error, error) {
	if _, err := s.batchDocument(ctx, c, id, carriers.LabelPDF); err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		m := pdfmerge.NewMerger(w, s.cfg.PDFBudget)
		after := int64(0)
		for {
			items, err := s.store.BatchLabels(ctx, id, after, batchLabelsPage)
			if err != nil {
				return err
			}
			for _, it := range items {
				after = it.Seq
				if shipping.Status(it.Status) != shipping.Purchased || it.LabelKey == nil {
					continue
				}
				doc, err := s.cfg.Documents.Get(ctx, *it.LabelKey)
				if err != nil {
					return fmt.Errorf("label of %s: %w", it.ID, err)
				}
				if err := m.Add(ctx, doc); errors.Is(err, pdfmerge.ErrUnmergeable) {
					s.log.WarnContext(ctx, "a label could not be merged; a page names it instead", slog.String("shipment_id", it.ID))
					m.Placeholder("The label of " + it.ID + " could not be merged: download it from /api/v1/labels/" + it.ID + "/label.pdf")
				} else if err != nil {
					return err
				}
			}
			if len(items) < batchLabelsPage {
				return m.Close()
			}
		}
	}, nil
}

// BatchFormatError: a batch's merged document was asked for in another
// format than its labels' (409 label_format_mismatch). A batch of PDF labels
// merges into labels.pdf, of ZPL labels into labels.zpl; PNG labels are
// images, which shipd does not merge (each label's own labelUrl serves it).
type BatchFormatError struct {
	BatchID string
	Format  carriers.LabelFormat // the batch's labels' format
	Asked   carriers.LabelFormat
}

func (e *BatchFormatError) Error() string {
	if e.Format == carriers.LabelPNG {
		return fmt.Sprintf("this batch's labels are png images, which are not merged into one %s: download each label from its labelUrl (GET /batches/%s/shipments)", e.Asked, e.BatchID)
	}
	return fmt.Sprintf("this batch's labels are %s, not %s; download labels.%s", e.Format, e.Asked, e.Format)
}

// batchDocument checks that the batch's merged document can be served in
// format now: a batch of that format whose items are all bought, one of
// them at least purchased.
func (s *Service) batchDocument(ctx context.Context, c accounts.Caller, id string, format carriers.LabelFormat) (Batch, error) {
	b, err := s.GetBatch(ctx, c, id)
	if err != nil {
		return Batch{}, err
	}
	if f := carriers.LabelFormat(cmp.Or(b.LabelFormat, string(carriers.LabelPDF))); f != format {
		return Batch{}, &BatchFormatError{BatchID: id, Format: f, Asked: format}
	}
	if b.Counts.Paying+b.Counts.Pending > 0 {
		return Batch{}, shipping.ErrLabelPending
	}
	if !b.HasLabels() {
		return Batch{}, &NoLabelsError{BatchID: id, Total: b.Counts.Total, Failed: b.Counts.Failed, Refunded: b.Counts.Purchased - b.Labels}
	}
	return b, nil
}

// BatchLabelsZPL returns a function that writes every purchased label of a
// ZPL batch, in item order, as one ZPL stream: ZPL II documents print one
// after another as sent, so the merge is their concatenation (each ends
// with ^XZ and a line break). Failed items and labels refunded since are
// skipped; memory holds one label at a time.
func (s *Service) BatchLabelsZPL(ctx context.Context, c accounts.Caller, id string) (func(io.Writer) error, error) {
	if _, err := s.batchDocument(ctx, c, id, carriers.LabelZPL); err != nil {
		return nil, err
	}
	return func(w io.Writer) error {
		after := int64(0)
		for {
			items, err := s.store.BatchLabels(ctx, id, after, batchLabelsPage)
			if err != nil {
				return err
			}
			for _, it := range items {
				after = it.Seq
				if shipping.Status(it.Status) != shipping.Purchased || it.LabelKey == nil {
					continue
				}
				doc, err := s.cfg.Documents.Get(ctx, *it.LabelKey)
				if err != nil {
					return fmt.Errorf("label of %s: %w", it.ID, err)
				}
				if !bytes.HasSuffix(doc, []byte("\n")) {
					doc = append(doc, '\n')
				}
				if _, err := w.Write(doc); err != nil {
					return err
				}
			}
			if len(items) < batchLabelsPage {
				return nil
			}
		}
	}, nil
}
