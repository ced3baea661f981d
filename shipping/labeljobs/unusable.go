package labeljobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// A label the carrier sold whose answer cannot be used. The carrier billed
// the label the moment it answered; if its answer is no usable label (an
// image larger than any label, not a PDF, a PDF shipd cannot read, an
// answer too large to read), the purchase fails and the tenant pays
// nothing, so the label must be voided or the operator (or the tenant's own
// carrier account) pays for a label nobody can print. The purchase fails
// and, in the same transaction, queues a void_unusable_label job; the job
// voids what was sold (asking the carrier what that was when its answer
// named nothing) and records the outcome in the account's audit log. A void
// that fails for good is an ERROR log, an audit entry and the metric
// shipd_unusable_labels_total{outcome="not_voided"}: the operator settles
// that label with the carrier. Never a retried purchase: each retry of a
// purchase that cannot be used would buy, and void, another label.

// Audit actions of an unusable label (store.AuditEntry.Action), with the
// shipment id and the label's tracking number as target.
const (
	// AuditUnusableVoided: the carrier's answer could not be used; the label
	// it sold was voided.
	AuditUnusableVoided = "purchase.unusable_label_voided"
	// AuditUnusableNotVoided: as above, but the void failed (refused, the
	// carrier unreachable past the job's attempts, or no number to void by):
	// the operator settles the label with the carrier.
	AuditUnusableNotVoided = "purchase.unusable_label_not_voided"
)

// Outcomes of voiding an unusable label, as Observer.UnusableLabel reports
// them.
const (
	UnusableOutcomeVoided    = "voided"
	UnusableOutcomeRequested = "requested"  // the carrier settles the refund later (USPS)
	UnusableOutcomeNotSold   = "not_sold"   // asked, the carrier says it sold nothing
	UnusableOutcomeError     = "error"      // the void failed; the job tries again
	UnusableOutcomeNotVoided = "not_voided" // for good: alert
)

// errUnusable marks a label whose document shipd refused at purchase.
var errUnusable = errors.New("the carrier's label cannot be used")

// acceptDocuments checks the carrier's documents as a merge will read them
// (internal/pdfmerge), so that a stored label always merges, and joins a
// label answered per piece into one document (pieces.go). A label PDF that
// cannot be read wraps errUnusable (and pdfmerge.ErrUnmergeable); a
// carrier's customs invoice that cannot be read is dropped, and shipd
// renders its own (customs.go), since the label itself is good. Other
// errors are the context's while waiting for the PDF budget.
func (s *Service) acceptDocuments(ctx context.Context, id string, label carriers.Label) (carriers.Label, error) {
	joined := len(label.PieceDocuments) > 0
	label, err := s.joinPieces(ctx, id, label)
	if err != nil {
		return label, err
	}
	if doc, format := label.Doc(); format == carriers.LabelPDF && !joined {
		// A join wrote the document itself, from pieces it checked.
		if err := s.cfg.PDFBudget.Check(ctx, doc); errors.Is(err, pdfmerge.ErrUnmergeable) {
			return label, fmt.Errorf("%w: its PDF: %w", errUnusable, err)
		} else if err != nil {
			return label, err
		}
	}
	if len(label.CustomsDocument) > 0 {
		if err := s.cfg.PDFBudget.Check(ctx, label.CustomsDocument); errors.Is(err, pdfmerge.ErrUnmergeable) {
			s.log.WarnContext(ctx, "the carrier's customs invoice cannot be read; shipd's own is kept instead",
				slog.String("shipment_id", id), slog.Any("error", err))
			label.CustomsDocument = nil
		} else if err != nil {
			return label, err
		}
	}
	return label, nil
}

// failUnusable fails a purchase whose carrier sold a label that cannot be
// used, and queues its void in the same transaction. sold names the label
// (without a tracking number when the carrier's answer named none: the job
// asks the carrier).
func (s *Service) failUnusable(ctx context.Context, row store.Shipment, sold carriers.Label, cause error) error {
	reason := cause.Error()
	if sold.TrackingNumber != "" {
		reason += fmt.Sprintf("; %s sold label %s, which shipd voids", row.Carrier, sold.TrackingNumber)
	} else {
		reason += fmt.Sprintf("; shipd asks %s what it sold, to void it", row.Carrier)
	}
	s.log.WarnContext(ctx, "the carrier sold a label whose answer cannot be used; the purchase fails and the label is voided",
		slog.String("shipment_id", row.ID), slog.String("carrier", row.Carrier), slog.String("tracking_number", sold.TrackingNumber), slog.Any("error", cause))
	return s.endPurchase(ctx, row.ID, reason, func(ctx context.Context, tx *store.Tx) error {
		return tx.Enqueue(ctx, river.InsertManyParams{Args: voidUnusableArgs{ShipmentID: row.ID,
			TrackingNumber: sold.TrackingNumber, CarrierShipmentID: sold.CarrierShipmentID, Pieces: sold.Pieces}})
	})
}

// voidUnusableArgs voids the label a failed purchase's carrier sold.
type voidUnusableArgs struct {
	ShipmentID string `json:"shipment_id"`
	// TrackingNumber, CarrierShipmentID and Pieces name the label sold;
	// without a tracking number the job asks the carrier (FindPurchase).
	TrackingNumber    string   `json:"tracking_number,omitempty"`
	CarrierShipmentID string   `json:"carrier_shipment_id,omitempty"`
	Pieces            []string `json:"pieces,omitempty"`
}

func (voidUnusableArgs) Kind() string { return "void_unusable_label" }

// InsertOpts makes the void unique: one per failed purchase.
func (voidUnusableArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

type voidUnusableWorker struct {
	river.WorkerDefaults[voidUnusableArgs]
	s *Service
}

func (w *voidUnusableWorker) NextRetry(job *river.Job[voidUnusableArgs]) time.Time {
	return w.s.jobNow().Add(shipping.RetryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

func (w *voidUnusableWorker) Work(ctx context.Context, job *river.Job[voidUnusableArgs]) error {
	return w.s.voidUnusable(ctx, job.Args, job.Attempt >= job.MaxAttempts)
}

// voidUnusable voids the label of args. A failure the carrier may get over
// is returned (River runs the job again) until the last attempt; a refusal,
// or the last attempt failing, is recorded as not voided.
func (s *Service) voidUnusable(ctx context.Context, args voidUnusableArgs, lastAttempt bool) error {
	row, err := s.store.ShipmentByID(ctx, args.ShipmentID)
	if err != nil {
		return err
	}
	log := s.log.With(slog.String("shipment_id", row.ID), slog.String("carrier", row.Carrier))
	sold := carriers.Label{TrackingNumber: args.TrackingNumber, CarrierShipmentID: args.CarrierShipmentID, Pieces: args.Pieces}
	// retry is a failure the carrier (or the database) may get over.
	retry := func(what string, err error) error {
		if ctx.Err() != nil {
			return err // shutting down: the job runs again
		}
		if lastAttempt {
			return s.unusableNotVoided(ctx, log, row, sold.TrackingNumber, fmt.Sprintf("%s: %v (the job's last attempt)", what, err))
		}
		log.WarnContext(ctx, "voiding a label whose answer could not be used failed; trying again", slog.String("tracking_number", sold.TrackingNumber), slog.Any("error", err))
		s.ship.Observer().UnusableLabel(row.Carrier, UnusableOutcomeError)
		return fmt.Errorf("%s: %w", what, err)
	}
	carrier, err := s.ship.CarrierOf(ctx, row)
	if err != nil {
		return retry("the carrier of the purchase", err)
	}
	if sold.TrackingNumber == "" {
		found, ok, err := s.findSold(ctx, carrier, row)
		switch {
		case errors.Is(err, carriers.ErrNoLookup):
			return s.unusableNotVoided(ctx, log, row, "", "the carrier's answer named no tracking number, and it cannot be asked what it sold")
		case err != nil:
			return retry("asking the carrier what it sold", err)
		case !ok:
			log.InfoContext(ctx, "the carrier says it sold nothing for the purchase whose answer could not be used")
			s.ship.Observer().UnusableLabel(row.Carrier, UnusableOutcomeNotSold)
			return nil
		}
		sold = found
	}
	st, err := carrier.Void(ctx, carriers.VoidRequest{TrackingNumber: sold.TrackingNumber,
		CarrierShipmentID: sold.CarrierShipmentID, Reference: row.ID, Pieces: sold.Pieces})
	switch {
	case errors.Is(err, carriers.ErrRejected):
		return s.unusableNotVoided(ctx, log, row, sold.TrackingNumber, "the carrier refused the void: "+err.Error())
	case err != nil:
		return retry("void "+sold.TrackingNumber, err)
	}
	outcome := UnusableOutcomeVoided
	if st == carriers.VoidRequested {
		outcome = UnusableOutcomeRequested
	}
	log.WarnContext(ctx, "voided the label the carrier sold for a purchase whose answer could not be used",
		slog.String("tracking_number", sold.TrackingNumber), slog.String("void", string(st)))
	if err := s.auditUnusable(ctx, row, AuditUnusableVoided, sold.TrackingNumber); err != nil {
		return err
	}
	s.ship.Observer().UnusableLabel(row.Carrier, outcome)
	return nil
}

// findSold asks the carrier what it sold under the shipment's reference
// (a purchase whose answer named nothing: too large, not the documented
// shape); carriers.ErrNoLookup for a carrier that cannot be asked.
func (s *Service) findSold(ctx context.Context, carrier carriers.Carrier, row store.Shipment) (carriers.Label, bool, error) {
	if !carrier.Capabilities().Has(carriers.CapFindPurchase) {
		return carriers.Label{}, false, carriers.ErrNoLookup
	}
	in, err := shipping.DecodeInput(row.Request)
	if err != nil {
		return carriers.Label{}, false, fmt.Errorf("%w: the stored shipment cannot be read: %w", carriers.ErrNoLookup, err)
	}
	return carrier.FindPurchase(ctx, buyRequestOf(row, in))
}

// unusableNotVoided records, for the operator, a sold label that could not
// be voided: an ERROR log, an audit entry and the not_voided metric.
func (s *Service) unusableNotVoided(ctx context.Context, log *slog.Logger, row store.Shipment, trackingNumber, why string) error {
	log.ErrorContext(ctx, "a label the carrier sold, whose answer could not be used, is not voided: settle it with the carrier",
		slog.String("tracking_number", trackingNumber), slog.String("reason", why))
	if err := s.auditUnusable(ctx, row, AuditUnusableNotVoided, trackingNumber); err != nil {
		return err
	}
	s.ship.Observer().UnusableLabel(row.Carrier, UnusableOutcomeNotVoided)
	return nil
}

func (s *Service) auditUnusable(ctx context.Context, row store.Shipment, action, trackingNumber string) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		return tx.InsertAudit(ctx, &store.AuditEntry{AccountID: row.AccountID, Mode: row.Mode, Actor: shipping.AuditActor,
			Action: action, Target: strings.TrimSpace(row.ID + " " + trackingNumber), CreatedAt: s.now()})
	})
}
