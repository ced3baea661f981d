package carrieraccounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// CredentialsError is the carrier's refusal of a carrier account's credentials.
type CredentialsError struct{ Message string }

func (e *CredentialsError) Error() string { return e.Message }
func (e *CredentialsError) Unwrap() error { return shipping.ErrCarrierCredentialsInvalid }

// CarrierAccountCarriers lists the carriers one can connect: the catalog's
// with a live connector.
func (s *Service) CarrierAccountCarriers() []carriers.Descriptor {
	var out []carriers.Descriptor
	for _, d := range s.cfg.Catalog.Descriptors() {
		if d.Live() {
			out = append(out, d)
		}
	}
	return out
}

// MaxDescriptionLength bounds a carrier account's description
// (openapi.yaml states it too).
const MaxDescriptionLength = 255

// CarrierAccount is a carrier account as shown: never its secret, its client id masked.
type CarrierAccount struct {
	ID            string    `json:"id"`
	Carrier       string    `json:"carrier"`
	Description   *string   `json:"description"`
	ClientID      string    `json:"clientId"`
	AccountNumber string    `json:"accountNumber"`
	Environment   string    `json:"environment"`
	Enabled       bool      `json:"enabled"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	// RateSheet is what it shows of its own rate sheet, nil without one.
	RateSheet *RateSheetSummary `json:"rateSheet"`
}

// CarrierCredentialsInput are the credentials a caller gives, by the
// field names of the carrier's connector (carriers.CredentialField.Name).
type CarrierCredentialsInput map[string]string

// NewCarrierAccount is what connecting a carrier account takes.
type NewCarrierAccount struct {
	Carrier     string  `json:"carrier"`
	Description *string `json:"description,omitempty"`
	// Credentials are left out of the input a fingerprint is computed of
	// when the caller gives none (the settings page): they hold secrets.
	Credentials CarrierCredentialsInput `json:"-"`
	Environment string                  `json:"environment,omitempty"`
	// IdempotencyKey and RequestFingerprint as for every create. The
	// fingerprint covers the secret as sent; the stored input does not.
	IdempotencyKey     string `json:"-"`
	RequestFingerprint []byte `json:"-"`
}

// CarrierAccountPatch is a partial update; nil fields are left as they are.
type CarrierAccountPatch struct {
	Enabled *bool
	// SetDescription says whether Description is given (nil clears it).
	SetDescription bool
	Description    *string
	// Credentials replace the stored ones whole, checked with the carrier first.
	Credentials *CarrierCredentialsInput
}

// maskClientID shows the last four characters of a client id.
func maskClientID(id string) string {
	r := []rune(id)
	if len(r) <= 4 {
		return strings.Repeat("•", len(r))
	}
	return "••••" + string(r[len(r)-4:])
}

func carrierAccountOf(r store.CarrierAccount) CarrierAccount {
	a := CarrierAccount{ID: r.ID, Carrier: r.Carrier, Description: r.Description, ClientID: maskClientID(r.ClientID),
		AccountNumber: r.AccountNumber, Environment: r.Environment, Enabled: r.Enabled, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.RateSheetRows > 0 && r.RateSheetUpdatedAt != nil {
		a.RateSheet = &RateSheetSummary{Rows: r.RateSheetRows, UpdatedAt: *r.RateSheetUpdatedAt}
	}
	return a
}

func fieldIssue(path, msg string) error {
	return &shipping.InputError{Issues: []shipping.Issue{{Path: path, Message: msg}}}
}

// MissingCredentialsError: required credential fields left empty, every
// one of them at once (422 missing_field: field the first, fields all), so
// that a form is not sent back once per field. It unwraps to the
// InputError of the same issues, which the settings page lists.
type MissingCredentialsError struct {
	Carrier carriers.ID
	// Fields are the paths ("credentials.clientSecret"), in the form's order.
	Fields []string
}

func (e *MissingCredentialsError) Error() string {
	verb := "is"
	if len(e.Fields) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s %s required for %s", strings.Join(e.Fields, ", "), verb, e.Carrier)
}

func (e *MissingCredentialsError) Unwrap() error {
	issues := make([]shipping.Issue, len(e.Fields))
	for i, f := range e.Fields {
		issues[i] = shipping.Issue{Path: f, Message: "is required for " + string(e.Carrier), Missing: true}
	}
	return &shipping.InputError{Issues: issues}
}

// checkCredentials applies the rules of d's credential fields to in, in
// the form's order, and returns the credentials; or every required field
// left empty (a *MissingCredentialsError); or else the first other problem
// (a malformed field, a field d does not take).
func checkCredentials(d carriers.Descriptor, environment string, in CarrierCredentialsInput) (carriers.Credentials, error) {
	cr := carriers.NewCredentials(d, environment, in)
	var missing []string
	for _, f := range d.Credentials {
		if errors.Is(f.Problem(cr.Get(f.Name)), carriers.ErrCredentialMissing) {
			missing = append(missing, "credentials."+f.Name)
		}
	}
	if len(missing) > 0 {
		return carriers.Credentials{}, &MissingCredentialsError{Carrier: d.ID, Fields: missing}
	}
	for _, f := range d.Credentials {
		if err := f.Problem(cr.Get(f.Name)); err != nil {
			return carriers.Credentials{}, fieldIssue("credentials."+f.Name, err.Error())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cr.Fields)) {
		if _, ok := d.Field(name); !ok {
			return carriers.Credentials{}, fieldIssue("credentials."+name, "is not a credential of "+string(d.ID))
		}
	}
	return cr, nil
}

func checkCarrierDescription(d *string) error {
	if d != nil && utf8.RuneCountInString(*d) > MaxDescriptionLength {
		return fieldIssue("description", fmt.Sprintf("maximum string length is %d", MaxDescriptionLength))
	}
	return nil
}

// proveCredentials builds a client with the credentials and asks the carrier
// for a token: nil, a *CredentialsError when it refuses them, a
// *CarriersError (unavailable) when it cannot answer.
func (s *Service) proveCredentials(ctx context.Context, cr carriers.Credentials) error {
	if s.cfg.CarrierAccounts == nil {
		return shipping.ErrCarrierAccountsUnsupported
	}
	client, err := s.cfg.CarrierAccounts(cr)
	if err != nil {
		return fieldIssue("credentials", err.Error())
	}
	if !client.Capabilities().Has(carriers.CapCheckCredentials) {
		return fmt.Errorf("carrier %s cannot check credentials: %w", cr.Carrier, shipping.ErrCarrierAccountsUnsupported)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CarrierTimeout)
	defer cancel()
	err = client.CheckCredentials(cctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ce *carriers.Error
	if errors.As(err, &ce) && errors.Is(err, carriers.ErrFailed) && ce.HTTPStatus >= 400 && ce.HTTPStatus < 500 {
		return &CredentialsError{Message: ce.Error()}
	}
	f := shipping.FailureOf(cr.Carrier, err)
	f.Kind = shipping.FailureUnavailable
	if cctx.Err() == context.DeadlineExceeded {
		f.Message = fmt.Sprintf("%s did not answer within %s", cr.Carrier, s.cfg.CarrierTimeout)
	}
	return shipping.NoRatesError([]shipping.CarrierFailure{f})
}

// CreateCarrierAccount connects a carrier account in live mode, once the
// carrier granted a token for its credentials; nothing is stored otherwise.
func (s *Service) CreateCarrierAccount(ctx context.Context, c accounts.Caller, in NewCarrierAccount) (CarrierAccount, bool, error) {
	if c.Mode != accounts.Live {
		return CarrierAccount{}, false, fieldIssue("mode", "carrier accounts are connected in live mode (a live token); test mode always uses the sandbox")
	}
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /carrier-accounts", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[CarrierAccount]) (CarrierAccount, error) {
		d, known := s.cfg.Catalog.Lookup(in.Carrier)
		if !known || !d.Live() {
			return CarrierAccount{}, fieldIssue("carrier", "must be one of "+s.carrierNames())
		}
		in.Carrier = string(d.ID)
		if in.Environment == "" {
			in.Environment = carriers.EnvironmentProduction
		}
		if in.Environment != carriers.EnvironmentProduction && in.Environment != carriers.EnvironmentTest {
			return CarrierAccount{}, fieldIssue("environment", "must be production or test")
		}
		if err := checkCarrierDescription(in.Description); err != nil {
			return CarrierAccount{}, err
		}
		cr, err := checkCredentials(d, in.Environment, in.Credentials)
		if err != nil {
			return CarrierAccount{}, err
		}
		if err := s.proveCredentials(ctx, cr); err != nil {
			return CarrierAccount{}, err
		}
		now := s.now()
		row := store.CarrierAccount{ID: store.NewID("ca"), AccountID: c.AccountID, Mode: string(c.Mode), Carrier: in.Carrier,
			Description: in.Description, Environment: in.Environment, Enabled: true, Version: 1, CreatedAt: now, UpdatedAt: now}
		if err := s.sealCredentials(&row, d, cr); err != nil {
			return CarrierAccount{}, err
		}
		return commit(ctx, func(tx *store.Tx) (CarrierAccount, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return CarrierAccount{}, err
			}
			if err := tx.InsertCarrierAccount(ctx, &row); err != nil {
				return CarrierAccount{}, err
			}
			if err := s.auditCarrierAccount(ctx, tx, c, row, accounts.AuditCarrierAccountCreated); err != nil {
				return CarrierAccount{}, err
			}
			return carrierAccountOf(row), nil
		})
	})
}

// ListCarrierAccounts pages through the caller's carrier accounts, newest first.
func (s *Service) ListCarrierAccounts(ctx context.Context, c accounts.Caller, p paging.Request) ([]CarrierAccount, bool, error) {
	rows, more, err := s.store.ListCarrierAccounts(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]CarrierAccount, len(rows))
	for i, r := range rows {
		out[i] = carrierAccountOf(r)
	}
	return out, more, nil
}

func findCarrierAccount(ctx context.Context, r interface {
	CarrierAccount(ctx context.Context, accountID, id string) (store.CarrierAccount, error)
}, c accounts.Caller, id string) (store.CarrierAccount, error) {
	return accounts.Find(c, func() (store.CarrierAccount, error) { return r.CarrierAccount(ctx, c.AccountID, id) },
		func(a store.CarrierAccount) (string, string) { return a.AccountID, a.Mode })
}

// GetCarrierAccount reads one carrier account.
func (s *Service) GetCarrierAccount(ctx context.Context, c accounts.Caller, id string) (CarrierAccount, error) {
	row, err := findCarrierAccount(ctx, s.store, c, id)
	if err != nil {
		return CarrierAccount{}, err
	}
	return carrierAccountOf(row), nil
}

// UpdateCarrierAccount changes the description, enabled and the
// credentials; new credentials are checked with the carrier before they
// replace the old ones.
func (s *Service) UpdateCarrierAccount(ctx context.Context, c accounts.Caller, id string, p CarrierAccountPatch) (CarrierAccount, error) {
	cur, err := findCarrierAccount(ctx, s.store, c, id)
	if err != nil {
		return CarrierAccount{}, err
	}
	if p.SetDescription {
		if err := checkCarrierDescription(p.Description); err != nil {
			return CarrierAccount{}, err
		}
	}
	var sealed store.CarrierAccount
	if p.Credentials != nil {
		d, ok := s.cfg.Catalog.Lookup(cur.Carrier)
		if !ok {
			return CarrierAccount{}, fieldIssue("credentials", cur.Carrier+" is no longer a carrier of this server")
		}
		cr, err := checkCredentials(d, cur.Environment, *p.Credentials)
		if err != nil {
			return CarrierAccount{}, err
		}
		if err := s.proveCredentials(ctx, cr); err != nil {
			return CarrierAccount{}, err
		}
		if err := s.sealCredentials(&sealed, d, cr); err != nil {
			return CarrierAccount{}, err
		}
	}
	var row store.CarrierAccount
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		var err error
		if row, err = findCarrierAccount(ctx, tx, c, id); err != nil {
			return err
		}
		before := row
		if p.Enabled != nil {
			row.Enabled = *p.Enabled
		}
		if p.SetDescription {
			row.Description = p.Description
		}
		if p.Credentials != nil {
			row.ClientID, row.SecretCiphertext, row.AccountNumber = sealed.ClientID, sealed.SecretCiphertext, sealed.AccountNumber
			row.CRID, row.MID, row.CredentialsCiphertext = sealed.CRID, sealed.MID, sealed.CredentialsCiphertext
			// A new version: clients built from the old credentials (and
			// their tokens) are dropped at their next use.
			row.Version++
		}
		row.UpdatedAt = s.now()
		if err := tx.UpdateCarrierAccount(ctx, &row); err != nil {
			return err
		}
		return s.auditCarrierAccountUpdate(ctx, tx, c, before, row)
	})
	if err != nil {
		return CarrierAccount{}, err
	}
	return carrierAccountOf(row), nil
}

// DeleteCarrierAccount stops a carrier account quoting and buying, and
// removes its rate sheet; the row stays for the labels it bought, which are
// voided and tracked through it.
func (s *Service) DeleteCarrierAccount(ctx context.Context, c accounts.Caller, id string) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		row, err := findCarrierAccount(ctx, tx, c, id)
		if err != nil {
			return err
		}
		if row.RateSheetRows > 0 {
			// Its prices go with it: nothing quotes through it again.
			if err := tx.DeleteCarrierAccountRateSheet(ctx, c.AccountID, id, s.now()); err != nil {
				return err
			}
		}
		if err := tx.DeleteCarrierAccount(ctx, c.AccountID, id, s.now()); err != nil {
			return err
		}
		return s.auditCarrierAccount(ctx, tx, c, row, accounts.AuditCarrierAccountDeleted)
	})
}

// CheckCarrierAccount asks the carrier for a token with the stored
// credentials ("Test connection"): nil, a *CredentialsError or a *CarriersError.
func (s *Service) CheckCarrierAccount(ctx context.Context, c accounts.Caller, id string) error {
	row, err := findCarrierAccount(ctx, s.store, c, id)
	if err != nil {
		return err
	}
	cr, err := s.ship.CredentialsOf(row)
	if err != nil {
		return err
	}
	return s.proveCredentials(ctx, cr)
}

func (s *Service) auditCarrierAccount(ctx context.Context, tx *store.Tx, c accounts.Caller, row store.CarrierAccount, action string) error {
	return s.accounts.Audit(ctx, tx, c, row.AccountID, accounts.Mode(row.Mode), action, row.ID+" "+row.Carrier+" "+row.AccountNumber)
}

// auditCarrierAccountUpdate records a disable or enable, and a change of
// the description or credentials; an update that changed nothing is not recorded.
func (s *Service) auditCarrierAccountUpdate(ctx context.Context, tx *store.Tx, c accounts.Caller, before, after store.CarrierAccount) error {
	if before.Enabled != after.Enabled {
		action := accounts.AuditCarrierAccountDisabled
		if after.Enabled {
			action = accounts.AuditCarrierAccountEnabled
		}
		if err := s.auditCarrierAccount(ctx, tx, c, after, action); err != nil {
			return err
		}
	}
	if before.Version != after.Version || deref(before.Description) != deref(after.Description) || (before.Description == nil) != (after.Description == nil) {
		return s.auditCarrierAccount(ctx, tx, c, after, accounts.AuditCarrierAccountUpdated)
	}
	return nil
}

// sealCredentials writes cr into row: every field sealed as one JSON object,
// the identity and the account shown in clear, and, for the fields of the
// names rows had columns for before (a client secret, a CRID, a MID), those
// columns too, so that an earlier shipd still reads the row.
func (s *Service) sealCredentials(row *store.CarrierAccount, d carriers.Descriptor, cr carriers.Credentials) error {
	all, err := json.Marshal(cr.Fields)
	if err != nil {
		return err
	}
	if row.CredentialsCiphertext, err = s.cfg.Cipher.Encrypt(string(all)); err != nil {
		return err
	}
	if row.SecretCiphertext, err = s.cfg.Cipher.Encrypt(cr.Get("clientSecret")); err != nil {
		return err
	}
	row.ClientID, row.AccountNumber = cr.Get(d.IdentityField), cr.Get(d.AccountField)
	row.CRID, row.MID = cr.Get("crid"), cr.Get("mid")
	return nil
}

// carrierNames lists the carriers one can connect, for messages.
func (s *Service) carrierNames() string {
	var names []string
	for _, d := range s.CarrierAccountCarriers() {
		names = append(names, string(d.ID))
	}
	return strings.Join(names, ", ")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
