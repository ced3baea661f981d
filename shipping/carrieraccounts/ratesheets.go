package carrieraccounts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// A carrier account's own rate sheet: the account's contract prices for
// that carrier (carriers.RateSheet), which price the rates of that carrier
// account only. Carriers without a rating API quote nothing without one;
// for the others a sheet overrides the carrier's prices for the services
// it prices (negotiated prices their rating API does not return). It is
// stored sealed, as the credentials are: a negotiated price list is
// confidential under most carrier contracts.

// ErrNoRateSheet: the carrier account has no rate sheet (404 no_rate_sheet).
var ErrNoRateSheet = errors.New("this carrier account has no rate sheet: send one with PUT (text/csv)")

// RateSheetError is a rate sheet refused, at its first error: where (the
// line and the column from 1, column 0 for a whole line) and what (422
// invalid_rate_sheet).
type RateSheetError struct {
	Sheet *carriers.RateSheetError
}

func (e *RateSheetError) Error() string { return e.Sheet.Error() }
func (e *RateSheetError) Unwrap() error { return e.Sheet }

// RateSheetSummary is what a carrier account shows of its rate sheet.
type RateSheetSummary struct {
	Rows      int       `json:"rows"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ReadRateSheet reads a rate sheet as sent (up to one byte past
// carriers.MaxRateSheetBytes, so that a larger one is refused as such) and
// checks it with the one validator of rate sheets, the operator's files'
// (carriers.ParseRateSheet): the text and its number of rows, or a
// *RateSheetError. The API and the settings pages both call it.
func ReadRateSheet(r io.Reader) (string, int, error) {
	raw, err := io.ReadAll(io.LimitReader(r, carriers.MaxRateSheetBytes+1))
	if err != nil {
		return "", 0, err
	}
	sheet, err := carriers.ParseRateSheet(bytes.NewReader(raw))
	var se *carriers.RateSheetError
	if errors.As(err, &se) {
		return "", 0, &RateSheetError{Sheet: se}
	}
	if err != nil {
		return "", 0, err
	}
	return string(raw), sheet.Rows(), nil
}

// PutRateSheet sets a carrier account's rate sheet from the CSV text r,
// replacing any it had, once the whole sheet is valid: nothing is stored
// otherwise. The account's next quote is priced by it.
func (s *Service) PutRateSheet(ctx context.Context, c accounts.Caller, id string, r io.Reader) (CarrierAccount, error) {
	if _, err := findCarrierAccount(ctx, s.store, c, id); err != nil {
		return CarrierAccount{}, err
	}
	text, rows, err := ReadRateSheet(r)
	if err != nil {
		return CarrierAccount{}, err
	}
	sealed, err := s.cfg.Cipher.Encrypt(text)
	if err != nil {
		return CarrierAccount{}, err
	}
	var row store.CarrierAccount
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		if _, err := findCarrierAccount(ctx, tx, c, id); err != nil {
			return err
		}
		if err := tx.PutCarrierAccountRateSheet(ctx, c.AccountID, id, sealed, rows, s.now()); err != nil {
			return err
		}
		var err error
		if row, err = tx.CarrierAccount(ctx, c.AccountID, id); err != nil {
			return err
		}
		return s.accounts.Audit(ctx, tx, c, row.AccountID, accounts.Mode(row.Mode), accounts.AuditCarrierAccountRateSheetSet,
			fmt.Sprintf("%s %s %s (%d rows)", row.ID, row.Carrier, row.AccountNumber, rows))
	})
	if err != nil {
		return CarrierAccount{}, err
	}
	return carrierAccountOf(row), nil
}

// RateSheet is a carrier account's rate sheet as it was sent;
// ErrNoRateSheet when it has none.
func (s *Service) RateSheet(ctx context.Context, c accounts.Caller, id string) (string, error) {
	row, err := findCarrierAccount(ctx, s.store, c, id)
	if err != nil {
		return "", err
	}
	text, err := s.ship.RateSheetText(ctx, row)
	if errors.Is(err, store.ErrNotFound) {
		return "", ErrNoRateSheet
	}
	return text, err
}

// DeleteRateSheet removes a carrier account's rate sheet; ErrNoRateSheet
// when it has none. Its rates are then the carrier's own, or none for a
// carrier without a rating API.
func (s *Service) DeleteRateSheet(ctx context.Context, c accounts.Caller, id string) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		row, err := findCarrierAccount(ctx, tx, c, id)
		if err != nil {
			return err
		}
		if row.RateSheetRows == 0 {
			return ErrNoRateSheet
		}
		if err := tx.DeleteCarrierAccountRateSheet(ctx, c.AccountID, id, s.now()); err != nil {
			return err
		}
		return s.accounts.Audit(ctx, tx, c, row.AccountID, accounts.Mode(row.Mode), accounts.AuditCarrierAccountRateSheetRemoved,
			row.ID+" "+row.Carrier+" "+row.AccountNumber)
	})
}
