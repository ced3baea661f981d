package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/store"
)

// usersCmd manages the people who sign in to the settings UI. The password
// is read from stdin, never from a flag: flags show in the process list.
func usersCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("users: want a subcommand: create or list")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return flag.ErrHelp
	case "create":
		fs := newFlags("users create", stderr)
		db := dbFlag(fs)
		account := fs.String("account", "", "account id (required)")
		email := fs.String("email", "", "the user's email, used to sign in (required)")
		passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of stdin (required)")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *account == "" || strings.TrimSpace(*email) == "" || !*passwordStdin {
			return usageError("users create: --account, --email and --password-stdin are required")
		}
		password, err := readPassword(stdin)
		if err != nil {
			return err
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		u, err := acc.CreateUser(ctx, *account, *email, password)
		switch {
		case errors.Is(err, accounts.ErrNotFound):
			return fmt.Errorf("account %s does not exist", *account)
		case errors.Is(err, accounts.ErrDuplicateEmail):
			return fmt.Errorf("a user with the email %s already exists", accounts.NormalizeEmail(*email))
		case errors.Is(err, accounts.ErrWeakPassword), errors.Is(err, accounts.ErrPasswordTooLong), errors.Is(err, accounts.ErrInvalidEmail):
			return fmt.Errorf("users create: %w", err)
		case err != nil:
			return err
		}
		return printJSON(stdout, map[string]any{"id": u.ID, "accountId": u.AccountID, "email": u.Email})
	case "list":
		fs := newFlags("users list", stderr)
		db := dbFlag(fs)
		account := fs.String("account", "", "only this account's users (default: every account's)")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		st, err := store.Open(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		var us []store.User
		if *account != "" {
			us, err = st.ListUsers(ctx, *account)
		} else {
			us, err = st.AllUsers(ctx)
		}
		if err != nil {
			return err
		}
		// Never the password hash.
		type userView struct {
			ID        string    `json:"id"`
			AccountID string    `json:"accountId"`
			Email     string    `json:"email"`
			CreatedAt time.Time `json:"createdAt"`
		}
		out := make([]userView, len(us))
		for i, u := range us {
			out[i] = userView{u.ID, u.AccountID, u.Email, u.CreatedAt.UTC()}
		}
		return printJSON(stdout, map[string]any{"data": out})
	}
	return usageError(fmt.Sprintf("users: unknown subcommand %q", args[0]))
}

// readPassword reads the first line of r, without its line ending.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password from stdin: %w", err)
	}
	password := strings.TrimRight(line, "\r\n")
	if password == "" {
		return "", usageError("users create: no password on stdin (echo the password | shipd users create ... --password-stdin)")
	}
	return password, nil
}

// demoPassword makes the demo user's password: 26 base32 characters, 128 random bits.
func demoPassword() string { return rand.Text() }
