package accounts

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/shipd-dev/shipd/store"
)

// The people of an account who sign in to the settings UI, and the audit
// log of what they (and API tokens) changed.

// Password rules: long enough to resist guessing, short enough for bcrypt,
// which reads only the first 72 bytes.
const (
	MinPasswordLength = 12
	maxPasswordBytes  = 72
	// DefaultPasswordCost is the bcrypt cost of new password hashes.
	DefaultPasswordCost = 12
)

// Errors of users; the CLI and the UI say each in words.
var (
	ErrWeakPassword      = fmt.Errorf("a password needs at least %d characters", MinPasswordLength)
	ErrPasswordTooLong   = fmt.Errorf("a password may have at most %d bytes", maxPasswordBytes)
	ErrInvalidEmail      = errors.New("the email address is not valid")
	ErrDuplicateEmail    = errors.New("a user with this email already exists")
	ErrBadCredentials    = errors.New("the email or password is wrong")
	errHashingImpossible = errors.New("password hashing failed")
)

// User is a person who signs in to the settings UI of one account.
type User struct {
	ID        string
	AccountID string
	Email     string
	CreatedAt time.Time
}

// NormalizeEmail is the form an email is stored and looked up in: trimmed and
// lower-cased, so Ada@Example.com and ada@example.com are one user.
func NormalizeEmail(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}

// checkEmail accepts a plain address: one @, something on each side, no
// spaces or control characters, at most 254 bytes.
func checkEmail(email string) error {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || len(email) > 254 {
		return ErrInvalidEmail
	}
	for _, r := range email {
		if r <= ' ' || r == 0x7f {
			return ErrInvalidEmail
		}
	}
	return nil
}

// checkPassword is the one password rule.
func checkPassword(password string) error {
	if utf8.RuneCountInString(password) < MinPasswordLength {
		return ErrWeakPassword
	}
	if len(password) > maxPasswordBytes {
		return ErrPasswordTooLong
	}
	return nil
}

// CreateUser adds a user to an account; the password is kept as a bcrypt hash.
func (s *Service) CreateUser(ctx context.Context, accountID, email, password string) (User, error) {
	email = NormalizeEmail(email)
	if err := checkEmail(email); err != nil {
		return User{}, err
	}
	if err := checkPassword(password); err != nil {
		return User{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.sessions.passwordCost)
	if err != nil {
		return User{}, fmt.Errorf("%w: %w", errHashingImpossible, err)
	}
	u := store.User{ID: store.NewID("usr"), AccountID: accountID, Email: email, PasswordHash: string(hash), CreatedAt: s.now()}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if _, err := tx.Account(ctx, accountID); err != nil {
			return err
		}
		return tx.InsertUser(ctx, u)
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return User{}, fmt.Errorf("account %s: %w", accountID, ErrNotFound)
	case errors.Is(err, store.ErrDuplicateEmail):
		return User{}, fmt.Errorf("%s: %w", email, ErrDuplicateEmail)
	case err != nil:
		return User{}, fmt.Errorf("create user: %w", err)
	}
	return userOf(u), nil
}

// Users lists the caller's account's users, oldest first.
func (s *Service) Users(ctx context.Context, c Caller) ([]User, error) {
	rows, err := s.store.ListUsers(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	out := make([]User, len(rows))
	for i, u := range rows {
		out[i] = userOf(u)
	}
	return out, nil
}

func userOf(u store.User) User {
	return User{ID: u.ID, AccountID: u.AccountID, Email: u.Email, CreatedAt: u.CreatedAt}
}

// The token operations of a signed-in user (accounts.go holds the rules).

// CreateTokenAs mints a token of the caller's account for a caller (a
// signed-in user), re-checked in the transaction and recorded in the audit log.
func (s *Service) CreateTokenAs(ctx context.Context, c Caller, in NewToken) (Token, string, error) {
	in.AccountID = c.AccountID
	return s.createToken(ctx, c, in)
}

// RevokeTokenAs revokes one of the caller's tokens: another account's token
// does not exist for it (ErrNotFound), the other mode's is ErrWrongMode.
func (s *Service) RevokeTokenAs(ctx context.Context, c Caller, id string) error {
	return s.revokeToken(ctx, c, id)
}

// tokenTarget names a token in the audit log: id, prefix and name.
func tokenTarget(t store.Token) string {
	target := t.ID + " " + t.Prefix
	if t.Name != "" {
		target += " " + strconv.Quote(t.Name)
	}
	return target
}

// Tokens lists the caller's tokens in the caller's mode, newest first.
func (s *Service) Tokens(ctx context.Context, c Caller) ([]Token, error) {
	all, err := s.ListTokens(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, t := range all {
		if t.Mode == c.Mode {
			out = append(out, t)
		}
	}
	return out, nil
}

// AuditEntry is one recorded change: who, what, to which object, when, from where.
type AuditEntry struct {
	Seq       int64
	Mode      Mode
	Actor     string
	Action    string
	Target    string
	IP        string
	CreatedAt time.Time
}

// Audit actions.
const (
	AuditTokenCreated   = "token.created"
	AuditTokenRevoked   = "token.revoked"
	AuditWebhookCreated = "webhook.created"
	AuditWebhookUpdated = "webhook.updated"
	AuditWebhookPaused  = "webhook.paused"
	AuditWebhookResumed = "webhook.resumed"
	AuditWebhookDeleted = "webhook.deleted"
	// A carrier account's changes: enabled and disabled apart from the
	// other changes (description, credentials), as webhooks' pause and resume.
	AuditCarrierAccountCreated  = "carrier_account.created"
	AuditCarrierAccountUpdated  = "carrier_account.updated"
	AuditCarrierAccountDisabled = "carrier_account.disabled"
	AuditCarrierAccountEnabled  = "carrier_account.enabled"
	AuditCarrierAccountDeleted  = "carrier_account.deleted"
	// A carrier account's own rate sheet set (or replaced) and removed.
	AuditCarrierAccountRateSheetSet     = "carrier_account.rate_sheet_set"
	AuditCarrierAccountRateSheetRemoved = "carrier_account.rate_sheet_removed"
)

// Audit records a change made by c (the zero Caller: the operator) to an
// object of account in mode, in the transaction that makes the change, so
// the log holds exactly the changes that happened.
func (s *Service) Audit(ctx context.Context, tx *store.Tx, c Caller, account string, mode Mode, action, target string) error {
	e := store.AuditEntry{AccountID: account, Mode: string(mode), Actor: c.Actor(), Action: action,
		Target: truncate(target, 300), IP: c.ClientIP, CreatedAt: s.now()}
	if err := tx.InsertAudit(ctx, &e); err != nil {
		return fmt.Errorf("audit %s: %w", action, err)
	}
	return nil
}

// AuditLog pages through the caller's audit log in the caller's mode, newest
// first: up to limit entries older than the entry before (0: the newest).
func (s *Service) AuditLog(ctx context.Context, c Caller, before int64, limit int) ([]AuditEntry, bool, error) {
	rows, more, err := s.store.ListAudit(ctx, c.AccountID, string(c.Mode), before, limit)
	if err != nil {
		return nil, false, err
	}
	out := make([]AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = AuditEntry{Seq: r.Seq, Mode: Mode(r.Mode), Actor: r.Actor, Action: r.Action, Target: r.Target, IP: r.IP, CreatedAt: r.CreatedAt}
	}
	return out, more, nil
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
