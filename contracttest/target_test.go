package contracttest

// Targets: the deployments scenarios run against. The default is in-process:
// an httptest server over app.New on a temporary SQLite database, with
// fixtures made through the accounts service. With -base-url the target is a running
// deployment, with fixtures made by the shipd CLI on its -db.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/server"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/store/storetest"
)

// Fixtures makes what the API cannot: accounts and tokens.
type Fixtures interface {
	CreateAccount(ctx context.Context, name string, paymentMethod bool) (id string, err error)
	// CreateAccountIn creates an account billed in currency, with a payment method.
	CreateAccountIn(ctx context.Context, name, currency string) (id string, err error)
	// CreateToken mints a token; expiresIn 0 means it never expires.
	CreateToken(ctx context.Context, accountID, mode string, scopes []string, expiresIn time.Duration) (id, secret string, err error)
	RevokeToken(ctx context.Context, id string) error
}

// Target is one deployment of shipd.
type Target struct {
	Name     string
	BaseURL  string // without /api/v1
	Fixtures Fixtures
	Client   *http.Client
	checker  *checker
	close    func()
}

// Close stops an in-process target.
func (t *Target) Close() {
	if t.close != nil {
		t.close()
	}
}

func newTarget(name, baseURL string, fx Fixtures, closeFn func()) (*Target, error) {
	ck, err := newChecker(baseURL)
	if err != nil {
		return nil, err
	}
	return &Target{
		Name: name, BaseURL: strings.TrimSuffix(baseURL, "/"), Fixtures: fx, checker: ck, close: closeFn,
		// No redirect is followed: a 3xx is seen, and fails as undocumented.
		Client: &http.Client{
			Timeout:       30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// In-process timing: fast enough to keep the suite short, slow enough that
// the intermediate states are seen: paying and void_requested (Slow Carrier),
// pending (Carrier Unavailable; see PurchaseRetryBase below).
const (
	inProcessSlowDelay    = time.Second
	inProcessScanInterval = 200 * time.Millisecond
	inProcessJobPoll      = 10 * time.Millisecond
)

// inProcessOptions vary the in-process server.
type inProcessOptions struct {
	name string
	// closedDB closes the database after app.New: every request that reads it
	// fails, which is how the harness provokes 500 internal_error.
	closedDB bool
	// configure edits the configuration before app.New.
	configure func(*app.Config)
	// wrap wraps the server's handler (the self-tests break responses with it).
	wrap func(http.Handler) http.Handler
}

// startInProcess runs app.New on a fresh database behind httptest.
func startInProcess(opts inProcessOptions) (_ *Target, err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "shipd-contract-")
	if err != nil {
		return nil, err
	}
	// Stop order: the HTTP server, the jobs, the database, the files.
	var (
		hs        *httptest.Server
		srv       *app.App
		st        *store.Store
		dropDB    func()
		closeOnce sync.Once
	)
	closeStore := func() {
		closeOnce.Do(func() {
			if st != nil {
				_ = st.Close()
			}
		})
	}
	cleanup := func() {
		if hs != nil {
			hs.Close()
		}
		if srv != nil {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Stop(stopCtx)
		}
		closeStore()
		if dropDB != nil {
			dropDB()
		}
		_ = os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()

	dsn := filepath.Join(dir, "shipd.db")
	if storetest.Postgres() {
		var drop func()
		if dsn, drop, err = storetest.CreatePostgres(ctx); err != nil {
			return nil, err
		}
		dropDB = drop
	}
	if st, err = store.Open(ctx, dsn); err != nil {
		return nil, err
	}
	docs, err := store.OpenBlobs(ctx, (&url.URL{Scheme: "file", Path: filepath.Join(dir, "labels")}).String())
	if err != nil {
		return nil, err
	}
	cipher, err := seal.NewCipher(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		return nil, err
	}
	// The URL must be known before app.New: labelUrl is built from it.
	unstarted := httptest.NewUnstartedServer(nil)
	baseURL := "http://" + unstarted.Listener.Addr().String()

	cfg := app.Config{
		Store: st, Cipher: cipher, PublicURL: baseURL,
		Documents:       docs,
		JobPollInterval: inProcessJobPoll,
		TestVerifier:    verifier.NewSandbox(),
		// Long enough that a Carrier Unavailable shipment is seen pending.
		PurchaseRetryBase: time.Second,
		Carriers: carriers.NewRegistry(sandbox.New(sandbox.Config{
			ScanInterval: inProcessScanInterval, SlowDelay: inProcessSlowDelay}), nil),
	}
	// Every operation's generated family sends three failed authentications
	// (no header, unknown, revoked token); with 30-odd operations that is
	// past the default burst of 60 per client address, which would turn the
	// later 401s into 429s. The failed-auth bucket has its own tests.
	cfg.RateLimits.Limits = map[server.Group]server.RateLimit{server.GroupFailedAuth: {Rate: 1, Burst: 1000}}
	if opts.configure != nil {
		opts.configure(&cfg)
	}
	s, err := app.New(cfg)
	if err != nil {
		unstarted.Close()
		return nil, err
	}
	var handler http.Handler = s.Handler()
	if opts.wrap != nil {
		handler = opts.wrap(handler)
	}
	unstarted.Config.Handler = handler
	hs = unstarted
	hs.Start()

	if opts.closedDB {
		// Nothing is started: no job may run on a closed database.
		closeStore()
	} else {
		if err := s.Start(ctx); err != nil {
			return nil, err
		}
		srv = s
	}
	return newTarget(opts.name, baseURL, serviceFixtures{s.Accounts}, cleanup)
}

// serviceFixtures makes accounts and tokens through the in-process accounts service.
type serviceFixtures struct{ acc *accounts.Service }

func (f serviceFixtures) CreateAccount(ctx context.Context, name string, paymentMethod bool) (string, error) {
	a, err := f.acc.CreateAccount(ctx, name, paymentMethod)
	return a.ID, err
}

func (f serviceFixtures) CreateAccountIn(ctx context.Context, name, currency string) (string, error) {
	a, err := f.acc.CreateAccountWith(ctx, accounts.NewAccount{Name: name, HasPaymentMethod: true, Currency: currency})
	return a.ID, err
}

func (f serviceFixtures) CreateToken(ctx context.Context, accountID, mode string, scopes []string, expiresIn time.Duration) (string, string, error) {
	var expires *time.Time
	if expiresIn > 0 {
		e := time.Now().Add(expiresIn)
		expires = &e
	}
	t, secret, err := f.acc.CreateToken(ctx, accounts.NewToken{AccountID: accountID, Mode: accounts.Mode(mode), Scopes: scopes, ExpiresAt: expires})
	return t.ID, secret, err
}

func (f serviceFixtures) RevokeToken(ctx context.Context, id string) error {
	return f.acc.RevokeToken(ctx, id)
}

// cliFixtures runs the shipd CLI against a deployment's database, as an operator would.
type cliFixtures struct {
	bin string // the shipd binary
	db  string
}

func (f cliFixtures) run(ctx context.Context, out any, args ...string) error {
	args = append(args, "--db", f.db)
	cmd := exec.CommandContext(ctx, f.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("shipd %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("shipd %s: output is not JSON: %v: %s", strings.Join(args, " "), err, stdout.String())
	}
	return nil
}

func (f cliFixtures) CreateAccount(ctx context.Context, name string, paymentMethod bool) (string, error) {
	var out struct{ ID string }
	err := f.run(ctx, &out, "accounts", "create", "--name", name, fmt.Sprintf("--payment-method=%t", paymentMethod))
	return out.ID, err
}

func (f cliFixtures) CreateAccountIn(ctx context.Context, name, currency string) (string, error) {
	var out struct{ ID string }
	err := f.run(ctx, &out, "accounts", "create", "--name", name, "--currency", currency)
	return out.ID, err
}

func (f cliFixtures) CreateToken(ctx context.Context, accountID, mode string, scopes []string, expiresIn time.Duration) (string, string, error) {
	var out struct{ ID, Token string }
	args := []string{"tokens", "create", "--account", accountID, "--mode", mode, "--scopes", strings.Join(scopes, ",")}
	if expiresIn > 0 {
		args = append(args, "--expires-in", expiresIn.String())
	}
	err := f.run(ctx, &out, args...)
	return out.ID, out.Token, err
}

func (f cliFixtures) RevokeToken(ctx context.Context, id string) error {
	var out map[string]any
	return f.run(ctx, &out, "tokens", "revoke", "--id", id)
}

// buildShipd compiles cmd/shipd into dir.
func buildShipd(dir string) (string, error) {
	bin := filepath.Join(dir, "shipd")
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go is not on PATH to build cmd/shipd (or pass -shipd): %w", err)
	}
	cmd := exec.Command(gobin, "build", "-o", bin, "github.com/shipd-dev/shipd/cmd/shipd")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/shipd: %v\n%s", err, out)
	}
	return bin, nil
}
