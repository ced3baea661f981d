package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestIdempotencyUnderKills is a property test of idempotent creates: many
// clients send one key and one body at once while the server is killed
// (SIGKILL) at a random moment and started again. Whatever the moment (before
// the claim, between claim and commit, after the commit, while others wait),
// every client ends with the same response, byte for byte, and one resource
// exists per key.
func TestIdempotencyUnderKills(t *testing.T) {
	t.Parallel()
	bin := shipdBinary(t)
	db := filepath.Join(t.TempDir(), "shipd.db")
	addr := freeAddr(t)
	server, stdout := startServeBinary(t, bin, db, addr)
	token := demoToken(t, stdout)
	waitReady(t, addr)
	defer func() { _ = server.Process.Signal(syscall.SIGTERM); _ = server.Wait() }()

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 17))
	t.Logf("seed %d", seed)

	const rounds, clients = 8, 12
	created := map[string]map[string]bool{"/api/v1/labels/create": {}, "/api/v1/webhooks": {}}
	for round := range rounds {
		path, body := "/api/v1/labels/create", fmt.Sprintf(`{"idempotencyKey":"prop-%d",
			"fromAddress":{"name":"Shop","phone":"415 555 0100","street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},
			"toAddress":{"name":"Ada Lovelace","phone":"212 555 0199","street1":"350 Fifth Avenue","city":"New York","state":"NY","zip":"10118","country":"US"},
			"parcel":{"weightOz":%d}}`, round, 10+round)
		if round%2 == 1 { // its answer carries a signing secret: replays must too
			path, body = "/api/v1/webhooks", fmt.Sprintf(`{"idempotencyKey":"prop-%d","url":"https://example.com/hooks/%d","events":["*"]}`, round, round)
		}
		killAfter := time.Duration(rng.IntN(30_000)) * time.Microsecond

		answers := make([][]byte, clients)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[c] = createUntilAnswered(t, addr, token, path, body)
			}()
		}
		time.Sleep(killAfter)
		if err := server.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = server.Wait()
		server, _ = startServeBinary(t, bin, db, addr)
		waitReady(t, addr)
		wg.Wait()

		for c, a := range answers {
			if a == nil {
				t.Fatalf("round %d (kill after %v): client %d got no answer", round, killAfter, c)
			}
			if !bytes.Equal(a, answers[0]) {
				t.Fatalf("round %d (kill after %v): clients got different answers:\n%s\n%s", round, killAfter, answers[0], a)
			}
		}
		var id struct{ ID string }
		if err := json.Unmarshal(answers[0], &id); err != nil || id.ID == "" {
			t.Fatalf("round %d: answer %s", round, answers[0])
		}
		created[path][id.ID] = true
		// And later, one more retry replays it too.
		if again := createUntilAnswered(t, addr, token, path, body); !bytes.Equal(again, answers[0]) {
			t.Fatalf("round %d: a later retry got\n%s\nnot\n%s", round, again, answers[0])
		}
	}

	var labels, hooks struct{ Data []struct{ ID string } }
	call(t, "GET", "http://"+addr+"/api/v1/labels?limit=100", token, "", &labels)
	call(t, "GET", "http://"+addr+"/api/v1/webhooks?limit=100", token, "", &hooks)
	for _, c := range []struct {
		path   string
		listed []struct{ ID string }
	}{{"/api/v1/labels/create", labels.Data}, {"/api/v1/webhooks", hooks.Data}} {
		if len(c.listed) != len(created[c.path]) {
			t.Errorf("%s: %d resources exist for %d keys", c.path, len(c.listed), len(created[c.path]))
		}
		for _, r := range c.listed {
			if !created[c.path][r.ID] {
				t.Errorf("%s: %s exists but no client was answered with it", c.path, r.ID)
			}
		}
	}
}

// createUntilAnswered sends the create until it is answered with a 2xx: a
// dead server, a key still in progress (409 idempotency_key_in_use), a 429 or
// a 5xx is retried, as a client would. It returns the 2xx body.
func createUntilAnswered(t *testing.T, addr, token, path, body string) []byte {
	client := &http.Client{Timeout: 20 * time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		req, err := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader([]byte(body)))
		if err != nil {
			t.Error(err)
			return nil
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			time.Sleep(20 * time.Millisecond) // the server is down or restarting
			continue
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case err != nil:
			time.Sleep(20 * time.Millisecond)
		case res.StatusCode == http.StatusAccepted || res.StatusCode == http.StatusCreated:
			return raw
		case res.StatusCode == http.StatusConflict && bytes.Contains(raw, []byte("idempotency_key_in_use")),
			res.StatusCode == http.StatusTooManyRequests, res.StatusCode >= 500:
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			time.Sleep(max(20*time.Millisecond, time.Duration(wait)*time.Second))
		default:
			t.Errorf("POST %s: %d %s", path, res.StatusCode, raw)
			return nil
		}
	}
	t.Errorf("POST %s: no answer within a minute", path)
	return nil
}
