package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A build without the Makefile's -ldflags says "dev"; --version and
// version agree; --json carries the Go version. (make test-image checks
// that the Makefile stamps git describe into the image's binary.)
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	var got buildInfo
	out := cliOK(t, nil, "version", "--json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != "dev" || got.GoVersion != runtime.Version() {
		t.Fatalf("version --json: %+v", got)
	}
	plain := cliOK(t, nil, "version")
	if diff := cmp.Diff(plain, cliOK(t, nil, "--version")); diff != "" {
		t.Fatalf("--version differs from version (-version +--version):\n%s", diff)
	}
	if !strings.HasPrefix(plain, "shipd dev (") || !strings.Contains(plain, runtime.Version()) {
		t.Fatalf("version: %q", plain)
	}
}

// healthcheck exits 0 while the server is ready and 1 once it is gone;
// an unspecified listen host (the image's 0.0.0.0) is asked on loopback.
func TestHealthcheckCommand(t *testing.T) {
	t.Parallel()
	s := startServe(t, filepath.Join(t.TempDir(), "shipd.db"))
	addr := strings.TrimPrefix(s.base, "http://")
	_, port, _ := strings.Cut(addr, ":")
	for _, a := range []string{addr, "0.0.0.0:" + port} {
		if code, stdout, stderr := cli(t, "healthcheck", "--addr", a); code != 0 || !strings.Contains(stdout, "ready") {
			t.Fatalf("healthcheck --addr %s of a ready server: exit %d\n%s%s", a, code, stdout, stderr)
		}
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	if code, _, stderr := cli(t, "healthcheck", "--addr", addr, "--timeout", "2s"); code != 1 || !strings.Contains(stderr, "healthcheck:") {
		t.Fatalf("healthcheck of a stopped server: exit %d, %s", code, stderr)
	}
}
