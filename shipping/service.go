// Package shipping is the shipments domain: what a shipment is and what may
// happen to it. It owns the input rules (input.go, requirements.go,
// customs.go, pieces.go), quoting and rate selection (quote.go), the
// create and the refund request (labels.go), the shipment state machine
// (status.go) and trackers' (trackerstatus.go), the movements of money
// (ledger.go), return labels (returns.go) and the clients of carrier
// accounts (carrieraccounts.go). The features built on it are packages of
// their own: the jobs that buy, void and track a label (shipping/labeljobs),
// batches, manifests, pickups, standalone trackers, carrier accounts,
// customs documents and the address book. Its services take the
// caller explicitly and own their transactions.
package shipping

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/internal/pdfmerge"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Documents keeps label documents (PDFs).
type Documents interface {
	Put(ctx context.Context, key string, data []byte) error
	Get(ctx context.Context, key string) ([]byte, error)
}

// TxDocuments are Documents kept in the database, which a purchase writes
// in the transaction that records it.
type TxDocuments interface {
	Documents
	PutTx(ctx context.Context, tx *store.Tx, key string, data []byte) error
}

// ErrDocumentNotFound is what Documents.Get returns for a missing document.
var ErrDocumentNotFound = store.ErrBlobNotFound

// EventEncoder renders a shipment as event data: the same shape the API's
// GET /labels/{id} returns, which is the API layer's to define.
type EventEncoder func(Shipment) (json.RawMessage, error)

// Config is what the shipping service needs; zero values get defaults.
type Config struct {
	// Now is the time of records (createdAt, purchasedAt, scans…); nil
	// means time.Now.
	Now func() time.Time
	// JobNow is the time base of job schedules: River runs a job once the
	// database's clock passes its scheduled_at, so a job due d from now is
	// scheduled at JobNow()+d. nil means time.Now; a test that works jobs
	// by hand sets it to its clock to see their schedules.
	JobNow func() time.Time
	Logger *slog.Logger
	// Carriers serves rates and purchases per mode.
	Carriers *carriers.Registry
	// Catalog describes the carriers shipd knows (carriers/connectors):
	// their requirements, tracking-number forms, delivery days and the
	// credentials of their carrier accounts. Required.
	Catalog *carriers.Catalog
	// TestVerifier and LiveVerifier verify addresses per mode; nil: not configured.
	TestVerifier, LiveVerifier verifier.Verifier
	// Documents stores label documents.
	Documents Documents
	// EventData renders shipments for events.
	EventData EventEncoder
	// TrackerEventData renders standalone trackers for events (tracker.updated
	// of a tracker without a shipment); nil: the Tracker as Go marshals it.
	TrackerEventData TrackerEncoder
	// PlatformFeeCents is added to every rate, in the minor unit of the
	// account's currency; nil means the default of 8.
	PlatformFeeCents *int64
	// PlatformFees sets the fee of the accounts of a currency (ISO 4217,
	// in its minor unit), over PlatformFeeCents (serve --platform-fee).
	PlatformFees map[string]int64
	// ExchangeRates converts a carrier's price into the account's currency
	// when they differ; nil converts a currency only to itself (the
	// carrier's rates are then left out with CodeNoExchangeRate).
	ExchangeRates ExchangeRates
	// PurchaseRetryBase is the first retry delay of a purchase or void the carrier could not take.
	PurchaseRetryBase time.Duration
	// PurchaseAttempts is how many times a purchase is tried while the carrier is unavailable.
	PurchaseAttempts int
	// CarrierTimeout bounds each carrier's answer to a quote. Default 10 s.
	CarrierTimeout time.Duration
	// TrackingPollInterval, when set, polls live carriers' tracking at this
	// fixed interval instead of the default schedule (shipping/labeljobs/tracking.go); for tests.
	TrackingPollInterval time.Duration
	// PurchaseWorkers is how many purchases run at once per instance, on a
	// queue of their own (PurchaseQueue). Default 64: a purchase mostly waits
	// for the carrier (0.3–3 s), so concurrency, not CPU, sets the pace.
	// Negative: this instance buys nothing (an API-only instance; others,
	// or this one restarted, work the queue).
	PurchaseWorkers int
	// MaxPurchaseBacklog is how many purchases may wait for a worker before
	// creates are refused with ErrPurchaseQueueFull. Default 5,000; negative:
	// no bound.
	MaxPurchaseBacklog int
	// Observer is told what purchases and voids came to (metrics); nil: nothing.
	Observer Observer
	// CarrierAccounts builds the live clients of the accounts' own carrier
	// accounts (carrieraccounts.go); nil: none can be connected.
	CarrierAccounts carriers.Factory
	// Cipher seals carrier accounts' client secrets; required with CarrierAccounts.
	Cipher *seal.Cipher
	// TrackerLimit is how many active standalone trackers (POST /trackers,
	// not yet ended) an account may have in each mode: 0 is
	// DefaultTrackerLimit, negative is no limit.
	TrackerLimit int
	// NoPlatformCarriers: an account without an enabled carrier account
	// gets ErrNoCarrierAccounts in live mode instead of the operator's
	// carriers (serve --platform-carriers=false).
	NoPlatformCarriers bool
	// PDFBudget bounds what reading label PDFs may hold, per document and
	// across every merge and purchase check at once (internal/pdfmerge);
	// nil: a budget of pdfmerge's defaults.
	PDFBudget *pdfmerge.Budget
}

// Service is the shipments domain: creates, quotes, reads and refund
// requests of shipments and the ledger, and the rules its feature packages
// call.
type Service struct {
	store    Storage
	accounts *accounts.Service
	webhooks *webhooks.Service
	idem     *idempotency.Service
	cfg      Config
	now      func() time.Time
	jobNow   func() time.Time
	log      *slog.Logger
	backlog  backlog
	inputs   decodedInputs
	clients  accountClients
	// batches is told of finished batch items (SetBatchItemFinisher).
	batches BatchItemFinisher
}

// DefaultPlatformFeeCents is the fee on every API-created label (the spec's default).
const DefaultPlatformFeeCents = 8

// New returns the shipping service.
func New(st Storage, acc *accounts.Service, wh *webhooks.Service, idem *idempotency.Service, cfg Config) (*Service, error) {
	if cfg.Catalog == nil {
		return nil, errors.New("shipping: Config.Catalog is required")
	}
	if cfg.Carriers == nil {
		return nil, errors.New("shipping: Config.Carriers is required")
	}
	if cfg.Documents == nil {
		return nil, errors.New("shipping: Config.Documents is required")
	}
	if cfg.CarrierAccounts != nil && cfg.Cipher == nil {
		return nil, errors.New("shipping: Config.Cipher is required with CarrierAccounts")
	}
	if cfg.EventData == nil {
		return nil, errors.New("shipping: Config.EventData is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.JobNow == nil {
		cfg.JobNow = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PurchaseAttempts <= 0 {
		cfg.PurchaseAttempts = 8
	}
	if cfg.PurchaseRetryBase <= 0 {
		cfg.PurchaseRetryBase = 2 * time.Second
	}
	if cfg.CarrierTimeout <= 0 {
		cfg.CarrierTimeout = DefaultCarrierTimeout
	}
	if cfg.PurchaseWorkers == 0 {
		cfg.PurchaseWorkers = DefaultPurchaseWorkers
	}
	if cfg.MaxPurchaseBacklog == 0 {
		cfg.MaxPurchaseBacklog = DefaultMaxPurchaseBacklog
	}
	if cfg.TrackerLimit == 0 {
		cfg.TrackerLimit = DefaultTrackerLimit
	}
	if cfg.PDFBudget == nil {
		cfg.PDFBudget = pdfmerge.NewBudget(0, pdfmerge.Limits{})
	}
	// Times are kept to the microsecond, as PostgreSQL stores them, so an
	// answer shows a time exactly as a later read will.
	return &Service{store: st, accounts: acc, webhooks: wh, idem: idem, cfg: cfg,
		now: func() time.Time { return cfg.Now().UTC().Truncate(time.Microsecond) }, jobNow: cfg.JobNow, log: cfg.Logger,
		backlog: backlog{st: st}}, nil
}

// platformFee is the fee of an account in currency, in its minor unit.
func (s *Service) platformFee(currency string) int64 {
	if fee, ok := s.cfg.PlatformFees[currency]; ok {
		return fee
	}
	if s.cfg.PlatformFeeCents == nil {
		return DefaultPlatformFeeCents
	}
	return *s.cfg.PlatformFeeCents
}

// Record stores events about row (as it is in tx, with its tracking) in tx;
// their data is the shipment's detail, rendered once.
func (s *Service) Record(ctx context.Context, tx *store.Tx, row store.Shipment, eventTypes ...string) error {
	sh, err := s.detail(ctx, tx.TrackingEvents, row)
	if err != nil {
		return err
	}
	return s.RecordShipment(ctx, tx, row, sh, eventTypes...)
}

// RecordShipment records the events of row with sh as their data, for a
// caller that has the shipment at hand (a purchase knows its tracker is new
// and has no tracking events yet, so nothing needs reading).
func (s *Service) RecordShipment(ctx context.Context, tx *store.Tx, row store.Shipment, sh Shipment, eventTypes ...string) error {
	data, err := s.cfg.EventData(sh)
	if err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	for _, t := range eventTypes {
		if _, err := s.webhooks.Record(ctx, tx, row.AccountID, row.Mode, t, data); err != nil {
			return err
		}
	}
	return nil
}

// RetryDelay backs off exponentially from base, capped at 5 minutes.
func RetryDelay(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// The feature packages built on the shipments domain (shipping/manifests,
// shipping/pickups, shipping/batches, shipping/trackers …) share its
// configuration, clocks and logger, so that a test's clock or a server's
// settings reach every one of them alike.

// Config is the service's configuration with its defaults applied.
func (s *Service) Config() Config { return s.cfg }

// Now is the time of records, to the microsecond (Config.Now).
func (s *Service) Now() time.Time { return s.now() }

// JobNow is the time base of job schedules (Config.JobNow).
func (s *Service) JobNow() time.Time { return s.jobNow() }

// Logger is the service's logger.
func (s *Service) Logger() *slog.Logger { return s.log }

// StoredInput decodes a shipment's stored request (store.Shipment.Request),
// from the cache of decoded inputs.
func (s *Service) StoredInput(request string) (Input, error) { return s.inputs.decode(request) }
