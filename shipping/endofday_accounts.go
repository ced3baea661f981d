package shipping

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// Manifests and pickups go through carrier accounts as labels do: a form
// lists labels the carrier sold to one customer, so it is made with the
// credentials that bought them, and a pickup is booked (and cancelled) on the
// account that pays for it. A nil carrier account is the operator's carriers
// (and, in test mode, the sandbox).

// AskedCarrierAccount checks a carrierAccountId given with a manifest or a
// pickup: a carrier account of the caller's, of that carrier, in live mode.
// enabledOnly refuses a disabled one (a pickup books with it; a manifest
// only names the labels it bought).
func (s *Service) AskedCarrierAccount(ctx context.Context, c accounts.Caller, carrier string, id *string, enabledOnly bool) (*store.CarrierAccount, error) {
	if id == nil {
		return nil, nil
	}
	if c.Mode == accounts.Test {
		return nil, &InputError{Issues: []Issue{{Path: "carrierAccountId", Message: "is for live mode: test mode uses the sandbox carriers, never a carrier account"}}}
	}
	row, err := s.store.CarrierAccount(ctx, c.AccountID, *id)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && row.Mode != string(c.Mode):
		return nil, &InputError{Issues: []Issue{{Path: "carrierAccountId", Message: "is not a carrier account of this account: " + *id}}}
	case err != nil:
		return nil, err
	case !strings.EqualFold(row.Carrier, carrier):
		return nil, &InputError{Issues: []Issue{{Path: "carrierAccountId", Message: fmt.Sprintf("is a %s carrier account, not %s: %s", row.Carrier, carrier, *id)}}}
	case enabledOnly && !row.Enabled:
		return nil, &InputError{Issues: []Issue{{Path: "carrierAccountId", Message: "is disabled: enable it first (PATCH /carrier-accounts/" + *id + ")"}}}
	}
	return &row, nil
}

// CarrierThrough is the client of a manifest's or pickup's carrier: the
// carrier account's, whatever became of that account since, or the mode's
// carrier of that name.
func (s *Service) CarrierThrough(ctx context.Context, mode accounts.Mode, name string, carrierAccountID *string) (carriers.Carrier, error) {
	if carrierAccountID == nil || *carrierAccountID == "" {
		return s.cfg.Carriers.Lookup(mode == accounts.Test, name)
	}
	ca, err := s.store.CarrierAccountByID(ctx, *carrierAccountID)
	if err != nil {
		return nil, fmt.Errorf("carrier account %s: %w", *carrierAccountID, err)
	}
	return s.AccountCarrier(ca)
}

// CarrierNotServed reports whether a live lookup found no carrier of the server's
// own by that name (none configured, or not that one), when a carrier
// account may still reach it.
func CarrierNotServed(err error) bool {
	return errors.Is(err, carriers.ErrNotConfigured) || errors.Is(err, carriers.ErrUnknownCarrier)
}

// CarrierAccountsText names the carrier accounts of a choice the caller has
// to make: their ids, "" being the operator's carriers.
func CarrierAccountsText(ids []string) string {
	shown := make([]string, len(ids))
	for i, id := range ids {
		shown[i] = id
		if id == "" {
			shown[i] = "the server's own carrier"
		}
	}
	return strings.Join(shown, ", ")
}
