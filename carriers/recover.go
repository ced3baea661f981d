package carriers

import (
	"context"
	"errors"
)

// OpFindPurchase is a Recoverer's lookup, as an Observe function is told it.
const OpFindPurchase = "find_purchase"

// ErrNoLookup means the carrier cannot say what it sold under a reference:
// a purchase cut off mid-call can only rely on Buy's own idempotency
// (USPS's idempotency key, the sandbox's labels derived from the reference).
var ErrNoLookup = errors.New("the carrier cannot look purchases up by reference")

// Recoverer is a carrier that can say what it sold under a purchase's
// reference. UPS and FedEx have no idempotency key: a purchase whose answer
// was lost (the process died mid-call, a time-out) asks this before buying
// again, so that it adopts, or voids, the label already sold instead of
// buying a second one blindly.
type Recoverer interface {
	// FindPurchase returns the label the carrier sold for req.Reference and
	// has not voided; found is false when there is none. The label's PDF is
	// nil when the carrier cannot give the document again (FedEx). An error
	// wrapping ErrNoLookup: this carrier cannot tell.
	FindPurchase(ctx context.Context, req BuyRequest) (label Label, found bool, err error)
}

// FindPurchase makes every wrapped carrier a Recoverer: it forwards to the
// carrier's own lookup, observed and limited like its other calls, and
// answers ErrNoLookup for a carrier that has none.
func (w *wrapped) FindPurchase(ctx context.Context, req BuyRequest) (l Label, found bool, err error) {
	r, ok := w.c.(Recoverer)
	if !ok {
		return Label{}, false, ErrNoLookup
	}
	err = w.around(ctx, OpFindPurchase, func(ctx context.Context) error {
		l, found, err = r.FindPurchase(ctx, req)
		return err
	})
	return l, found, err
}

// FindPurchase keeps a batching carrier a Recoverer (see wrapped.FindPurchase).
func (b *batched) FindPurchase(ctx context.Context, req BuyRequest) (Label, bool, error) {
	r, ok := b.batchCarrier.(Recoverer)
	if !ok {
		return Label{}, false, ErrNoLookup
	}
	return r.FindPurchase(ctx, req)
}

// FindsPurchases reports whether c can say what it sold under a reference:
// a Recoverer, looked for through the wrappers (which are all Recoverers,
// answering ErrNoLookup for a carrier without a lookup). A purchase keeps a
// record of its attempts only for such a carrier: the others' Buy is
// idempotent by reference, so a second attempt cannot buy twice.
func FindsPurchases(c Carrier) bool {
	if w, ok := c.(interface{ findsPurchases() bool }); ok {
		return w.findsPurchases()
	}
	_, ok := c.(Recoverer)
	return ok
}

func (w *wrapped) findsPurchases() bool { return FindsPurchases(w.c) }

func (b *batched) findsPurchases() bool { return FindsPurchases(b.batchCarrier) }
