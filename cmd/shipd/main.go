// Command shipd runs the shipd API server and manages its accounts and tokens.
//
//	shipd serve    [--addr HOST:PORT] [--db PATH|URL]
//	shipd migrate  --db PATH|URL
//	shipd accounts create|update|list ...
//	shipd tokens   create|revoke|list ...
//	shipd users    create|list ...
//	shipd backup   --db PATH --to FILE
//	shipd healthcheck [--addr HOST:PORT]
//	shipd version  [--json]
//
// Every command but serve prints JSON on stdout; errors go to stderr with a non-zero exit.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// defaultGCPercent is the collector's target heap growth unless GOGC says
// otherwise. shipd keeps a small live heap and allocates fast (requests,
// JSON, rows), so at Go's 100 the collector ran often: at 200 a burst of
// creates with their purchases ran 6-12% faster (make bench, write phase),
// and make bench's peak RSS went from 111 to 130-139 MiB. GOMEMLIMIT bounds
// the heap as usual.
const defaultGCPercent = 200

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `shipd: a self-hostable shipping API.

Usage:
  shipd serve    [--addr HOST:PORT] [--db PATH|URL]    run the API server
  shipd migrate  [--db PATH|URL]                       apply the database migrations and exit
  shipd accounts create --name NAME [--payment-method=false] [--currency EUR]
  shipd accounts update --account ID [--payment-method=true|false] [--currency EUR]
  shipd accounts list                                    every account, with its number of tokens not revoked
  shipd tokens   create --account ID --mode test|live --scopes S1,S2 [--name NAME] [--expires-in 720h]
  shipd tokens   revoke --id ID
  shipd tokens   list   --account ID
  shipd users    create --account ID --email EMAIL --password-stdin   a user of the settings UI (/settings/)
  shipd users    list   [--account ID]                  the users (never their passwords)
  shipd backup   --db PATH --to FILE                   a consistent copy of a live SQLite database
  shipd healthcheck [--addr HOST:PORT]                 exit 0 when the server's /readyz answers 200
  shipd version  [--json]                              version, commit, build date and Go version

Every command takes --db: a SQLite file (default ./shipd.db) or a postgres:// URL (or $SHIPD_DB).
Run "shipd COMMAND [SUBCOMMAND] --help" for the flags of one command.
`

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr)
	case "migrate":
		err = migrate(ctx, args[1:], stdout, stderr)
	case "accounts":
		err = accountsCmd(ctx, args[1:], stdout, stderr)
	case "tokens":
		err = tokensCmd(ctx, args[1:], stdout, stderr)
	case "users":
		err = usersCmd(ctx, args[1:], os.Stdin, stdout, stderr)
	case "backup":
		err = backup(ctx, args[1:], stdout, stderr)
	case "healthcheck":
		err = healthcheck(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		err = versionCmd(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usageError(fmt.Sprintf("unknown command %q", args[0]))
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "shipd: %s\n\n%s", ue, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "shipd: %v\n", err)
		return 1
	}
}

// usageError is a mistake in the command line, answered with the usage and exit code 2.
type usageError string

func (e usageError) Error() string { return string(e) }

// newFlags makes a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses flags and refuses stray arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0)))
	}
	return nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
