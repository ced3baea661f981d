package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/store"
)

// openAccounts opens the database and the accounts service over it.
func openAccounts(ctx context.Context, path string) (*accounts.Service, func() error, error) {
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	return accounts.New(st, accounts.Config{}), st.Close, nil
}

// migrate applies shipd's and River's migrations and exits; serve also
// migrates at start (instances starting together take turns).
func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("migrate", stderr)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	st, err := store.Open(ctx, *db)
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"migrated": true})
}

func accountsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("accounts: want a subcommand: create, update or list")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return flag.ErrHelp
	case "create":
		fs := newFlags("accounts create", stderr)
		db := dbFlag(fs)
		name := fs.String("name", "", "account name (required)")
		pm := fs.Bool("payment-method", true, "the account has a payment method on file")
		currency := fs.String("currency", accounts.DefaultCurrency, "the ISO 4217 currency of every price, charge and balance of the account (EUR, GBP…); it cannot change once the account has shipments")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if strings.TrimSpace(*name) == "" {
			return usageError("accounts create: --name is required")
		}
		if !exchangerates.IsCurrency(strings.ToUpper(strings.TrimSpace(*currency))) {
			return usageError(fmt.Sprintf("accounts create: --currency %q is not an ISO 4217 currency code such as USD or EUR", *currency))
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		a, err := acc.CreateAccountWith(ctx, accounts.NewAccount{Name: *name, HasPaymentMethod: *pm, Currency: *currency})
		if err != nil {
			return err
		}
		return printJSON(stdout, map[string]any{"id": a.ID, "name": a.Name, "paymentMethod": a.HasPaymentMethod, "currency": a.Currency})
	case "update":
		fs := newFlags("accounts update", stderr)
		db := dbFlag(fs)
		id := fs.String("account", "", "account id (required)")
		pm := fs.String("payment-method", "", "true or false")
		currency := fs.String("currency", "", "a new ISO 4217 currency, refused once the account has shipments or ledger entries")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *id == "" || (*pm != "" && *pm != "true" && *pm != "false") || (*pm == "" && *currency == "") {
			return usageError("accounts update: --account and --payment-method=true|false or --currency CODE are required")
		}
		if *currency != "" && !exchangerates.IsCurrency(strings.ToUpper(strings.TrimSpace(*currency))) {
			return usageError(fmt.Sprintf("accounts update: --currency %q is not an ISO 4217 currency code such as USD or EUR", *currency))
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		notFound := func(err error) error {
			if errors.Is(err, accounts.ErrNotFound) {
				return fmt.Errorf("account %s does not exist", *id)
			}
			return err
		}
		out := map[string]any{"id": *id}
		if *currency != "" {
			if err := acc.SetCurrency(ctx, *id, *currency); err != nil {
				return notFound(err)
			}
			out["currency"] = strings.ToUpper(strings.TrimSpace(*currency))
		}
		if *pm != "" {
			if err := acc.SetPaymentMethod(ctx, *id, *pm == "true"); err != nil {
				return notFound(err)
			}
			out["paymentMethod"] = *pm == "true"
		}
		return printJSON(stdout, out)
	case "list":
		fs := newFlags("accounts list", stderr)
		db := dbFlag(fs)
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		st, err := store.Open(ctx, *db)
		if err != nil {
			return err
		}
		defer st.Close()
		as, err := st.ListAccounts(ctx)
		if err != nil {
			return err
		}
		type accountView struct {
			ID            string    `json:"id"`
			Name          string    `json:"name"`
			PaymentMethod bool      `json:"paymentMethod"`
			Currency      string    `json:"currency"`
			CreatedAt     time.Time `json:"createdAt"`
			Tokens        int       `json:"tokens"` // not revoked, expired or not
		}
		out := make([]accountView, len(as))
		for i, a := range as {
			out[i] = accountView{a.ID, a.Name, a.HasPaymentMethod, a.Currency, a.CreatedAt.UTC(), a.Tokens}
		}
		return printJSON(stdout, map[string]any{"data": out})
	}
	return usageError(fmt.Sprintf("accounts: unknown subcommand %q", args[0]))
}

func tokensCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("tokens: want a subcommand: create, revoke or list")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return flag.ErrHelp
	case "create":
		fs := newFlags("tokens create", stderr)
		db := dbFlag(fs)
		account := fs.String("account", "", "account id (required)")
		mode := fs.String("mode", "", "test or live (required)")
		scopes := fs.String("scopes", "", "comma-separated scopes (required), from: "+strings.Join(accounts.Scopes(), ","))
		expiresIn := fs.Duration("expires-in", 0, "lifetime, e.g. 720h (default: never expires)")
		name := fs.String("name", "", "what the token is for, shown in the settings UI (optional)")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *account == "" {
			return usageError("tokens create: --account is required")
		}
		if *mode != "test" && *mode != "live" {
			return usageError("tokens create: --mode must be test or live")
		}
		list, err := parseScopes(*scopes)
		if err != nil {
			return err
		}
		// 0s is not "never": a lifetime given must be one. Leaving the flag
		// out is how a token that never expires is made.
		if given(fs, "expires-in") && *expiresIn <= 0 {
			return usageError("tokens create: --expires-in must be positive (leave it out for a token that never expires)")
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		var expires *time.Time
		if *expiresIn > 0 {
			e := time.Now().Add(*expiresIn)
			expires = &e
		}
		t, secret, err := acc.CreateToken(ctx, accounts.NewToken{AccountID: *account, Mode: accounts.Mode(*mode), Scopes: list, ExpiresAt: expires, Name: *name})
		if errors.Is(err, accounts.ErrNotFound) {
			return fmt.Errorf("account %s does not exist", *account)
		}
		if err != nil {
			return err
		}
		out := map[string]any{"id": t.ID, "token": secret, "mode": t.Mode, "scopes": t.Scopes, "prefix": t.Prefix}
		if t.Name != "" {
			out["name"] = t.Name
		}
		if t.ExpiresAt != nil {
			out["expiresAt"] = t.ExpiresAt
		}
		return printJSON(stdout, out)
	case "revoke":
		fs := newFlags("tokens revoke", stderr)
		db := dbFlag(fs)
		id := fs.String("id", "", "token id (required)")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *id == "" {
			return usageError("tokens revoke: --id is required")
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		if err := acc.RevokeToken(ctx, *id); err != nil {
			if errors.Is(err, accounts.ErrNotFound) {
				return fmt.Errorf("token %s does not exist", *id)
			}
			return err
		}
		return printJSON(stdout, map[string]any{"id": *id, "revoked": true})
	case "list":
		fs := newFlags("tokens list", stderr)
		db := dbFlag(fs)
		account := fs.String("account", "", "account id (required)")
		if err := parse(fs, args[1:]); err != nil {
			return err
		}
		if *account == "" {
			return usageError("tokens list: --account is required")
		}
		acc, closeDB, err := openAccounts(ctx, *db)
		if err != nil {
			return err
		}
		defer closeDB()
		ts, err := acc.ListTokens(ctx, *account)
		if err != nil {
			return err
		}
		type tokenView struct {
			ID         string        `json:"id"`
			Name       string        `json:"name,omitempty"`
			Prefix     string        `json:"prefix"`
			Mode       accounts.Mode `json:"mode"`
			Scopes     []string      `json:"scopes"`
			CreatedAt  time.Time     `json:"createdAt"`
			ExpiresAt  *time.Time    `json:"expiresAt,omitempty"`
			RevokedAt  *time.Time    `json:"revokedAt,omitempty"`
			LastUsedAt *time.Time    `json:"lastUsedAt,omitempty"`
			LastIP     *string       `json:"lastIp,omitempty"`
		}
		out := make([]tokenView, len(ts))
		for i, t := range ts {
			out[i] = tokenView{t.ID, t.Name, t.Prefix, t.Mode, t.Scopes, t.CreatedAt, t.ExpiresAt, t.RevokedAt, t.LastUsedAt, t.LastIP}
		}
		return printJSON(stdout, map[string]any{"data": out})
	}
	return usageError(fmt.Sprintf("tokens: unknown subcommand %q", args[0]))
}

func parseScopes(s string) ([]string, error) {
	var out []string
	for sc := range strings.SplitSeq(s, ",") {
		sc = strings.TrimSpace(sc)
		if sc == "" {
			continue
		}
		if !slices.Contains(accounts.Scopes(), sc) {
			return nil, usageError(fmt.Sprintf("unknown scope %q; known: %s", sc, strings.Join(accounts.Scopes(), ",")))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, usageError("--scopes is required")
	}
	return out, nil
}

// given reports whether the command line set flag name, even to its default.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
