package shipping

import "time"

// Observer is told what purchases and voids came to, for metrics. The
// service calls it after the transaction that records the outcome has
// committed, so a rolled-back attempt is never counted. Config.Observer nil
// observes nothing.
type Observer interface {
	// PurchaseFinished reports one purchase attempt of carrier: outcome is
	// PurchaseOutcomePurchased (sinceCreate is the time from the create to
	// the label being purchased), PurchaseOutcomeDeferred (the carrier was
	// unavailable; another attempt is queued) or PurchaseOutcomeFailed.
	PurchaseFinished(carrier, outcome string, sinceCreate time.Duration)
	// RefundFinished reports one void attempt of carrier: RefundOutcomeVoided,
	// RefundOutcomeRequested (the carrier settles it later), RefundOutcomeRejected
	// or RefundOutcomeError (the job retries it).
	RefundFinished(carrier, outcome string)
	// LabelStored reports a label document written to Documents.
	LabelStored()
	// UnusableLabel reports one attempt to void a label the carrier sold for
	// a purchase whose answer could not be used (shipping/labeljobs/unusable.go):
	// UnusableOutcomeVoided, UnusableOutcomeRequested, UnusableOutcomeNotSold,
	// UnusableOutcomeError (the job tries again) or UnusableOutcomeNotVoided
	// (for good: the operator settles the label with the carrier).
	UnusableLabel(carrier, outcome string)
}

// Purchase outcomes, as Observer.PurchaseFinished reports them.
const (
	PurchaseOutcomePurchased = "purchased"
	PurchaseOutcomeDeferred  = "deferred"
	PurchaseOutcomeFailed    = "failed"
)

// Refund (void) outcomes, as Observer.RefundFinished reports them.
const (
	RefundOutcomeVoided    = "voided"
	RefundOutcomeRequested = "requested"
	RefundOutcomeRejected  = "rejected"
	RefundOutcomeError     = "error"
)

// Observer is Config.Observer, or one that does nothing.
func (s *Service) Observer() Observer {
	if s.cfg.Observer == nil {
		return noObserver{}
	}
	return s.cfg.Observer
}

type noObserver struct{}

func (noObserver) PurchaseFinished(string, string, time.Duration) {}
func (noObserver) RefundFinished(string, string)                  {}
func (noObserver) LabelStored()                                   {}
func (noObserver) UnusableLabel(string, string)                   {}
