// Package e2e runs the settings UI in a real browser: it builds bin/shipd,
// serves a fresh database, and runs flows.mjs (playwright-core driving
// Debian's headless Chromium, with an axe-core check of every page) against
// it. It needs Node, the npm packages of package.json and /usr/bin/chromium,
// so it runs only when asked: make test-ui sets SHIPD_UI_E2E=1 after
// installing what is missing.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

func TestBrowserFlows(t *testing.T) {
	if os.Getenv("SHIPD_UI_E2E") == "" {
		t.Skip("set SHIPD_UI_E2E=1 (make test-ui) to run the settings UI in headless Chromium")
	}
	for _, need := range []string{"/usr/bin/chromium", "node_modules/playwright-core", "node_modules/axe-core"} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s is missing: run make test-ui, which installs it", need)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()

	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin", "shipd")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/shipd")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	dir := t.TempDir()
	// Carrier accounts connected with environment "test" reach a fake UPS:
	// the page's flow connects one (the operator's own carriers stay unset).
	ups := upsfake.New(t)
	serve := exec.CommandContext(ctx, bin, "serve", "--db", filepath.Join(dir, "shipd.db"), "--addr", "127.0.0.1:0",
		"--sandbox-scan-interval", "5s")
	serve.Env = append(os.Environ(), "SHIPD_UPS_TEST_BASE_URL="+ups.URL())
	serve.Dir = dir
	serve.Cancel = func() error { return serve.Process.Signal(syscall.SIGTERM) }
	serve.WaitDelay = 20 * time.Second
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	serve.Stderr = logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
		if t.Failed() {
			if b, err := os.ReadFile(logs.Name()); err == nil {
				t.Logf("shipd's log (last 4 KiB):\n%s", tail(b, 4096))
			}
		}
	})

	// The first start prints the demo account: a token, and a user with its password.
	var demo struct {
		Token, Email, Password, SettingsURL string
	}
	if err := json.NewDecoder(bufio.NewReader(stdout)).Decode(&demo); err != nil {
		t.Fatalf("reading the first start's output: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if demo.Token == "" || demo.Email == "" || demo.Password == "" || demo.SettingsURL == "" {
		t.Fatalf("the first start printed no demo token or user: %+v", demo)
	}
	base := strings.TrimSuffix(demo.SettingsURL, "/settings/")

	shots, err := filepath.Abs("screenshots")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(shots); err != nil {
		t.Fatal(err)
	}
	flows := exec.CommandContext(ctx, "node", "flows.mjs")
	flows.Env = append(os.Environ(), "SHIPD_URL="+base, "SHIPD_TOKEN="+demo.Token, "SHIPD_EMAIL="+demo.Email,
		"SHIPD_PASSWORD="+demo.Password, "SHIPD_SCREENSHOTS="+shots,
		"SHIPD_UPS_FAKE_CLIENT_ID="+upsfake.ClientID, "SHIPD_UPS_FAKE_SECRET="+upsfake.ClientSecret, "SHIPD_UPS_FAKE_ACCOUNT="+upsfake.AccountNumber)
	out, err := flows.CombinedOutput()
	t.Logf("flows.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the browser flows failed: %v", err)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
