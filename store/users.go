package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrDuplicateEmail is returned when another user already has the email.
var ErrDuplicateEmail = errors.New("a user with this email exists")

// User is a person who signs in to the settings UI of one account. Only a
// hash of the password is stored.
type User struct {
	ID           string    `db:"id"`
	AccountID    string    `db:"account_id"`
	Email        string    `db:"email"` // lower-cased by the caller
	PasswordHash string    `db:"password_hash"`
	CreatedAt    time.Time `db:"created_at"`
}

const userColumns = `id, account_id, email, password_hash, created_at`

// InsertUser stores a user; the account must exist, and the email must be
// nobody else's (ErrDuplicateEmail).
func (t *Tx) InsertUser(ctx context.Context, u User) error {
	u.CreatedAt = u.CreatedAt.UTC()
	_, err := t.tx.NamedExecContext(ctx, `INSERT INTO users (id, account_id, email, password_hash, created_at)
		VALUES (:id, :account_id, :email, :password_hash, :created_at)`, u)
	if isUniqueViolationOf(err, "users_email", "users.email") {
		return ErrDuplicateEmail
	}
	if err != nil {
		return fmt.Errorf("insert user: %w", err)
	}
	return nil
}

// User reads a user by id.
func (r reader) User(ctx context.Context, id string) (User, error) {
	var u User
	err := r.get(ctx, &u, `SELECT `+userColumns+` FROM users WHERE id = ?`, id)
	return u, err
}

// UserByEmail reads the user with this (lower-cased) email.
func (r reader) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := r.get(ctx, &u, `SELECT `+userColumns+` FROM users WHERE email = ?`, email)
	return u, err
}

// ListUsers lists an account's users, oldest first.
func (r reader) ListUsers(ctx context.Context, accountID string) ([]User, error) {
	var us []User
	err := r.sel(ctx, &us, `SELECT `+userColumns+` FROM users WHERE account_id = ? ORDER BY created_at, id`, accountID)
	return us, err
}

// AllUsers lists the users of every account, oldest first.
func (r reader) AllUsers(ctx context.Context) ([]User, error) {
	var us []User
	err := r.sel(ctx, &us, `SELECT `+userColumns+` FROM users ORDER BY created_at, id`)
	return us, err
}
