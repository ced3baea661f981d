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
