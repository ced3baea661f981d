package carriers

import (
	"context"
	"errors"
	"net/http"
)

// UnusableLabelError is a purchase the carrier made whose answer cannot be
// used: the carrier sold the label (its tracking number is known) but its
// document is no label (an image larger than any label, not the format
// asked, unreadable). The purchase fails and what was sold is voided, so
// that nobody pays for it (shipping/labeljobs/unusable.go).
type UnusableLabelError struct {
	// Sold is what the carrier sold, without a document: TrackingNumber,
	// and CarrierShipmentID and Pieces when the answer gave them.
	Sold Label
	// Err says why the answer cannot be used (a *Error of Kind ErrFailed).
	Err error
}

func (e *UnusableLabelError) Error() string { return e.Err.Error() }

func (e *UnusableLabelError) Unwrap() error { return e.Err }

// Unusable marks err, the reason a purchase's answer cannot be used, with
// what the carrier sold. err stays as it is when it is nil, when the
// carrier's answer named no tracking number (nothing to void by), or when
// it is the context's: a purchase cut off by a shutdown is taken up again
// by the next attempt (shipping/labeljobs/purchase.go), not voided.
func Unusable(sold Label, err error) error {
	if err == nil || sold.TrackingNumber == "" || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	sold.Document, sold.PieceDocuments, sold.CustomsDocument = nil, nil, nil
	return &UnusableLabelError{Sold: sold, Err: err}
}

// SoldUnusable reports what the carrier sold when err says that a
// purchase's answer cannot be used: the label sold when the carrier's
// answer named it (UnusableLabelError), or a Label without a tracking
// number when the carrier answered 2xx (so sold) with an answer that could
// not be read at all (larger than any answer shipd reads, or not the
// documented shape); then only the carrier can say what it sold
// (FindPurchase). ok is false for every other error: a refusal, an outage,
// an answer that never came.
func SoldUnusable(err error) (sold Label, ok bool) {
	var unusable *UnusableLabelError
	if errors.As(err, &unusable) {
		return unusable.Sold, true
	}
	var ce *Error
	if errors.As(err, &ce) && ce.Operation == OpBuy && errors.Is(ce.Kind, ErrFailed) &&
		ce.HTTPStatus >= http.StatusOK && ce.HTTPStatus < http.StatusMultipleChoices {
		return Label{}, true
	}
	return Label{}, false
}
