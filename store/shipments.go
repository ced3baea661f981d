package store

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/paging"
)

// Shipment is a label: its selected rate, money, state and purchase results.
type Shipment struct {
	Seq                 int64     `db:"seq"`
	ID                  string    `db:"id"`
	AccountID           string    `db:"account_id"`
	Mode                string    `db:"mode"`
	Status              string    `db:"status"`
	CreatedAt           time.Time `db:"created_at"`
	UpdatedAt           time.Time `db:"updated_at"`
	Carrier             string    `db:"carrier"`
	Service             string    `db:"service"`
	ServiceCategory     string    `db:"service_category"`
	CarrierRateCents    int64     `db:"carrier_rate_cents"`
	PlatformFeeCents    int64     `db:"platform_fee_cents"`
	CustomerPriceCents  int64     `db:"customer_price_cents"`
	BalanceAppliedCents int64     `db:"balance_applied_cents"`
	ChargeAmountCents   int64     `db:"charge_amount_cents"`
	Currency            string    `db:"currency"`
	// CarrierCurrency, CarrierAmountCents and ExchangeRate are set when the
	// rate was converted from the carrier's currency: its own figure and
	// the rate (a decimal) it was bought at; nil otherwise.
	CarrierCurrency    *string `db:"carrier_currency"`
	CarrierAmountCents *int64  `db:"carrier_amount_cents"`
	ExchangeRate       *string `db:"exchange_rate"`
	EstimatedDays      int     `db:"estimated_days"`
	// EstimatedDeliveryDate (YYYY-MM-DD) and Guaranteed are the bought
	// rate's; nil for labels bought before they were kept.
	EstimatedDeliveryDate *string    `db:"estimated_delivery_date"`
	Guaranteed            *bool      `db:"guaranteed"`
	Request               string     `db:"request"`
	Source                string     `db:"source"`
	TrackingNumber        *string    `db:"tracking_number"`
	CarrierShipmentID     *string    `db:"carrier_shipment_id"`
	LabelKey              *string    `db:"label_key"`
	TrackerID             *string    `db:"tracker_id"`
	TrackingStatus        *string    `db:"tracking_status"`
	ErrorMessage          *string    `db:"error_message"`
	PurchasedAt           *time.Time `db:"purchased_at"`
	VoidedAt              *time.Time `db:"voided_at"`
	// IsReturn marks a return label; ReturnOf is the shipment it returns,
	// when it was made from one. Both are set at insert and never change.
	IsReturn bool    `db:"is_return"`
	ReturnOf *string `db:"return_of"`
	// UseChargedAt is when a return label was charged, at the carrier's
	// first scan of it (pay on use); nil until then, and for outbound labels.
	UseChargedAt *time.Time `db:"use_charged_at"`
	// LabelFormat and LabelSize are the document asked for at create.
	LabelFormat string `db:"label_format"`
	LabelSize   string `db:"label_size"`
	// BatchID is the batch the shipment was created in (POST /batches); nil for single creates.
	BatchID *string `db:"batch_id"`
	// ManifestID is the manifest the label is on (manifests.go); nil while on none.
	ManifestID *string `db:"manifest_id"`
	// CarrierAccountID is the account's carrier account the label is bought,
	// voided and tracked through; nil: the operator's carriers (or the sandbox).
	CarrierAccountID *string `db:"carrier_account_id"`
	// Packages are a purchased multi-piece shipment's pieces (JSON, the
	// domain's); nil for a single parcel.
	Packages *string `db:"packages"`

	// Revision is not a column. It names one cached reading of the row
	// (CachedShipment): two readings with the same revision are the same
	// row, so what was derived from one (a rendered answer) serves the
	// other. 0 when the row did not come from the cache.
	Revision uint64 `db:"-"`
}

const shipmentColumns = `seq, id, account_id, mode, status, created_at, updated_at, carrier, service, service_category,
	carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents, charge_amount_cents, currency,
	carrier_currency, carrier_amount_cents, exchange_rate, estimated_days, estimated_delivery_date, guaranteed, request, source, tracking_number, carrier_shipment_id, label_key, tracker_id, tracking_status, error_message, purchased_at, voided_at,
	is_return, return_of, use_charged_at, label_format, label_size, batch_id, manifest_id, carrier_account_id, packages`

// InsertShipment stores a new shipment.
func (t *Tx) InsertShipment(ctx context.Context, s *Shipment) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO shipments (id, account_id, mode, status, created_at, updated_at, carrier, service,
		service_category, carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents, charge_amount_cents,
		currency, carrier_currency, carrier_amount_cents, exchange_rate, estimated_days, estimated_delivery_date, guaranteed, request, source, is_return, return_of, label_format, label_size, batch_id, carrier_account_id)
		VALUES (:id, :account_id, :mode, :status, :created_at, :updated_at, :carrier, :service, :service_category,
		:carrier_rate_cents, :platform_fee_cents, :customer_price_cents, :balance_applied_cents, :charge_amount_cents,
		:currency, :carrier_currency, :carrier_amount_cents, :exchange_rate, :estimated_days, :estimated_delivery_date, :guaranteed, :request, :source, :is_return, :return_of, :label_format, :label_size, :batch_id, :carrier_account_id)
		RETURNING seq`, s)
	s.Seq = seq
	return err
}

// UpdateShipment writes a shipment's state and purchase results.
func (t *Tx) UpdateShipment(ctx context.Context, s *Shipment) error {
	t.touch(detailKey{shipmentDetail, s.ID})
	_, err := t.tx.NamedExecContext(ctx, `UPDATE shipments SET status = :status, updated_at = :updated_at,
		tracking_number = :tracking_number, carrier_shipment_id = :carrier_shipment_id, label_key = :label_key, label_format = :label_format, tracker_id = :tracker_id, tracking_status = :tracking_status,
		error_message = :error_message, purchased_at = :purchased_at, voided_at = :voided_at,
		balance_applied_cents = :balance_applied_cents, charge_amount_cents = :charge_amount_cents,
		use_charged_at = :use_charged_at, packages = :packages
		WHERE id = :id`, s)
	return err
}

// Shipment reads a shipment of an account, in either mode (callers check the mode).
func (r reader) Shipment(ctx context.Context, accountID, id string) (Shipment, error) {
	var s Shipment
	err := r.get(ctx, &s, `SELECT `+shipmentColumns+` FROM shipments WHERE account_id = ? AND id = ?`, accountID, id)
	return s, err
}

// ShipmentByID reads a shipment by id alone, for background jobs.
func (r reader) ShipmentByID(ctx context.Context, id string) (Shipment, error) {
	var s Shipment
	err := r.get(ctx, &s, `SELECT `+shipmentColumns+` FROM shipments WHERE id = ?`, id)
	return s, err
}

// LockShipment reads a shipment by id and holds it until the transaction
// ends, so that a state change decided on what was read cannot race another.
func (t *Tx) LockShipment(ctx context.Context, id string) (Shipment, error) {
	var s Shipment
	err := t.get(ctx, &s, `SELECT `+shipmentColumns+` FROM shipments WHERE id = ?`+t.forUpdate(), id)
	return s, err
}

// ListShipments pages through an account's shipments in one mode, newest first,
// optionally in one status. The index on (account, mode[, status], seq) keeps
// a page's cost independent of how many shipments exist.
func (r reader) ListShipments(ctx context.Context, accountID, mode, status string, p paging.Request) ([]Shipment, bool, error) {
	before, n, err := r.pageArgs(ctx, p, `SELECT seq FROM shipments WHERE id = ? AND account_id = ? AND mode = ?`, accountID, mode)
	if err != nil {
		return nil, false, err
	}
	var rows []Shipment
	if status == "" {
		err = r.sel(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
			WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	} else {
		err = r.sel(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
			WHERE account_id = ? AND mode = ? AND status = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, status, before, n)
	}
	if err != nil {
		return nil, false, err
	}
	rows, more := trimPage(rows, p.Limit)
	return rows, more, nil
}
