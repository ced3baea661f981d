package fakekit

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Refusals of Sales.Void.
var (
	// ErrNotSold: no such label, or not the caller's.
	ErrNotSold = errors.New("fakekit: no such label sold")
	// ErrVoided: the label is already void.
	ErrVoided = errors.New("fakekit: the label is already void")
)

// SaleState is where a label sold stands.
type SaleState int

const (
	// Sold is a label bought and not voided.
	Sold SaleState = iota
	// Voided is a label cancelled before use: the carrier bills nothing.
	Voided
	// RefundRequested is a label past its void window for which the
	// shipper asked the carrier for its money back (USPS's refunds).
	RefundRequested
)

// Sale is what every carrier keeps of a label it sold: what FindPurchase
// lookups by reference, voids and tracking need. A fake's own record
// embeds it, adding what only its carrier keeps.
type Sale struct {
	// TrackingNumber is the shipment's: its first package's.
	TrackingNumber string
	// Reference is the shipper's reference the label was sold with.
	Reference string
	// Account is the carrier account that bought it.
	Account string
	// Pieces are every package's tracking number, the first the
	// shipment's; voiding the shipment voids them all.
	Pieces []string
	// Return is a label sold to bring a parcel back.
	Return bool
	SoldAt time.Time
	State  SaleState

	order int // the order of sale
}

func (s *Sale) sale() *Sale { return s }

// SaleRecord is a fake's record of a sale: a pointer to a struct that
// embeds Sale.
type SaleRecord interface{ sale() *Sale }

// Sales is the book of the labels a fake sold, by tracking number; the
// zero value is an empty book. It is safe for concurrent use; a record is
// read and changed only inside the functions given to With, Update and
// Each, under the book's lock.
type Sales[T SaleRecord] struct {
	mu       sync.Mutex
	byNumber map[string]T
	sold     int
}

// Sell books rec under its tracking number, after every sale so far.
func (b *Sales[T]) Sell(rec T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byNumber == nil {
		b.byNumber = map[string]T{}
	}
	b.sold++
	rec.sale().order = b.sold
	b.byNumber[rec.sale().TrackingNumber] = rec
}

// With runs fn on the sale of trackingNumber; false when there is none.
func (b *Sales[T]) With(trackingNumber string, fn func(T)) bool {
	found := false
	b.Update(func(find func(string) (T, bool)) {
		var rec T
		if rec, found = find(trackingNumber); found {
			fn(rec)
		}
	})
	return found
}

// Update runs fn with the book locked: what fn finds and changes through
// find stays consistent (several labels on one form, say).
func (b *Sales[T]) Update(fn func(find func(trackingNumber string) (T, bool))) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fn(func(tn string) (T, bool) {
		rec, ok := b.byNumber[tn]
		return rec, ok
	})
}

// Each runs fn on every sale, in the order sold.
func (b *Sales[T]) Each(fn func(T)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, rec := range b.inOrder() {
		fn(rec)
	}
}

// inOrder is every sale in the order sold; call with b.mu held.
func (b *Sales[T]) inOrder() []T {
	out := make([]T, 0, len(b.byNumber))
	for _, rec := range b.byNumber {
		out = append(out, rec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].sale().order < out[j].sale().order })
	return out
}

// ByReference are the sales made with reference, in the order sold.
func (b *Sales[T]) ByReference(reference string) []Sale {
	var out []Sale
	b.Each(func(rec T) {
		if s := rec.sale(); s.Reference == reference {
			out = append(out, *s)
		}
	})
	return out
}

// Void voids the label of trackingNumber. It must be account's ("" for
// anyone's) and not void already; then rule, when set, has the carrier's
// say (a parcel already picked up, say) and its error is returned as is.
func (b *Sales[T]) Void(trackingNumber, account string, rule func(T) error) error {
	var err error
	found := b.With(trackingNumber, func(rec T) {
		s := rec.sale()
		switch {
		case account != "" && s.Account != account:
			err = fmt.Errorf("%w: %s", ErrNotSold, trackingNumber)
		case s.State == Voided:
			err = fmt.Errorf("%w: %s", ErrVoided, trackingNumber)
		case rule != nil:
			err = rule(rec)
		}
		if err == nil {
			s.State = Voided
		}
	})
	if !found {
		return fmt.Errorf("%w: %s", ErrNotSold, trackingNumber)
	}
	return err
}

// Pieces are the tracking numbers of the packages of the shipment sold as
// trackingNumber, and whether it is void; nil when there is no such sale.
func (b *Sales[T]) Pieces(trackingNumber string) ([]string, bool) {
	var pieces []string
	var voided bool
	b.With(trackingNumber, func(rec T) {
		s := rec.sale()
		pieces, voided = append([]string(nil), s.Pieces...), s.State == Voided
	})
	return pieces, voided
}

// IsReturn reports whether the label of trackingNumber was sold as a return.
func (b *Sales[T]) IsReturn(trackingNumber string) bool {
	ret := false
	b.With(trackingNumber, func(rec T) { ret = rec.sale().Return })
	return ret
}

// Len counts the labels sold.
func (b *Sales[T]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byNumber)
}
