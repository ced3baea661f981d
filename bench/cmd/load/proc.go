package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shipd-dev/shipd/server"
)

// shipd is a running `shipd serve`.
type shipd struct {
	cmd       *exec.Cmd
	addr      string // API
	pprofAddr string
	name      string // --node-id; empty on SQLite
	done      chan error
}

// node is how to start one shipd.
type node struct {
	db     string   // --db: a SQLite file or a postgres:// URL
	log    string   // the file its output goes to
	name   string   // --node-id (PostgreSQL)
	labels string   // --label-store (PostgreSQL)
	env    []string // added to the environment (SHIPD_WEBHOOK_KEY on PostgreSQL)
	flags  []string // added to serve's flags, after -shipd-flags
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startShipd serves db with every rate limit raised far above the load (a
// configuration, not a code change), tracking scans effectively off (one per
// hour, so no phase carries another's background work), and pprof on.
func startShipd(ctx context.Context, c config, n node) (*shipd, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	pprofAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--db", n.db, "--pprof-addr", pprofAddr,
		"--sandbox-scan-interval", "1h", "--shutdown-grace", "5s"}
	if n.name != "" {
		args = append(args, "--node-id", n.name)
	}
	if n.labels != "" {
		args = append(args, "--label-store", n.labels)
	}
	for _, g := range server.Groups {
		args = append(args, "--rate-limit", string(g)+"=1000000:1000000")
	}
	args = append(args, strings.Fields(c.shipdFlags)...)
	args = append(args, n.flags...)
	logPath := n.log
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.shipd, args...)
	cmd.Env = append(os.Environ(), n.env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile // the access log goes to a file, as in production
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", c.shipd, err)
	}
	s := &shipd{cmd: cmd, addr: addr, pprofAddr: pprofAddr, name: n.name, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); logFile.Close() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("shipd exited at start (%v); log:\n%s", err, tail(logPath, 2000))
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			s.kill()
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("shipd not ready after 30 s; log:\n%s", tail(logPath, 2000))
		}
	}
	return s, nil
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// peakRSSMiB is the server's peak resident set (VmHWM) so far.
func (s *shipd) peakRSSMiB() float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// stop ends the server with SIGTERM, as an operator would.
func (s *shipd) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return err
		}
		return nil
	case <-time.After(30 * time.Second):
		s.kill()
		return errors.New("shipd did not stop within 30 s")
	}
}

func (s *shipd) kill() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Kill()
	}
}

// profile takes a CPU profile of d from the server's pprof listener into dir/name.prof, in the background.
func (s *shipd) profile(dir, name string, d time.Duration) (wait func()) {
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.pprofAddr, int(d.Seconds()))
		res, err := http.Get(url)
		if err != nil {
			logf("profile %s: %v", name, err)
			return
		}
		defer res.Body.Close()
		f, err := os.Create(filepath.Join(dir, name+".prof"))
		if err != nil {
			logf("profile %s: %v", name, err)
			return
		}
		defer f.Close()
		_, _ = io.Copy(f, res.Body)
	}()
	return func() { <-done }
}

// heapProfile saves the server's heap profile (in use, after a GC) into dir/name.prof.
func (s *shipd) heapProfile(dir, name string) {
	if dir == "" {
		return
	}
	res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/heap?gc=1", s.pprofAddr))
	if err != nil {
		logf("heap profile: %v", err)
		return
	}
	defer res.Body.Close()
	f, err := os.Create(filepath.Join(dir, name+".prof"))
	if err != nil {
		logf("heap profile: %v", err)
		return
	}
	defer f.Close()
	_, _ = io.Copy(f, res.Body)
}
