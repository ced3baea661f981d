package addresses

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// ErrVerifierNotConfigured: the mode has no address verifier (500, retrying does not help).
var ErrVerifierNotConfigured = errors.New("no address verifier is configured for live mode; ask the operator to configure one (retrying does not help)")

// SavedAddress is an address book entry.
type SavedAddress struct {
	ID        string           `json:"id"`
	Mode      accounts.Mode    `json:"mode"`
	CreatedAt time.Time        `json:"createdAt"`
	Address   shipping.Address `json:"address"`
}

// NewAddress is what saving an address takes.
type NewAddress struct {
	shipping.Address
	IdempotencyKey string `json:"-"`
	// RequestFingerprint is the hash of the request as sent, when the caller has one.
	RequestFingerprint []byte `json:"-"`
}

// SaveAddress stores an address in the caller's address book.
func (s *Service) SaveAddress(ctx context.Context, c accounts.Caller, in NewAddress) (SavedAddress, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /addresses", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[SavedAddress]) (SavedAddress, error) {
		if issues := shipping.AddressIssues(c.Mode, "", in.Address, true); len(issues) > 0 {
			return SavedAddress{}, &shipping.InputError{Issues: issues}
		}
		a := in.Address.Normalized()
		row := store.Address{
			ID: store.NewID("adr"), AccountID: c.AccountID, Mode: string(c.Mode), CreatedAt: s.now(),
			Name: deref(a.Name), Company: deref(a.Company), Street1: a.Street1, Street2: deref(a.Street2),
			City: a.City, State: deref(a.State), Zip: a.Zip, Country: strings.ToUpper(a.Country),
			Phone: deref(a.Phone), Email: deref(a.Email), Residential: a.Residential,
		}
		return commit(ctx, func(tx *store.Tx) (SavedAddress, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return SavedAddress{}, err
			}
			if err := tx.InsertAddress(ctx, &row); err != nil {
				return SavedAddress{}, err
			}
			return savedAddressOf(row), nil
		})
	})
}

// Addresses pages through the caller's address book, newest first.
func (s *Service) Addresses(ctx context.Context, c accounts.Caller, p paging.Request) ([]SavedAddress, bool, error) {
	rows, more, err := s.store.ListAddresses(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]SavedAddress, len(rows))
	for i, r := range rows {
		out[i] = savedAddressOf(r)
	}
	return out, more, nil
}

func savedAddressOf(r store.Address) SavedAddress {
	return SavedAddress{ID: r.ID, Mode: accounts.Mode(r.Mode), CreatedAt: r.CreatedAt, Address: shipping.Address{
		Name: optional(r.Name), Company: optional(r.Company), Street1: r.Street1, Street2: optional(r.Street2),
		City: r.City, State: optional(r.State), Zip: r.Zip, Country: r.Country,
		Phone: optional(r.Phone), Email: optional(r.Email), Residential: r.Residential,
	}}
}

// VerifyAddress checks deliverability and standardises an address with the
// mode's verifier; nothing is stored. Verifier failures wrap
// verifier.ErrUnavailable or verifier.ErrFailed.
func (s *Service) VerifyAddress(ctx context.Context, c accounts.Caller, a shipping.Address) (verifier.Result, error) {
	// Only the state's presence: correcting the rest (a state's name to its
	// code, a ZIP code's form) is the verifier's job.
	if issues := shipping.StateRequired("", a); len(issues) > 0 {
		return verifier.Result{}, &shipping.InputError{Issues: issues}
	}
	v := s.cfg.LiveVerifier
	if c.Mode == accounts.Test {
		v = s.cfg.TestVerifier
	}
	if v == nil {
		return verifier.Result{}, ErrVerifierNotConfigured
	}
	return v.Verify(ctx, verifier.Address{
		Name: deref(a.Name), Company: deref(a.Company), Street1: a.Street1, Street2: deref(a.Street2),
		City: a.City, State: deref(a.State), Zip: a.Zip, Country: a.Country,
		Phone: deref(a.Phone), Email: deref(a.Email), Residential: a.Residential,
	})
}
