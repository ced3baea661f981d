package store

import (
	"context"
	"fmt"
	"time"

	"github.com/shipd-dev/shipd/paging"
)

// CarrierAccount is an account's own carrier contract; the client secret is
// kept sealed.
type CarrierAccount struct {
	Seq              int64   `db:"seq"`
	ID               string  `db:"id"`
	AccountID        string  `db:"account_id"`
	Mode             string  `db:"mode"`
	Carrier          string  `db:"carrier"`
	Description      *string `db:"description"`
	Environment      string  `db:"environment"`
	ClientID         string  `db:"client_id"`
	SecretCiphertext string  `db:"secret_ciphertext"`
	AccountNumber    string  `db:"account_number"`
	CRID             string  `db:"crid"`
	MID              string  `db:"mid"`
	// CredentialsCiphertext is every credential field sealed as one JSON
	// object; "" for rows written before it, whose credentials are the
	// columns above.
	CredentialsCiphertext string     `db:"credentials_ciphertext"`
	Enabled               bool       `db:"enabled"`
	Version               int64      `db:"version"`
	CreatedAt             time.Time  `db:"created_at"`
	UpdatedAt             time.Time  `db:"updated_at"`
	DeletedAt             *time.Time `db:"deleted_at"`
	// RateSheetRows is the number of rows of the account's own rate sheet,
	// 0 when it has none; RateSheetUpdatedAt when it was last set.
	RateSheetRows      int        `db:"rate_sheet_rows"`
	RateSheetUpdatedAt *time.Time `db:"rate_sheet_updated_at"`
	// RateSheetVersion counts the changes of the rate sheet, as Version
	// counts those of the credentials: a client is built from both.
	RateSheetVersion int64 `db:"rate_sheet_version"`
}

const carrierAccountColumns = `seq, id, account_id, mode, carrier, description, environment, client_id, secret_ciphertext,
	account_number, crid, mid, credentials_ciphertext, enabled, version, created_at, updated_at, deleted_at,
	rate_sheet_rows, rate_sheet_updated_at, rate_sheet_version`

// InsertCarrierAccount stores a new carrier account.
func (t *Tx) InsertCarrierAccount(ctx context.Context, a *CarrierAccount) error {
	seq, err := t.insertSeq(ctx, `INSERT INTO carrier_accounts
		(id, account_id, mode, carrier, description, environment, client_id, secret_ciphertext, account_number, crid, mid,
		credentials_ciphertext, enabled, version, created_at, updated_at)
		VALUES (:id, :account_id, :mode, :carrier, :description, :environment, :client_id, :secret_ciphertext, :account_number,
		:crid, :mid, :credentials_ciphertext, :enabled, :version, :created_at, :updated_at)
		RETURNING seq`, a)
	if err != nil {
		return fmt.Errorf("insert carrier account: %w", err)
	}
	a.Seq = seq
	return nil
}

// CarrierAccount reads a carrier account of an account that is not deleted, in either mode.
func (r reader) CarrierAccount(ctx context.Context, accountID, id string) (CarrierAccount, error) {
	var a CarrierAccount
	err := r.get(ctx, &a, `SELECT `+carrierAccountColumns+` FROM carrier_accounts
		WHERE account_id = ? AND id = ? AND deleted_at IS NULL`, accountID, id)
	return a, err
}

// CarrierAccountByID reads a carrier account by id alone, deleted or not:
// the labels it bought are voided and tracked through it whatever happened to it.
func (r reader) CarrierAccountByID(ctx context.Context, id string) (CarrierAccount, error) {
	var a CarrierAccount
	err := r.get(ctx, &a, `SELECT `+carrierAccountColumns+` FROM carrier_accounts WHERE id = ?`, id)
	return a, err
}

// EnabledCarrierAccounts returns an account's enabled, not deleted carrier
// accounts of one mode, oldest first.
func (r reader) EnabledCarrierAccounts(ctx context.Context, accountID, mode string) ([]CarrierAccount, error) {
	var rows []CarrierAccount
	err := r.sel(ctx, &rows, `SELECT `+carrierAccountColumns+` FROM carrier_accounts
		WHERE account_id = ? AND mode = ? AND enabled = TRUE AND deleted_at IS NULL ORDER BY seq`, accountID, mode)
	return rows, err
}

// UpdateCarrierAccount writes the mutable fields of a carrier account.
func (t *Tx) UpdateCarrierAccount(ctx context.Context, a *CarrierAccount) error {
	return t.execOne(ctx, `UPDATE carrier_accounts SET description = ?, enabled = ?, client_id = ?, secret_ciphertext = ?,
		account_number = ?, crid = ?, mid = ?, credentials_ciphertext = ?, version = ?, updated_at = ?
		WHERE id = ? AND account_id = ? AND deleted_at IS NULL`,
		a.Description, a.Enabled, a.ClientID, a.SecretCiphertext, a.AccountNumber, a.CRID, a.MID, a.CredentialsCiphertext, a.Version,
		a.UpdatedAt.UTC(), a.ID, a.AccountID)
}

// DeleteCarrierAccount hides a carrier account from every later read but
// CarrierAccountByID; the row stays for the labels it bought.
func (t *Tx) DeleteCarrierAccount(ctx context.Context, accountID, id string, now time.Time) error {
	return t.execOne(ctx, `UPDATE carrier_accounts SET deleted_at = ?, updated_at = ?
		WHERE account_id = ? AND id = ? AND deleted_at IS NULL`, now.UTC(), now.UTC(), accountID, id)
}

// ListCarrierAccounts returns a page of carrier accounts that are not deleted, newest first.
func (r reader) ListCarrierAccounts(ctx context.Context, accountID, mode string, p paging.Request) ([]CarrierAccount, bool, error) {
	return modePage[CarrierAccount](ctx, r, p, "carrier_accounts", carrierAccountColumns, "deleted_at IS NULL", accountID, mode)
}

// PutCarrierAccountRateSheet sets the rate sheet of a carrier account of
// accountID that is not deleted (ErrNotFound otherwise), replacing any it
// had: the sealed sheet, its number of rows, when, and one more change.
func (t *Tx) PutCarrierAccountRateSheet(ctx context.Context, accountID, id, sheetCiphertext string, rows int, now time.Time) error {
	if err := t.execOne(ctx, `UPDATE carrier_accounts SET rate_sheet_rows = ?, rate_sheet_updated_at = ?,
		rate_sheet_version = rate_sheet_version + 1, updated_at = ?
		WHERE account_id = ? AND id = ? AND deleted_at IS NULL`, rows, now.UTC(), now.UTC(), accountID, id); err != nil {
		return err
	}
	_, err := t.exec(ctx, `INSERT INTO carrier_account_rate_sheets (carrier_account_id, sheet_ciphertext) VALUES (?, ?)
		ON CONFLICT (carrier_account_id) DO UPDATE SET sheet_ciphertext = excluded.sheet_ciphertext`, id, sheetCiphertext)
	return err
}

// DeleteCarrierAccountRateSheet removes the rate sheet of a carrier account
// of accountID that is not deleted; ErrNotFound when it has none.
func (t *Tx) DeleteCarrierAccountRateSheet(ctx context.Context, accountID, id string, now time.Time) error {
	if err := t.execOne(ctx, `UPDATE carrier_accounts SET rate_sheet_rows = 0, rate_sheet_updated_at = NULL,
		rate_sheet_version = rate_sheet_version + 1, updated_at = ?
		WHERE account_id = ? AND id = ? AND deleted_at IS NULL AND rate_sheet_rows > 0`, now.UTC(), accountID, id); err != nil {
		return err
	}
	return t.execOne(ctx, `DELETE FROM carrier_account_rate_sheets WHERE carrier_account_id = ?`, id)
}

// CarrierAccountRateSheet reads the sealed rate sheet of a carrier account
// of accountID, deleted or not (its labels' clients are built with it);
// ErrNotFound when it has none.
func (r reader) CarrierAccountRateSheet(ctx context.Context, accountID, id string) (string, error) {
	var sealed string
	err := r.get(ctx, &sealed, `SELECT s.sheet_ciphertext FROM carrier_account_rate_sheets s
		JOIN carrier_accounts a ON a.id = s.carrier_account_id WHERE a.account_id = ? AND s.carrier_account_id = ?`, accountID, id)
	return sealed, err
}
