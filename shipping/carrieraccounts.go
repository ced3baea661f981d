package shipping

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/store"
)

// Carrier accounts: an account's own carrier contracts for live mode. An
// account with enabled carrier accounts quotes and buys through them only;
// a label is voided and tracked through the one that bought it, even after
// it is disabled or deleted.
// Errors of carrier accounts; the API maps each to its code.
var (
	// ErrCarrierCredentialsInvalid: the carrier refused the credentials
	// (422 carrier_credentials_invalid); CredentialsError carries its answer.
	ErrCarrierCredentialsInvalid = errors.New("the carrier refused these credentials")
	// ErrNoCarrierAccounts: live mode of an account without an enabled
	// carrier account, where the operator offers no carriers of its own
	// (422 no_carrier_accounts).
	ErrNoCarrierAccounts = errors.New("this account has no enabled carrier account for live mode, and this server offers no carriers of its own: connect one (POST /carrier-accounts)")
	// ErrCarrierAccountsUnsupported: the server was assembled without a
	// carrier factory (500).
	ErrCarrierAccountsUnsupported = errors.New("this server cannot connect carrier accounts")
)

// CredentialsOf unseals a row's credentials: the sealed object of every
// field, or, for a row written before it, the columns of the fields of
// those names.
func (s *Service) CredentialsOf(row store.CarrierAccount) (carriers.Credentials, error) {
	d, ok := s.cfg.Catalog.Lookup(row.Carrier)
	if !ok {
		return carriers.Credentials{}, fmt.Errorf("carrier account %s: %s: %w", row.ID, row.Carrier, carriers.ErrUnknownCarrier)
	}
	var fields map[string]string
	if row.CredentialsCiphertext != "" {
		all, err := s.cfg.Cipher.Decrypt(row.CredentialsCiphertext)
		if err != nil {
			return carriers.Credentials{}, fmt.Errorf("carrier account %s: unseal the credentials: %w", row.ID, err)
		}
		if err := json.Unmarshal([]byte(all), &fields); err != nil {
			return carriers.Credentials{}, fmt.Errorf("carrier account %s: the sealed credentials are not an object of strings", row.ID)
		}
	} else {
		secret, err := s.cfg.Cipher.Decrypt(row.SecretCiphertext)
		if err != nil {
			return carriers.Credentials{}, fmt.Errorf("carrier account %s: unseal the secret: %w", row.ID, err)
		}
		fields = map[string]string{"clientId": row.ClientID, "clientSecret": secret, "accountNumber": row.AccountNumber,
			"crid": row.CRID, "mid": row.MID}
	}
	return carriers.NewCredentials(d, row.Environment, fields), nil
}

// accountClients caches the live clients of carrier accounts by id, each
// with the credentials version it was built from: a client (and its token
// cache) serves one carrier account only, so one account's 401 or 429
// never touches another's tokens, and new credentials get a new client.
type accountClients struct {
	mu sync.Mutex
	m  map[string]accountClient
}

type accountClient struct {
	version int64
	carrier carriers.Carrier
}

// AccountCarrier is the client of a carrier account row, built at first use.
func (s *Service) AccountCarrier(row store.CarrierAccount) (carriers.Carrier, error) {
	s.clients.mu.Lock()
	defer s.clients.mu.Unlock()
	if ac, ok := s.clients.m[row.ID]; ok && ac.version == row.Version {
		return ac.carrier, nil
	}
	if s.cfg.CarrierAccounts == nil {
		return nil, ErrCarrierAccountsUnsupported
	}
	cr, err := s.CredentialsOf(row)
	if err != nil {
		return nil, err
	}
	c, err := s.cfg.CarrierAccounts(cr)
	if err != nil {
		return nil, fmt.Errorf("carrier account %s: %w", row.ID, err)
	}
	if s.clients.m == nil {
		s.clients.m = map[string]accountClient{}
	}
	s.clients.m[row.ID] = accountClient{version: row.Version, carrier: c}
	return c, nil
}

// quoteCarriers are the carriers a caller quotes and buys with, and for
// each the carrier account it belongs to ("" for the operator's carriers
// and the sandbox): in live mode, the account's enabled carrier accounts
// when it has any; otherwise the mode's carriers, unless the operator
// offers none of its own to tenants (PlatformCarriers off).
func (s *Service) quoteCarriers(ctx context.Context, c accounts.Caller) ([]carriers.Carrier, []string, error) {
	if c.Mode == accounts.Live {
		rows, err := s.store.EnabledCarrierAccounts(ctx, c.AccountID, string(c.Mode))
		if err != nil {
			return nil, nil, err
		}
		if len(rows) > 0 {
			cs, ids := make([]carriers.Carrier, 0, len(rows)), make([]string, 0, len(rows))
			for _, r := range rows {
				client, err := s.AccountCarrier(r)
				if err != nil {
					s.log.ErrorContext(ctx, "carrier account unusable", slog.String("carrier_account_id", r.ID), slog.Any("error", err))
					continue
				}
				cs, ids = append(cs, client), append(ids, r.ID)
			}
			if len(cs) == 0 {
				return nil, nil, fmt.Errorf("no carrier account of %s could be used", c.AccountID)
			}
			return cs, ids, nil
		}
		if s.cfg.NoPlatformCarriers {
			return nil, nil, ErrNoCarrierAccounts
		}
	}
	cs, err := s.cfg.Carriers.For(c.Mode == accounts.Test)
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, nil, ErrCarrierNotConfigured
	}
	if err != nil {
		return nil, nil, err
	}
	return cs, make([]string, len(cs)), nil
}

// CarrierOf is the carrier a stored label is bought, voided and tracked
// through: its carrier account's client, whatever became of that account
// since, or the mode's carrier of its name.
func (s *Service) CarrierOf(ctx context.Context, row store.Shipment) (carriers.Carrier, error) {
	if row.CarrierAccountID != nil && *row.CarrierAccountID != "" {
		ca, err := s.store.CarrierAccountByID(ctx, *row.CarrierAccountID)
		if err != nil {
			return nil, fmt.Errorf("carrier account %s of %s: %w", *row.CarrierAccountID, row.ID, err)
		}
		return s.AccountCarrier(ca)
	}
	return s.cfg.Carriers.Lookup(accounts.Mode(row.Mode) == accounts.Test, row.Carrier)
}

// KeepCarrierAccount keeps the quote's rates of one carrier account (a
// quote's carrierAccountId); none: a NoMatchingServiceError listing them all.
func KeepCarrierAccount(q Quote, id *string) (Quote, error) {
	if id == nil {
		return q, nil
	}
	all := q.Rates
	q.Rates = nil
	for _, r := range all {
		if r.CarrierAccountID == *id {
			q.Rates = append(q.Rates, r)
		}
	}
	if len(q.Rates) == 0 {
		return Quote{}, noMatch(all, Selection{CarrierAccountID: id})
	}
	return q, nil
}

// LiveCarriersFor names what the caller's live mode quotes and buys with:
// its enabled carrier accounts when it has any, else the operator's
// carriers (none when the operator offers them to no tenant).
func (s *Service) LiveCarriersFor(ctx context.Context, c accounts.Caller) ([]string, error) {
	rows, err := s.store.EnabledCarrierAccounts(ctx, c.AccountID, string(accounts.Live))
	if err != nil {
		return nil, err
	}
	if len(rows) > 0 {
		names := make([]string, len(rows))
		for i, r := range rows {
			names[i] = r.Carrier + " (your account " + r.AccountNumber + ")"
		}
		return names, nil
	}
	if s.cfg.NoPlatformCarriers {
		return nil, nil
	}
	return s.LiveCarriers(), nil
}
