package accounts

import (
	"context"
	"time"

	"github.com/shipd-dev/shipd/store"
)

// Storage is what accounts, tokens, users and sessions need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "accounts")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	Account(ctx context.Context, id string) (store.Account, error)
	CountAccounts(ctx context.Context) (int, error)
	ListAudit(ctx context.Context, accountID string, mode string, beforeSeq int64, limit int) ([]store.AuditEntry, bool, error)
	ListTokens(ctx context.Context, accountID string) ([]store.Token, error)
	ListUsers(ctx context.Context, accountID string) ([]store.User, error)
	Session(ctx context.Context, idHash []byte) (store.Session, error)
	TokenByHash(ctx context.Context, hash []byte) (store.Token, error)
	TokensVersion(ctx context.Context) (int64, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
	User(ctx context.Context, id string) (store.User, error)
	UserByEmail(ctx context.Context, email string) (store.User, error)
}

// TxStorage is what accounts, tokens, users and sessions read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	Account(ctx context.Context, id string) (store.Account, error)
	DeleteEndedSessions(ctx context.Context, now time.Time, idleSince time.Time) (int64, error)
	DeleteSession(ctx context.Context, idHash []byte) error
	InsertAccount(ctx context.Context, a store.Account) error
	InsertAudit(ctx context.Context, e *store.AuditEntry) error
	InsertSession(ctx context.Context, s store.Session) error
	InsertToken(ctx context.Context, tok store.Token) error
	InsertUser(ctx context.Context, u store.User) error
	RecordTokenUses(ctx context.Context, uses []store.TokenUse) error
	RevokeToken(ctx context.Context, id string, now time.Time) error
	Session(ctx context.Context, idHash []byte) (store.Session, error)
	SetPaymentMethod(ctx context.Context, id string, has bool) error
	SetAccountCurrency(ctx context.Context, id, currency string) error
	SetSessionMode(ctx context.Context, idHash []byte, mode string) error
	Token(ctx context.Context, id string) (store.Token, error)
	TouchSession(ctx context.Context, idHash []byte, at time.Time) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)
