package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
)

// Shipment is a label: its selected rate, money, state and purchase results.
type Shipment struct {
	Seq                 int64      `db:"seq"`
	ID                  string     `db:"id"`
	AccountID           string     `db:"account_id"`
	Mode                string     `db:"mode"`
	Status              string     `db:"status"`
	CreatedAt           time.Time  `db:"created_at"`
	UpdatedAt           time.Time  `db:"updated_at"`
	Carrier             string     `db:"carrier"`
	Service             string     `db:"service"`
	ServiceCategory     string     `db:"service_category"`
	CarrierRateCents    int64      `db:"carrier_rate_cents"`
	PlatformFeeCents    int64      `db:"platform_fee_cents"`
	CustomerPriceCents  int64      `db:"customer_price_cents"`
	BalanceAppliedCents int64      `db:"balance_applied_cents"`
	ChargeAmountCents   int64      `db:"charge_amount_cents"`
	Currency            string     `db:"currency"`
	EstimatedDays       int        `db:"estimated_days"`
	Request             string     `db:"request"`
	Source              string     `db:"source"`
	TrackingNumber      *string    `db:"tracking_number"`
	LabelKey            *string    `db:"label_key"`
	TrackerID           *string    `db:"tracker_id"`
	TrackingStatus      *string    `db:"tracking_status"`
	ErrorMessage        *string    `db:"error_message"`
	PurchasedAt         *time.Time `db:"purchased_at"`
	VoidedAt            *time.Time `db:"voided_at"`
}

const shipmentColumns = `seq, id, account_id, mode, status, created_at, updated_at, carrier, service, service_category,
	carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents, charge_amount_cents, currency,
	estimated_days, request, source, tracking_number, label_key, tracker_id, tracking_status, error_message, purchased_at, voided_at`

// InsertShipment stores a new shipment.
func InsertShipment(ctx context.Context, tx *sqlx.Tx, s *Shipment) error {
	res, err := tx.NamedExecContext(ctx, `INSERT INTO shipments (id, account_id, mode, status, created_at, updated_at, carrier, service,
		service_category, carrier_rate_cents, platform_fee_cents, customer_price_cents, balance_applied_cents, charge_amount_cents,
		currency, estimated_days, request, source)
		VALUES (:id, :account_id, :mode, :status, :created_at, :updated_at, :carrier, :service, :service_category,
		:carrier_rate_cents, :platform_fee_cents, :customer_price_cents, :balance_applied_cents, :charge_amount_cents,
		:currency, :estimated_days, :request, :source)`, s)
	if err != nil {
		return err
	}
	s.Seq, err = res.LastInsertId()
	return err
}

// UpdateShipment writes a shipment's state and purchase results.
func UpdateShipment(ctx context.Context, tx *sqlx.Tx, s *Shipment) error {
	_, err := tx.NamedExecContext(ctx, `UPDATE shipments SET status = :status, updated_at = :updated_at,
		tracking_number = :tracking_number, label_key = :label_key, tracker_id = :tracker_id, tracking_status = :tracking_status,
		error_message = :error_message, purchased_at = :purchased_at, voided_at = :voided_at,
		balance_applied_cents = :balance_applied_cents, charge_amount_cents = :charge_amount_cents
		WHERE id = :id`, s)
	return err
}

// GetShipment reads a shipment of an account in either mode (callers check the mode).
func GetShipment(ctx context.Context, q sqlx.QueryerContext, accountID, id string) (Shipment, error) {
	var s Shipment
	err := sqlx.GetContext(ctx, q, &s, `SELECT `+shipmentColumns+` FROM shipments WHERE account_id = ? AND id = ?`, accountID, id)
	return s, notFound(err)
}

// ShipmentByID reads a shipment by id alone, for background jobs.
func ShipmentByID(ctx context.Context, q sqlx.QueryerContext, id string) (Shipment, error) {
	var s Shipment
	err := sqlx.GetContext(ctx, q, &s, `SELECT `+shipmentColumns+` FROM shipments WHERE id = ?`, id)
	return s, notFound(err)
}

// ListShipments pages through an account's shipments in one mode, newest first,
// optionally in one status. The index on (account, mode[, status], seq) keeps
// a page's cost independent of how many shipments exist.
func (s *Store) ListShipments(ctx context.Context, accountID, mode, status string, p Page) ([]Shipment, int64, error) {
	before, n := p.pageArgs()
	var rows []Shipment
	var err error
	if status == "" {
		err = s.R.SelectContext(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
			WHERE account_id = ? AND mode = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, before, n)
	} else {
		err = s.R.SelectContext(ctx, &rows, `SELECT `+shipmentColumns+` FROM shipments
			WHERE account_id = ? AND mode = ? AND status = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, accountID, mode, status, before, n)
	}
	if err != nil {
		return nil, 0, err
	}
	rows, next := trimPage(rows, p.Limit, func(s Shipment) int64 { return s.Seq })
	return rows, next, nil
}
