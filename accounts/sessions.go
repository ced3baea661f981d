package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/shipd-dev/shipd/store"
)

// Sessions of the settings UI. A session id is 32 random bytes, base64url
// encoded, that exists only in the browser's cookie; the database keeps its
// SHA-256, so a copy of the database signs nobody in. A session ends when
// unused for the idle timeout, at its absolute lifetime, or at sign-out.

// Session defaults.
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultSessionLifetime    = 12 * time.Hour
	// sessionTouchEvery is how stale last_seen_at may get before a request
	// writes it again: a write per page view would hold SQLite's one writer
	// for nothing. The idle timeout is therefore exact to within this.
	sessionTouchEvery = time.Minute
)

// ErrSessionEnded: the session does not exist, or has ended (signed out,
// idle too long, past its lifetime). The UI answers with the sign-in page.
var ErrSessionEnded = errors.New("the session has ended; sign in again")

// sessionIDBytes is the length of a session id before encoding.
const sessionIDBytes = 32

type sessionConfig struct {
	idle, lifetime time.Duration
	passwordCost   int

	// dummyHash is compared against when the email is unknown, so a sign-in
	// takes as long whether or not the email exists.
	dummyOnce sync.Once
	dummyHash []byte
}

func newSessionConfig(cfg Config) *sessionConfig {
	c := &sessionConfig{idle: cfg.SessionIdleTimeout, lifetime: cfg.SessionLifetime, passwordCost: cfg.PasswordCost}
	if c.idle <= 0 {
		c.idle = DefaultSessionIdleTimeout
	}
	if c.lifetime <= 0 {
		c.lifetime = DefaultSessionLifetime
	}
	if c.passwordCost == 0 {
		c.passwordCost = DefaultPasswordCost
	}
	c.passwordCost = min(max(c.passwordCost, bcrypt.MinCost), bcrypt.MaxCost)
	return c
}

// SessionLimits are the idle timeout and the absolute lifetime of sessions.
func (s *Service) SessionLimits() (idle, lifetime time.Duration) {
	return s.sessions.idle, s.sessions.lifetime
}

// SignedIn is a new session: the id for the cookie, and its absolute end.
type SignedIn struct {
	ID        string
	ExpiresAt time.Time
	User      User
}

// SignIn checks an email and password and starts a session in test mode.
// A wrong password and an unknown email are the same ErrBadCredentials, and
// take as long. ErrPasswordChecksBusy: too many passwords were being checked
// to check this one (PasswordChecks).
func (s *Service) SignIn(ctx context.Context, email, password string) (SignedIn, error) {
	u, err := s.store.UserByEmail(ctx, NormalizeEmail(email))
	if errors.Is(err, store.ErrNotFound) {
		s.sessions.dummyOnce.Do(func() {
			s.sessions.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("no user has this password"), s.sessions.passwordCost)
		})
		if err := s.passwords.check(ctx, s.sessions.dummyHash, password); err != nil && !errors.Is(err, ErrBadCredentials) {
			return SignedIn{}, err
		}
		return SignedIn{}, ErrBadCredentials
	}
	if err != nil {
		return SignedIn{}, err
	}
	if err := s.passwords.check(ctx, []byte(u.PasswordHash), password); err != nil {
		return SignedIn{}, err
	}
	raw := make([]byte, sessionIDBytes)
	if _, err := rand.Read(raw); err != nil {
		return SignedIn{}, err
	}
	id := base64.RawURLEncoding.EncodeToString(raw)
	now := s.now()
	sess := store.Session{IDHash: hashSessionID(id), UserID: u.ID, AccountID: u.AccountID, Mode: string(Test),
		CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(s.sessions.lifetime)}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		// Sign-ins are rare: a good moment to drop the sessions that ended.
		if _, err := tx.DeleteEndedSessions(ctx, now, now.Add(-s.sessions.idle)); err != nil {
			return err
		}
		return tx.InsertSession(ctx, sess)
	})
	if err != nil {
		return SignedIn{}, fmt.Errorf("start session: %w", err)
	}
	return SignedIn{ID: id, ExpiresAt: sess.ExpiresAt, User: userOf(u)}, nil
}

// hashSessionID is what the database keeps of a session id.
func hashSessionID(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

// looksLikeSessionID reports whether id has the shape of a session id, so
// that junk in a cookie costs no query.
func looksLikeSessionID(id string) bool {
	raw, err := base64.RawURLEncoding.DecodeString(id)
	return err == nil && len(raw) == sessionIDBytes
}

// ended reports whether a session is over at now.
func (c *sessionConfig) ended(sess store.Session, now time.Time) bool {
	return !now.Before(sess.ExpiresAt) || !now.Before(sess.LastSeenAt.Add(c.idle))
}

// SessionCaller resolves a session id (the cookie's value) to its caller:
// the user, every scope, in the mode the session looks at. The use restarts
// the idle timeout. ErrSessionEnded when there is no such session or it ended.
func (s *Service) SessionCaller(ctx context.Context, id, clientIP string) (Caller, error) {
	if !looksLikeSessionID(id) {
		return Caller{}, ErrSessionEnded
	}
	hash := hashSessionID(id)
	sess, err := s.store.Session(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Caller{}, ErrSessionEnded
	}
	if err != nil {
		return Caller{}, err
	}
	now := s.now()
	if s.sessions.ended(sess, now) {
		if err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteSession(ctx, hash) }); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.WarnContext(ctx, "removing an ended session", slog.Any("error", err))
		}
		return Caller{}, ErrSessionEnded
	}
	u, err := s.store.User(ctx, sess.UserID)
	if err != nil {
		return Caller{}, fmt.Errorf("user of a session: %w", err)
	}
	if now.Sub(sess.LastSeenAt) >= sessionTouchEvery {
		err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.TouchSession(ctx, hash, now) })
		if errors.Is(err, store.ErrNotFound) {
			return Caller{}, ErrSessionEnded // signed out meanwhile
		}
		if err != nil {
			return Caller{}, err
		}
	}
	return Caller{AccountID: sess.AccountID, Mode: Mode(sess.Mode), Scopes: Scopes(),
		UserID: u.ID, UserEmail: u.Email, SessionID: hex.EncodeToString(hash), ClientIP: clientIP}, nil
}

// SwitchMode makes the caller's session look at mode from now on.
func (s *Service) SwitchMode(ctx context.Context, c Caller, mode Mode) error {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return err
	}
	hash, err := hex.DecodeString(c.SessionID)
	if err != nil || c.SessionID == "" {
		return ErrSessionEnded
	}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.recheckSession(ctx, tx, c); err != nil {
			return err
		}
		return tx.SetSessionMode(ctx, hash, string(mode))
	})
	if errors.Is(err, store.ErrNotFound) {
		return ErrSessionEnded
	}
	return err
}

// SignOut ends the session with this id (the cookie's value); ending a
// session that already ended is not an error.
func (s *Service) SignOut(ctx context.Context, id string) error {
	if !looksLikeSessionID(id) {
		return nil
	}
	err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.DeleteSession(ctx, hashSessionID(id)) })
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// recheckSession is Recheck for a user's session: it must still exist, be
// the caller's user's, and not have ended.
func (s *Service) recheckSession(ctx context.Context, tx *store.Tx, c Caller) error {
	hash, err := hex.DecodeString(c.SessionID)
	if err != nil {
		return ErrSessionEnded
	}
	sess, err := tx.Session(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return ErrSessionEnded
	}
	if err != nil {
		return err
	}
	if sess.UserID != c.UserID || sess.AccountID != c.AccountID || s.sessions.ended(sess, s.now()) {
		return ErrSessionEnded
	}
	return nil
}
