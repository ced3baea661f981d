package contracttest

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/server"
)

var (
	flagBaseURL = flag.String("base-url", "", "run against this running deployment (e.g. http://127.0.0.1:8080) instead of an in-process server")
	flagDB      = flag.String("db", "", "the deployment's SQLite database, where the shipd CLI makes accounts and tokens (required with -base-url)")
	flagShipd   = flag.String("shipd", "", "shipd binary for the fixtures with -base-url (default: built from ./cmd/shipd)")
	flagJUnit   = flag.String("junit", "results/contract.xml", "write the JUnit XML report here (relative to contracttest/; empty for none)")
)

// suite is what every test of the package shares.
var suite struct {
	contract *Contract
	target   *Target // under test: in-process, or -base-url
	runner   *Runner

	mu      sync.Mutex
	special map[ServerKind]*Target
	errs    map[ServerKind]error
}

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(func() int {
		cleanup, err := setupSuite()
		defer cleanup()
		if err != nil {
			fmt.Fprintln(os.Stderr, "contracttest:", err)
			return 2
		}
		return m.Run()
	}())
}

func setupSuite() (cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	if suite.contract, err = newContract(); err != nil {
		return cleanup, err
	}
	startReceiver()
	cleanups = append(cleanups, receiver.Close)

	if *flagBaseURL == "" {
		t, err := startInProcess(inProcessOptions{name: "in-process", configure: roomForFailedAuth})
		if err != nil {
			return cleanup, fmt.Errorf("in-process server: %w", err)
		}
		cleanups = append(cleanups, t.Close)
		suite.target = t
		suite.special = map[ServerKind]*Target{}
		suite.errs = map[ServerKind]error{}
		cleanups = append(cleanups, func() {
			for _, t := range suite.special {
				t.Close()
			}
		})
		suite.runner = &Runner{Contract: suite.contract, Target: t, Special: specialServer}
		return cleanup, nil
	}

	if *flagDB == "" {
		return cleanup, fmt.Errorf("-base-url needs -db: the deployment's database, for accounts and tokens")
	}
	bin := *flagShipd
	if bin == "" {
		dir, err := os.MkdirTemp("", "shipd-contract-bin-")
		if err != nil {
			return cleanup, err
		}
		cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
		if bin, err = buildShipd(dir); err != nil {
			return cleanup, err
		}
	}
	base := strings.TrimSuffix(*flagBaseURL, "/")
	if err := reachable(base); err != nil {
		return cleanup, err
	}
	t, err := newTarget("deployment", base, cliFixtures{bin: bin, db: *flagDB}, nil)
	if err != nil {
		return cleanup, err
	}
	suite.target = t
	suite.runner = &Runner{Contract: suite.contract, Target: t} // no Special: in-process-only scenarios skip
	return cleanup, nil
}

func reachable(base string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/healthz", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the deployment at %s does not answer: %w", base, err)
	}
	res.Body.Close()
	return nil
}

// specialServer starts, once, the in-process server an in-process-only scenario needs.
func specialServer(kind ServerKind) (*Target, error) {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	if t := suite.special[kind]; t != nil {
		return t, nil
	}
	if err := suite.errs[kind]; err != nil {
		return nil, err
	}
	opts := inProcessOptions{name: kind.String()}
	switch kind {
	case BrokenDBServer:
		opts.closedDB = true
	case RateLimitedServer:
		opts.configure = tinyBuckets
	case CarrierAccountsServer:
		opts.configure = withCarrierAccounts
	}
	t, err := startInProcess(opts)
	if err != nil {
		suite.errs[kind] = err
		return nil, err
	}
	suite.special[kind] = t
	return t, nil
}

// roomForFailedAuth lets every operation's failed-authentication scenarios
// (three or four each, all from 127.0.0.1) answer 401: the default bucket
// of 60 is fewer than the contract's operations make, and the 429 of that
// bucket is not what they test.
func roomForFailedAuth(c *app.Config) {
	if c.RateLimits.Limits == nil {
		c.RateLimits.Limits = map[server.Group]server.RateLimit{}
	}
	c.RateLimits.Limits[server.GroupFailedAuth] = server.RateLimit{Rate: 1, Burst: 10000}
}

// tinyBuckets gives every endpoint group a bucket of one request that
// refills in 100 s: the second request of an account is the 429.
func tinyBuckets(c *app.Config) {
	c.RateLimits.Limits = map[server.Group]server.RateLimit{}
	for _, g := range server.Groups {
		c.RateLimits.Limits[g] = server.RateLimit{Rate: 0.01, Burst: 1}
	}
}

// receiver is a webhook endpoint in this process: /ok/... answers 204 at
// once, /slow/... after two seconds (a delivery attempt in flight), and
// /capture/... at once, keeping what was delivered (captured).
var receiver *httptest.Server

// delivered is a request the receiver kept.
type delivered struct {
	Header http.Header
	Body   []byte
}

// captured holds the deliveries to /capture/... URLs, by path.
var captured struct {
	sync.Mutex
	byPath map[string][]delivered
}

func startReceiver() {
	captured.byPath = map[string][]delivered{}
	receiver = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/slow/"):
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		case strings.HasPrefix(r.URL.Path, "/capture/"):
			body, err := io.ReadAll(r.Body)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			captured.Lock()
			captured.byPath[r.URL.Path] = append(captured.byPath[r.URL.Path], delivered{r.Header.Clone(), body})
			captured.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
}

// deliveriesTo is what the receiver kept of the deliveries to url.
func deliveriesTo(url string) []delivered {
	path := strings.TrimPrefix(url, receiver.URL)
	captured.Lock()
	defer captured.Unlock()
	return slices.Clone(captured.byPath[path])
}

// receiverURL is a fresh URL under path (/ok or /slow) of the receiver.
func receiverURL(path string) string {
	return receiver.URL + path + "/" + randomHex(8)
}

// TestContract runs every scenario, then the coverage gate; it prints the
// matrix and writes the JUnit XML.
func TestContract(t *testing.T) {
	scenarios := Scenarios(suite.contract)
	seen := map[string]bool{}
	for _, sc := range scenarios {
		if seen[sc.ID()] {
			t.Fatalf("two scenarios are named %s", sc.ID())
		}
		seen[sc.ID()] = true
	}

	start := time.Now()
	var (
		mu      sync.Mutex
		results []Result
	)
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range scenarios {
			t.Run(sc.ID(), func(t *testing.T) {
				t.Parallel()
				res := suite.runner.Run(context.Background(), sc)
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
				switch {
				case res.Outcome == Skipped:
					t.Skip(res.Skip)
				case res.Outcome == Failed && pending[sc.Pair()] != "":
					t.Skipf("pending (%s); fails as expected: %s", pending[sc.Pair()], strings.Join(res.Problems, "; "))
				case res.Outcome == Failed:
					t.Errorf("%s %d %s:\n  %s", sc.Op, sc.Status, sc.Name, strings.Join(res.Problems, "\n  "))
				}
			})
		}
	})

	complete := len(results) == len(scenarios)
	rep := buildReport(suite.contract, suite.target.Name+" "+suite.target.BaseURL, results, pending, complete)
	rep.Elapsed = time.Since(start)
	rep.Print(os.Stdout)
	if *flagJUnit != "" {
		if err := rep.WriteJUnit(*flagJUnit); err != nil {
			t.Errorf("JUnit report: %v", err)
		} else if abs, err := filepath.Abs(*flagJUnit); err == nil {
			t.Logf("JUnit report: %s", abs)
		}
	}
	t.Run("coverage", func(t *testing.T) {
		if !complete {
			t.Skip("-run selected part of the table; the coverage gate needs all of it")
		}
		for _, p := range rep.Problems {
			t.Error(p)
		}
	})
}
