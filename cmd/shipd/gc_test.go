package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeGCPercent: the binary collects at defaultGCPercent, unless GOGC
// in the environment says otherwise; the metrics show which.
func TestServeGCPercent(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	for _, tc := range []struct {
		gogc string
		want string
	}{
		{"", "200"},
		{"50", "50"},
	} {
		t.Run("GOGC="+tc.gogc, func(t *testing.T) {
			t.Parallel()
			addr, metricsAddr := freeAddr(t), freeAddr(t)
			cmd := exec.Command(bin, "serve", "--db", filepath.Join(t.TempDir(), "shipd.db"), "--addr", addr, "--metrics-addr", metricsAddr)
			cmd.Env = append(withoutEnv(os.Environ(), "GOGC"), "SHIPD_WEBHOOK_KEY=")
			if tc.gogc != "" {
				cmd.Env = append(cmd.Env, "GOGC="+tc.gogc)
			}
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			waitReady(t, addr)
			got := ""
			for deadline := time.Now().Add(10 * time.Second); got == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				got = scrape(t, "http://"+metricsAddr+"/metrics", "go_gc_gogc_percent")
			}
			if got != tc.want {
				t.Errorf("go_gc_gogc_percent = %q, want %q", got, tc.want)
			}
		})
	}
}

// withoutEnv is env without name's entries.
func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// scrape returns the value of the unlabelled metric name, or "" when the
// scrape fails or does not have it.
func scrape(t *testing.T, url, name string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return v
		}
	}
	return ""
}
