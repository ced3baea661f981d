package main

import (
	"flag"
	"net/url"

	"github.com/shipd-dev/shipd/store"
)

// Flags whose values may hold credentials. Their defaults come from the
// environment, and the flag package prints a flag's default in --help and
// in usage errors: these values print masked there, so neither a help page
// pasted into an issue nor a log line shows a password or a secret.

// maskedString is a string flag that shows itself through mask.
type maskedString struct {
	p    *string
	mask func(string) string
}

func (m *maskedString) String() string {
	if m == nil || m.p == nil {
		return ""
	}
	return m.mask(*m.p)
}

func (m *maskedString) Set(v string) error { *m.p = v; return nil }

// secretFlag defines a flag for a secret (a client secret, a key): its
// default, from env, shows as "(set in $ENV)", never its value.
func secretFlag(fs *flag.FlagSet, p *string, name, env, usage string) {
	*p = envOr(env, "")
	fs.Var(&maskedString{p: p, mask: func(v string) string {
		if v == "" {
			return ""
		}
		return "set in $" + env
	}}, name, usage+" ($"+env+")")
}

// urlFlag defines a flag for a URL that may carry a password (a database,
// Redis): it shows with the password masked.
func urlFlag(fs *flag.FlagSet, name, env, fallback, usage string) *string {
	p := new(string)
	*p = envOr(env, fallback)
	fs.Var(&maskedString{p: p, mask: maskURL}, name, usage+" ($"+env+")")
	return p
}

// dbFlag is every command's --db.
func dbFlag(fs *flag.FlagSet) *string {
	return urlFlag(fs, "db", "SHIPD_DB", "shipd.db", "database: a SQLite file or a postgres:// URL")
}

// maskURL masks the password of a URL (postgres://shipd:xxxxx@host/db); a
// SQLite path is shown as it is. A postgres value that does not parse is
// not shown at all: it may be a password with a typo around it.
func maskURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" {
		if store.IsPostgres(v) {
			return "postgres://(unparsable)"
		}
		return v
	}
	return u.Redacted()
}
