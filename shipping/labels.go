package shipping

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// MaxTrackingEvents is how many scans a shipment's detail shows, newest first.
const MaxTrackingEvents = 100

// Errors of reading labels; the API maps each to its code.
var (
	// ErrNoPaymentMethod: the account has no payment method on file (402).
	ErrNoPaymentMethod = errors.New("the account has no payment method on file; add one, then retry with the same idempotency key")
	// ErrLabelPending: the label document is not ready yet (202 label_pending).
	ErrLabelPending = errors.New("the label is not ready yet; retry in a few seconds")
	// ErrLabelUnavailable: the label document is missing (404 label_unavailable).
	ErrLabelUnavailable = errors.New("the label document is not available")
)

// Shipment is a label as the API shows it.
type Shipment struct {
	ID                  string        `json:"id"`
	Mode                accounts.Mode `json:"mode"`
	Status              Status        `json:"status"`
	CreatedAt           time.Time     `json:"createdAt"`
	UpdatedAt           time.Time     `json:"updatedAt"`
	Carrier             string        `json:"carrier"`
	Service             string        `json:"service"`
	ServiceCategory     string        `json:"serviceCategory"`
	CarrierRateCents    int64         `json:"carrierRateCents"`
	PlatformFeeCents    int64         `json:"platformFeeCents"`
	CustomerPriceCents  int64         `json:"customerPriceCents"`
	BalanceAppliedCents int64         `json:"balanceAppliedCents"`
	ChargeAmountCents   int64         `json:"chargeAmountCents"`
	Currency            string        `json:"currency"`
	// CarrierCurrency, CarrierAmountCents and ExchangeRate: the carrier's
	// own figure and the rate it was converted at, when the label was
	// bought at a converted rate; nil otherwise.
	CarrierCurrency    *string `json:"carrierCurrency,omitempty"`
	CarrierAmountCents *int64  `json:"carrierAmountCents,omitempty"`
	ExchangeRate       *string `json:"exchangeRate,omitempty"`
	EstimatedDays      int     `json:"estimatedDays"`
	// EstimatedDeliveryDate and Guaranteed are the bought rate's (nil for
	// labels bought before they were kept).
	EstimatedDeliveryDate *time.Time `json:"estimatedDeliveryDate,omitempty"`
	Guaranteed            *bool      `json:"guaranteed,omitempty"`
	Source                string     `json:"source"`
	Input                 Input      `json:"input"`
	TrackingNumber        *string    `json:"trackingNumber,omitempty"`
	TrackerID             *string    `json:"trackerId,omitempty"`
	TrackingStatus        *string    `json:"trackingStatus,omitempty"`
	ErrorMessage          *string    `json:"errorMessage,omitempty"`
	HasLabel              bool       `json:"hasLabel"`
	PurchasedAt           *time.Time `json:"purchasedAt,omitempty"`
	VoidedAt              *time.Time `json:"voidedAt,omitempty"`
	// IsReturn marks a return label; ReturnOf is the shipment it returns.
	IsReturn bool    `json:"isReturn"`
	ReturnOf *string `json:"returnOf,omitempty"`
	// LabelFormat and LabelSize are the document asked for at create.
	LabelFormat carriers.LabelFormat `json:"labelFormat"`
	LabelSize   carriers.LabelSize   `json:"labelSize"`
	BatchID     *string              `json:"batchId,omitempty"`
	ManifestID  *string              `json:"manifestId,omitempty"`
	// Packages are the pieces of a purchased multi-piece shipment (pieces.go).
	Packages []Package `json:"packages,omitempty"`
	// Detail says that TrackingEvents was read: the detail view and events
	// show the latest scans, lists do not.
	Detail         bool            `json:"detail"`
	TrackingEvents []TrackingEvent `json:"trackingEvents,omitempty"`
	// Revision names the cached readings the shipment was made from (Get):
	// two shipments of one ID with the same non-zero revision are the same,
	// so what was derived from one serves the other.
	Revision Revision `json:"-"`
}

// Revision is the store's revisions of a shipment's row and of its
// tracker's scans (store.Shipment.Revision, store.CachedScans). The zero
// Revision names nothing: a part was read from the database.
type Revision struct{ Row, Scans uint64 }

// CanRefund says whether the label may be refunded now (CanRefundLabel).
func (sh Shipment) CanRefund() error { return CanRefundLabel(sh.Status, deref(sh.TrackingStatus)) }

// TrackingEvent is one carrier scan.
type TrackingEvent struct {
	Status     string    `json:"status"`
	Message    string    `json:"message"`
	Location   string    `json:"location"`
	OccurredAt time.Time `json:"occurredAt"`
	// TrackingNumber is the piece a scan is of (multi-piece), nil for the
	// shipment as a whole.
	TrackingNumber *string `json:"trackingNumber,omitempty"`
}

// NewLabel is what buying a label takes.
type NewLabel struct {
	Input
	Selection
	// Return makes it a return label (returns.go); fromAddress, toAddress
	// and parcel may then be left out of Input, to come from Return.Of.
	Return
	// LabelFormat ("" is pdf) and LabelSize ("" is 4x6; letter only with a PDF).
	LabelFormat    carriers.LabelFormat `json:"labelFormat,omitempty"`
	LabelSize      carriers.LabelSize   `json:"labelSize,omitempty"`
	IdempotencyKey string               `json:"-"`
	// RequestFingerprint is the hash of the request as sent, when the caller has one.
	RequestFingerprint []byte `json:"-"`
}

// Create selects a rate and accepts the purchase: the shipment, the money
// reserved from the balance and the purchase job commit together, so an
// accepted purchase survives a crash. The purchase itself is asynchronous
// (shipping/labeljobs/purchase.go). A return label reserves nothing: it is paid on use (returns.go).
func (s *Service) Create(ctx context.Context, c accounts.Caller, in NewLabel) (Shipment, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /labels/create", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[Shipment]) (Shipment, error) {
		input, origCarrier, err := s.returnInput(ctx, c, in.Input, in.Return)
		if err != nil {
			return Shipment{}, err
		}
		input = input.Normalized()
		if err := input.check(c.Mode); err != nil {
			return Shipment{}, err
		}
		if err := checkLabelFormat(in.LabelFormat, in.LabelSize); err != nil {
			return Shipment{}, err
		}
		if err := CheckPieceFormat(input, in.LabelFormat); err != nil {
			return Shipment{}, err
		}
		if err := s.checkDeliverBy(in.DeliverBy); err != nil {
			return Shipment{}, err
		}
		// Read once for the quote's currency and the payment method.
		account, err := s.store.Account(ctx, c.AccountID)
		if err != nil {
			return Shipment{}, err
		}
		quote, err := s.ratesIn(ctx, c, input, in.Return.is(), currencyOf(account))
		if err != nil {
			return Shipment{}, err
		}
		if quote, err = s.offering(quote, in.Selection, in.LabelFormat, in.LabelSize); err != nil {
			return Shipment{}, err
		}
		sel := preferCarrier(quote, in.Selection, origCarrier)
		rate, err := quote.pick(sel)
		if err != nil {
			return Shipment{}, err
		}
		if !account.HasPaymentMethod {
			return Shipment{}, ErrNoPaymentMethod
		}
		if err := s.admitPurchase(ctx); err != nil {
			return Shipment{}, err
		}
		request, err := encodeInput(input)
		if err != nil {
			return Shipment{}, err
		}
		now := s.now()
		row := store.Shipment{
			ID: store.NewID("shp"), AccountID: c.AccountID, Mode: string(c.Mode), Status: string(Paying), CreatedAt: now, UpdatedAt: now,
			Carrier: rate.Carrier, Service: rate.Service, ServiceCategory: rate.ServiceCategory,
			CarrierRateCents: rate.CarrierRateCents, PlatformFeeCents: rate.PlatformFeeCents, CustomerPriceCents: rate.CustomerPriceCents,
			Currency: rate.Currency, EstimatedDays: rate.EstimatedDays, Request: request, Source: "api",
			EstimatedDeliveryDate: rate.deliveryDate(), Guaranteed: &rate.Guaranteed,
			IsReturn: in.Return.is(), ReturnOf: in.Return.Of,
			CarrierCurrency: rate.carrierCurrency(), CarrierAmountCents: rate.carrierAmount(), ExchangeRate: rate.exchangeRate(),
			LabelFormat: string(cmp.Or(in.LabelFormat, carriers.LabelPDF)), LabelSize: string(cmp.Or(in.LabelSize, carriers.Label4x6)),
			CarrierAccountID: optional(rate.CarrierAccountID),
		}
		return commit(ctx, func(tx *store.Tx) (Shipment, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return Shipment{}, err
			}
			if !row.IsReturn {
				if err := s.reserve(ctx, tx, &row); err != nil {
					return Shipment{}, err
				}
			}
			if err := tx.InsertShipment(ctx, &row); err != nil {
				return Shipment{}, err
			}
			if err := checkCurrency(ctx, tx, row); err != nil {
				return Shipment{}, err
			}
			if err := s.recordReserve(ctx, tx, row, now); err != nil {
				return Shipment{}, err
			}
			// A new shipment's purchase job cannot collide with another: the fast insert suffices.
			if err := tx.EnqueueNew(ctx, river.InsertManyParams{Args: PurchaseArgs{ShipmentID: row.ID}}); err != nil {
				return Shipment{}, err
			}
			return ShipmentOf(row, input, nil, false), nil
		})
	})
}

// find reads the caller's shipment with read, the store's cached read or a
// transaction's (accounts.ErrNotFound when missing or another account's,
// accounts.ErrWrongMode when the other mode's).
func find(ctx context.Context, c accounts.Caller, id string, read func(ctx context.Context, accountID, id string) (store.Shipment, error)) (store.Shipment, error) {
	return accounts.Find(c, func() (store.Shipment, error) { return read(ctx, c.AccountID, id) },
		func(sh store.Shipment) (string, string) { return sh.AccountID, sh.Mode })
}

// scansReader is how detail reads a tracker's scans: the store's cached
// read or a transaction's.
type scansReader func(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error)

// detail is a shipment with its latest tracking events.
func (s *Service) detail(ctx context.Context, scans scansReader, row store.Shipment) (Shipment, error) {
	in, err := s.inputs.decode(row.Request)
	if err != nil {
		return Shipment{}, fmt.Errorf("shipment %s: %w", row.ID, err)
	}
	var events []store.TrackingEvent
	if row.TrackerID != nil {
		if events, err = scans(ctx, *row.TrackerID, MaxTrackingEvents); err != nil {
			return Shipment{}, err
		}
	}
	return ShipmentOf(row, in, events, true), nil
}

// Get reads one shipment with its tracking events.
func (s *Service) Get(ctx context.Context, c accounts.Caller, id string) (Shipment, error) {
	row, err := find(ctx, c, id, s.store.CachedShipment)
	if err != nil {
		return Shipment{}, err
	}
	var scansRev uint64
	sh, err := s.detail(ctx, func(ctx context.Context, trackerID string, limit int) ([]store.TrackingEvent, error) {
		events, rev, err := s.store.CachedScans(ctx, trackerID, limit)
		scansRev = rev
		return events, err
	}, row)
	if err == nil && row.Revision != 0 && (row.TrackerID == nil || scansRev != 0) {
		sh.Revision = Revision{Row: row.Revision, Scans: scansRev}
	}
	return sh, err
}

// List pages through the caller's shipments, newest first, optionally in one status.
func (s *Service) List(ctx context.Context, c accounts.Caller, status Status, p paging.Request) ([]Shipment, bool, error) {
	rows, more, err := s.store.ListShipments(ctx, c.AccountID, string(c.Mode), string(status), p)
	if err != nil {
		return nil, false, err
	}
	out, err := s.ShipmentsOf(rows)
	return out, more, err
}

// ShipmentsOf are rows as a list shows them: without their scans.
func (s *Service) ShipmentsOf(rows []store.Shipment) ([]Shipment, error) {
	out := make([]Shipment, len(rows))
	for i, row := range rows {
		in, err := s.inputs.decode(row.Request)
		if err != nil {
			return nil, fmt.Errorf("shipment %s: %w", row.ID, err)
		}
		out[i] = ShipmentOf(row, in, nil, false)
	}
	return out, nil
}

// RefundRequest is what refunding a label takes.
type RefundRequest struct {
	IdempotencyKey string `json:"-"`
	// RequestFingerprint is the hash of the request as sent, when the caller has one.
	RequestFingerprint []byte `json:"-"`
}

// Refund asks for a void: purchased → void_requested, with the void job
// committed in the same transaction (shipping/labeljobs/refund.go does the rest).
func (s *Service) Refund(ctx context.Context, c accounts.Caller, id string, in RefundRequest) (Shipment, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /labels/" + id + "/refund", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[Shipment]) (Shipment, error) {
		return commit(ctx, func(tx *store.Tx) (Shipment, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return Shipment{}, err
			}
			if _, err := find(ctx, c, id, tx.Shipment); err != nil {
				return Shipment{}, err
			}
			row, err := tx.LockShipment(ctx, id)
			if err != nil {
				return Shipment{}, err
			}
			status := Status(row.Status)
			if err := CanRefundLabel(status, deref(row.TrackingStatus)); err != nil {
				return Shipment{}, err
			}
			next, _ := status.Next(RefundRequested)
			row.Status, row.UpdatedAt = string(next), s.now()
			if err := tx.UpdateShipment(ctx, &row); err != nil {
				return Shipment{}, err
			}
			if err := tx.Enqueue(ctx, river.InsertManyParams{Args: VoidArgs{ShipmentID: row.ID}}); err != nil {
				return Shipment{}, err
			}
			return s.detail(ctx, tx.TrackingEvents, row)
		})
	})
}

// LabelDocument returns the label PDF of the caller's shipment (a
// *LabelFormatError for a label bought in another format).
func (s *Service) LabelDocument(ctx context.Context, c accounts.Caller, id string) ([]byte, error) {
	return s.LabelDocumentIn(ctx, c, id, carriers.LabelPDF)
}

// Tracker is a label's tracker, or a standalone one (ShipmentID nil), with
// its scans, newest first.
type Tracker struct {
	ID                  string
	Mode                accounts.Mode
	ShipmentID          *string
	Carrier             string
	TrackingNumber      string
	Status              string
	EstimatedDeliveryAt *time.Time
	Events              []TrackingEvent
	CreatedAt           time.Time
	UpdatedAt           time.Time
	// EndedAt and EndReason (EndFinalStatus, ...): when and why shipd
	// stopped following a standalone tracker's package; nil and "" while
	// it follows it, and for a label's tracker.
	EndedAt   *time.Time
	EndReason string
}

// Tracker reads one of the caller's trackers.
func (s *Service) Tracker(ctx context.Context, c accounts.Caller, id string) (Tracker, error) {
	t, err := accounts.Find(c, func() (store.Tracker, error) { return s.store.Tracker(ctx, c.AccountID, id) },
		func(t store.Tracker) (string, string) { return t.AccountID, t.Mode })
	if err != nil {
		return Tracker{}, err
	}
	return TrackerDetail(ctx, s.store.CachedTrackingEvents, t)
}

func ShipmentOf(row store.Shipment, in Input, events []store.TrackingEvent, detail bool) Shipment {
	sh := Shipment{
		ID: row.ID, Mode: accounts.Mode(row.Mode), Status: Status(row.Status), CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
		Carrier: row.Carrier, Service: row.Service, ServiceCategory: row.ServiceCategory,
		CarrierRateCents: row.CarrierRateCents, PlatformFeeCents: row.PlatformFeeCents, CustomerPriceCents: row.CustomerPriceCents,
		BalanceAppliedCents: row.BalanceAppliedCents, ChargeAmountCents: row.ChargeAmountCents,
		Currency: row.Currency, EstimatedDays: row.EstimatedDays, Source: row.Source, Input: in,
		CarrierCurrency: row.CarrierCurrency, CarrierAmountCents: row.CarrierAmountCents, ExchangeRate: row.ExchangeRate,
		EstimatedDeliveryDate: rowDeliveryDate(row), Guaranteed: row.Guaranteed,
		TrackingNumber: row.TrackingNumber, TrackerID: row.TrackerID, TrackingStatus: row.TrackingStatus,
		ErrorMessage: row.ErrorMessage, HasLabel: row.LabelKey != nil, PurchasedAt: row.PurchasedAt, VoidedAt: row.VoidedAt,
		IsReturn: row.IsReturn, ReturnOf: row.ReturnOf, BatchID: row.BatchID, ManifestID: row.ManifestID, Detail: detail, LabelFormat: RowLabelFormat(row), LabelSize: RowLabelSize(row),
		Packages: decodePackages(row.Packages),
	}
	if detail {
		sh.TrackingEvents = trackingEventsOf(events)
	}
	return sh
}

func trackingEventsOf(events []store.TrackingEvent) []TrackingEvent {
	out := make([]TrackingEvent, len(events))
	for i, e := range events {
		out[i] = TrackingEvent{Status: e.Status, Message: e.Message, Location: e.Location, OccurredAt: e.OccurredAt, TrackingNumber: e.TrackingNumber}
	}
	return out
}

// deliveryDate is the rate's delivery date as a label keeps it
// (YYYY-MM-DD); nil when the rate has none.
func (r Rate) deliveryDate() *string {
	if r.EstimatedDeliveryDate.IsZero() {
		return nil
	}
	d := r.EstimatedDeliveryDate.UTC().Format(time.DateOnly)
	return &d
}

// rowDeliveryDate reads a label's kept delivery date; nil when it has none
// (or an unreadable one, which no write makes).
func rowDeliveryDate(row store.Shipment) *time.Time {
	if row.EstimatedDeliveryDate == nil {
		return nil
	}
	d, err := time.Parse(time.DateOnly, *row.EstimatedDeliveryDate)
	if err != nil {
		return nil
	}
	return &d
}
