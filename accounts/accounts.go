// Package accounts owns accounts, API tokens and who a request acts as: token
// minting (the secret exists only in the return value; its SHA-256 is
// stored), verification (the one rule for revoked and expired tokens), the
// scopes, and the batched record of each token's last use.
package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/store"
)

// Mode separates test data (sandbox carriers, no charges) from live data.
type Mode string

// The two modes.
const (
	Test Mode = "test"
	Live Mode = "live"
)

// ParseMode reads "test" or "live".
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case Test, Live:
		return Mode(s), nil
	}
	return "", fmt.Errorf("mode %q: %w", s, ErrInvalidMode)
}

// The scopes a token can hold: read and write per resource; write implies read.
const (
	ReadShipments  = "read:shipments"
	WriteShipments = "write:shipments"
	ReadAddresses  = "read:addresses"
	WriteAddresses = "write:addresses"
	ReadWebhooks   = "read:webhooks"
	WriteWebhooks  = "write:webhooks"
	ReadCarriers   = "read:carriers"
	WriteCarriers  = "write:carriers"
)

// Scopes returns every scope, in a stable order.
func Scopes() []string {
	return []string{ReadShipments, WriteShipments, ReadAddresses, WriteAddresses, ReadWebhooks, WriteWebhooks, ReadCarriers, WriteCarriers}
}

// Errors of this package; the API maps each to its code.
var (
	ErrInvalidMode  = errors.New("mode must be test or live")
	ErrInvalidScope = errors.New("unknown scope")
	ErrNoScopes     = errors.New("a token needs at least one scope")
	ErrExpiryPast   = errors.New("a token's expiry must be in the future")
	// ErrNotFound: no such resource for this caller (another account's
	// resource does not exist for it).
	ErrNotFound = errors.New("not found")
	// ErrWrongMode: the resource belongs to the caller's account in the other mode.
	ErrWrongMode = errors.New("this resource belongs to the other mode")
	// ErrTokenInvalid: the string is not a token, or no token has this secret.
	ErrTokenInvalid = errors.New("the bearer token matches no token")
	ErrTokenRevoked = errors.New("this token was revoked")
	ErrTokenExpired = errors.New("this token has expired")
	// ErrTokenName: a token's name is too long.
	ErrTokenName = errors.New("a token's name has at most 100 characters")
	// ErrInvalidCurrency: not an ISO 4217 code.
	ErrInvalidCurrency = errors.New("a currency is an ISO 4217 code of three letters, such as USD or EUR")
	// ErrCurrencyInUse: the account has shipments or ledger entries in its
	// currency, which therefore cannot change.
	ErrCurrencyInUse = errors.New("the account's currency cannot change: it has shipments or ledger entries in it (create another account for another currency)")
)

// Caller is who a request acts as: one token of one account, or one signed-in
// user's session of the settings UI, in one mode. Domain services take it as
// an explicit parameter and re-check it inside their writes (Recheck).
type Caller struct {
	AccountID string
	Mode      Mode
	TokenID   string
	// TokenPrefix is safe to log.
	TokenPrefix string
	Scopes      []string
	// UserID, UserEmail and SessionID are set for a signed-in user of the
	// settings UI; SessionID is the hex SHA-256 of the session id, never the
	// id itself, so a Caller is safe to log.
	UserID, UserEmail, SessionID string
	// ClientIP is the address the request came from, for the audit log.
	ClientIP string
}

// OperatorActor is the audit log's actor for changes made with the CLI.
const OperatorActor = "operator (CLI)"

// Actor names the caller in the audit log: the user's email, else the token's prefix.
func (c Caller) Actor() string {
	switch {
	case c.UserEmail != "":
		return c.UserEmail
	case c.TokenPrefix != "":
		return c.TokenPrefix
	}
	return OperatorActor
}

// Can reports whether the caller holds scope; write:X implies read:X.
func (c Caller) Can(scope string) bool {
	if slices.Contains(c.Scopes, scope) {
		return true
	}
	if res, ok := strings.CutPrefix(scope, "read:"); ok {
		return slices.Contains(c.Scopes, "write:"+res)
	}
	return false
}

// Reach is the one rule for reaching a resource owned by (account, mode):
// another account's resource does not exist for the caller (ErrNotFound), and
// the other mode's is ErrWrongMode, so that data of the two modes never mixes.
func (c Caller) Reach(account string, mode string) error {
	if account != c.AccountID {
		return ErrNotFound
	}
	if Mode(mode) != c.Mode {
		return ErrWrongMode
	}
	return nil
}

// Find reads a resource for the caller: read looks it up within the
// caller's account (store.ErrNotFound when absent), owner tells its account
// and mode, and Reach decides.
func Find[T any](c Caller, read func() (T, error), owner func(T) (account, mode string)) (T, error) {
	v, err := read()
	if errors.Is(err, store.ErrNotFound) {
		return v, ErrNotFound
	}
	if err != nil {
		return v, err
	}
	return v, c.Reach(owner(v))
}

// Account is an account as the operator sees it.
type Account struct {
	ID               string
	Name             string
	HasPaymentMethod bool
	// Currency (ISO 4217) is that of every price, charge, credit, balance
	// and ledger entry of the account; USD unless chosen at creation.
	Currency  string
	CreatedAt time.Time
}

// NewAccount is what creating an account takes.
type NewAccount struct {
	Name             string
	HasPaymentMethod bool
	// Currency is an ISO 4217 code; "" is USD.
	Currency string
}

// DefaultCurrency is an account's currency unless another is chosen.
const DefaultCurrency = "USD"

// Token is an API token without its secret.
type Token struct {
	ID         string
	AccountID  string
	Mode       Mode
	Prefix     string
	Name       string
	Scopes     []string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	LastUsedAt *time.Time
	LastIP     *string
}

// TokenSecretLength is the number of characters after svc_test_ / svc_live_.
const TokenSecretLength = 64

const secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// Config tunes a Service; zero values get defaults.
type Config struct {
	Now    func() time.Time
	Logger *slog.Logger
	// SessionIdleTimeout ends a session unused this long (default 30 min);
	// SessionLifetime ends any session this long after sign-in (default 12 h).
	SessionIdleTimeout, SessionLifetime time.Duration
	// PasswordCost is the bcrypt cost of new password hashes (default 12).
	PasswordCost int
	// PasswordChecks bounds the bcrypt work of sign-ins.
	PasswordChecks PasswordChecks
}

// Service manages accounts and tokens and authenticates requests.
type Service struct {
	store Storage
	now   func() time.Time
	log   *slog.Logger

	usageMu sync.Mutex
	usage   map[string]store.TokenUse

	tokens tokenCache

	sessions  *sessionConfig
	passwords *passwordChecker
}

// New returns the accounts service over st.
func New(st Storage, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// Times are kept to the microsecond, as PostgreSQL stores them, so an
	// answer shows a time exactly as a later read will.
	return &Service{store: st, now: func() time.Time { return cfg.Now().UTC().Truncate(time.Microsecond) }, log: cfg.Logger, usage: map[string]store.TokenUse{},
		sessions: newSessionConfig(cfg), passwords: newPasswordChecker(cfg.PasswordChecks)}
}

// CreateAccount creates an account.
func (s *Service) CreateAccount(ctx context.Context, name string, hasPaymentMethod bool) (Account, error) {
	return s.CreateAccountWith(ctx, NewAccount{Name: name, HasPaymentMethod: hasPaymentMethod})
}

// CreateAccountWith creates an account as in says.
func (s *Service) CreateAccountWith(ctx context.Context, in NewAccount) (Account, error) {
	currency, err := currencyCode(in.Currency)
	if err != nil {
		return Account{}, err
	}
	a := store.Account{ID: store.NewID("acct"), Name: in.Name, HasPaymentMethod: in.HasPaymentMethod, Currency: currency, CreatedAt: s.now()}
	if err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.InsertAccount(ctx, a) }); err != nil {
		return Account{}, fmt.Errorf("create account: %w", err)
	}
	return accountOf(a), nil
}

// Account reads an account.
func (s *Service) Account(ctx context.Context, id string) (Account, error) {
	a, err := s.store.Account(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Account{}, fmt.Errorf("account %s: %w", id, ErrNotFound)
	}
	return accountOf(a), err
}

// CountAccounts tells whether the database is fresh.
func (s *Service) CountAccounts(ctx context.Context) (int, error) {
	return s.store.CountAccounts(ctx)
}

// SetPaymentMethod records whether the account has a payment method on file.
func (s *Service) SetPaymentMethod(ctx context.Context, id string, has bool) error {
	err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.SetPaymentMethod(ctx, id, has) })
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("account %s: %w", id, ErrNotFound)
	}
	return err
}

// SetCurrency changes an account's currency, while it has neither a
// shipment nor a ledger entry (ErrCurrencyInUse).
func (s *Service) SetCurrency(ctx context.Context, id, currency string) error {
	code, err := currencyCode(currency)
	if err != nil {
		return err
	}
	err = s.store.Tx(ctx, func(tx *store.Tx) error { return tx.SetAccountCurrency(ctx, id, code) })
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("account %s: %w", id, ErrNotFound)
	case errors.Is(err, store.ErrCurrencyInUse):
		return ErrCurrencyInUse
	}
	return err
}

// currencyCode is c as an ISO 4217 code (upper case); "" is DefaultCurrency.
func currencyCode(c string) (string, error) {
	c = strings.ToUpper(strings.TrimSpace(c))
	if c == "" {
		return DefaultCurrency, nil
	}
	if !exchangerates.IsCurrency(c) {
		return "", fmt.Errorf("%q: %w", c, ErrInvalidCurrency)
	}
	return c, nil
}

func accountOf(a store.Account) Account {
	return Account{ID: a.ID, Name: a.Name, HasPaymentMethod: a.HasPaymentMethod, Currency: a.Currency, CreatedAt: a.CreatedAt}
}

// NewToken is what creating a token needs.
type NewToken struct {
	AccountID string
	Mode      Mode
	Scopes    []string
	// ExpiresAt is optional; it must be in the future.
	ExpiresAt *time.Time
	// Name is optional: what the token is for.
	Name string
}

// CreateToken mints a token (operator: the CLI, the first start) and returns
// it with its secret, which exists only in this return value: the database
// keeps its SHA-256.
func (s *Service) CreateToken(ctx context.Context, in NewToken) (Token, string, error) {
	return s.createToken(ctx, Caller{}, in)
}

// createToken mints a token; by is the caller, or the zero Caller for the operator.
func (s *Service) createToken(ctx context.Context, by Caller, in NewToken) (Token, string, error) {
	in.Name = strings.TrimSpace(in.Name)
	if utf8.RuneCountInString(in.Name) > 100 {
		return Token{}, "", ErrTokenName
	}
	mode, err := ParseMode(string(in.Mode))
	if err != nil {
		return Token{}, "", err
	}
	scopes, err := normalizeScopes(in.Scopes)
	if err != nil {
		return Token{}, "", err
	}
	now := s.now()
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		return Token{}, "", ErrExpiryPast
	}
	secret, err := newSecret(mode)
	if err != nil {
		return Token{}, "", err
	}
	t := store.Token{
		ID:         store.NewID("tok"),
		AccountID:  in.AccountID,
		Mode:       string(mode),
		Prefix:     secret[:len("svc_"+string(mode)+"_")+6],
		Name:       in.Name,
		SecretHash: hashSecret(secret),
		Scopes:     strings.Join(scopes, " "),
		CreatedAt:  now,
	}
	if in.ExpiresAt != nil {
		e := in.ExpiresAt.UTC()
		t.ExpiresAt = &e
	}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if by.AccountID != "" { // the operator has no caller to re-check
			if err := s.Recheck(ctx, tx, by); err != nil {
				return err
			}
		}
		if _, err := tx.Account(ctx, in.AccountID); err != nil {
			return err
		}
		if err := tx.InsertToken(ctx, t); err != nil {
			return err
		}
		return s.Audit(ctx, tx, by, t.AccountID, mode, AuditTokenCreated, tokenTarget(t))
	})
	if errors.Is(err, store.ErrNotFound) {
		return Token{}, "", fmt.Errorf("account %s: %w", in.AccountID, ErrNotFound)
	}
	if err != nil {
		return Token{}, "", fmt.Errorf("create token: %w", err)
	}
	return tokenOf(t), secret, nil
}

func normalizeScopes(in []string) ([]string, error) {
	var out []string
	for _, sc := range in {
		sc = strings.TrimSpace(sc)
		if sc == "" {
			continue
		}
		if !slices.Contains(Scopes(), sc) {
			return nil, fmt.Errorf("%q: %w (known: %s)", sc, ErrInvalidScope, strings.Join(Scopes(), ", "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, ErrNoScopes
	}
	return out, nil
}

func newSecret(mode Mode) (string, error) {
	var b strings.Builder
	b.WriteString("svc_" + string(mode) + "_")
	limit := big.NewInt(int64(len(secretAlphabet)))
	for range TokenSecretLength {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return "", err
		}
		b.WriteByte(secretAlphabet[n.Int64()])
	}
	return b.String(), nil
}

func hashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// RevokeToken revokes a token (operator command); it is refused from then
// on by every instance, requests in flight included.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	return s.revokeToken(ctx, Caller{}, id)
}

// revokeToken revokes a token for by (the zero Caller: the operator) and
// records it in the audit log; revoking a revoked token changes nothing.
func (s *Service) revokeToken(ctx context.Context, by Caller, id string) error {
	err := s.store.Tx(ctx, func(tx *store.Tx) error {
		operator := by.AccountID == ""
		if !operator {
			if err := s.Recheck(ctx, tx, by); err != nil {
				return err
			}
		}
		t, err := tx.Token(ctx, id)
		if err != nil {
			return err
		}
		if !operator {
			if err := by.Reach(t.AccountID, t.Mode); err != nil {
				return err
			}
		}
		if t.RevokedAt != nil {
			return nil
		}
		if err := tx.RevokeToken(ctx, id, s.now()); err != nil {
			return err
		}
		return s.Audit(ctx, tx, by, t.AccountID, Mode(t.Mode), AuditTokenRevoked, tokenTarget(t))
	})
	if err == nil {
		s.tokens.dropAll() // this process knows at once, whatever the store's version says
	}
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, ErrNotFound) {
		return fmt.Errorf("token %s: %w", id, ErrNotFound)
	}
	return err
}

// ListTokens lists an account's tokens, newest first.
func (s *Service) ListTokens(ctx context.Context, accountID string) ([]Token, error) {
	ts, err := s.store.ListTokens(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]Token, len(ts))
	for i, t := range ts {
		out[i] = tokenOf(t)
	}
	return out, nil
}

func tokenOf(t store.Token) Token {
	return Token{
		ID: t.ID, AccountID: t.AccountID, Mode: Mode(t.Mode), Prefix: t.Prefix, Name: t.Name, Scopes: strings.Fields(t.Scopes),
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt, LastUsedAt: t.LastUsedAt, LastIP: t.LastIP,
	}
}

// usable is the one rule for a token that exists: revoked or expired tokens act for nobody.
func usable(t store.Token, now time.Time) error {
	if t.RevokedAt != nil {
		return ErrTokenRevoked
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return ErrTokenExpired
	}
	return nil
}

// LooksLikeToken reports whether s has the shape of a token secret (svc_test_
// or svc_live_ and 64 characters); the mode is named by the prefix alone.
func LooksLikeToken(s string) bool {
	for _, mode := range []Mode{Test, Live} {
		rest, ok := strings.CutPrefix(s, "svc_"+string(mode)+"_")
		if ok && len(rest) == TokenSecretLength {
			return true
		}
	}
	return false
}

// Authenticate resolves a token secret to its caller and records the use
// (time and client address) for the next batch write.
func (s *Service) Authenticate(ctx context.Context, secret, clientIP string) (Caller, error) {
	if !LooksLikeToken(secret) {
		return Caller{}, ErrTokenInvalid
	}
	t, err := s.tokenByHash(ctx, hashSecret(secret))
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, ErrTokenInvalid
	}
	if err != nil {
		return Caller{}, err
	}
	now := s.now()
	if err := usable(t, now); err != nil {
		return Caller{}, err
	}
	s.usageMu.Lock()
	s.usage[t.ID] = store.TokenUse{TokenID: t.ID, At: now, IP: clientIP}
	s.usageMu.Unlock()
	return Caller{AccountID: t.AccountID, Mode: Mode(t.Mode), TokenID: t.ID, TokenPrefix: t.Prefix, Scopes: strings.Fields(t.Scopes), ClientIP: clientIP}, nil
}

// Recheck re-reads the caller's token, or its session, inside a write
// transaction, so that a write whose token was revoked (or expired), or whose
// user signed out (or whose session ended), while the request was in flight
// commits nothing. Every domain write made for a caller starts with it.
func (s *Service) Recheck(ctx context.Context, tx *store.Tx, c Caller) error {
	if c.SessionID != "" {
		return s.recheckSession(ctx, tx, c)
	}
	t, err := tx.Token(ctx, c.TokenID)
	if errors.Is(err, store.ErrNotFound) {
		return ErrTokenInvalid
	}
	if err != nil {
		return err
	}
	return usable(t, s.now())
}

// FlushUsage writes the last uses recorded since the previous flush in one
// transaction; it runs on a ticker and at shutdown, so a request never waits
// on a write to record its use.
func (s *Service) FlushUsage(ctx context.Context) {
	s.usageMu.Lock()
	uses := make([]store.TokenUse, 0, len(s.usage))
	for _, u := range s.usage {
		uses = append(uses, u)
	}
	clear(s.usage)
	s.usageMu.Unlock()
	if len(uses) == 0 {
		return
	}
	if err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.RecordTokenUses(ctx, uses) }); err != nil {
		s.log.WarnContext(ctx, "recording token use", slog.Any("error", err))
	}
}
