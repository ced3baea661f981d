package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shipd-dev/shipd/webhooks/signature"
)

// arrival is one verified delivery.
type arrival struct {
	path        string
	eventID     string
	eventType   string
	shipmentID  string
	at          time.Time // when the receiver had the whole body
	createdAt   time.Time // the envelope's createdAt (the event's time)
	purchasedAt time.Time // data.purchasedAt
}

// receiver is the local webhook endpoint: every path has its subscription's
// signing secret, and every delivery is verified with signature.Verify
// before it counts.
type receiver struct {
	addr string
	srv  *http.Server

	mu       sync.Mutex
	secrets  map[string]string // path → signing secret
	seen     map[string]bool   // path + event id
	arrivals []arrival
	notify   chan struct{}

	rejected   atomic.Int64 // signature or timestamp refused
	duplicates atomic.Int64
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{addr: ln.Addr().String(), secrets: map[string]string{}, seen: map[string]bool{}, notify: make(chan struct{}, 1)}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *receiver) url(path string) string { return "http://" + r.addr + path }

func (r *receiver) setSecret(path, secret string) {
	r.mu.Lock()
	r.secrets[path] = secret
	r.mu.Unlock()
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, signature.MaxBodyBytes))
	at := time.Now()
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	secret := r.secrets[req.URL.Path]
	r.mu.Unlock()
	if err := signature.Verify(secret, req.Header, body, 0); err != nil {
		r.rejected.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var env struct {
		ID        string    `json:"id"`
		Type      string    `json:"type"`
		CreatedAt time.Time `json:"createdAt"`
		Data      struct {
			ID          string     `json:"id"`
			PurchasedAt *time.Time `json:"purchasedAt"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		r.rejected.Add(1)
		http.Error(w, "json", http.StatusBadRequest)
		return
	}
	a := arrival{path: req.URL.Path, eventID: env.ID, eventType: env.Type, shipmentID: env.Data.ID, at: at, createdAt: env.CreatedAt}
	if env.Data.PurchasedAt != nil {
		a.purchasedAt = *env.Data.PurchasedAt
	}
	r.mu.Lock()
	key := a.path + " " + a.eventID
	if r.seen[key] {
		r.duplicates.Add(1)
	} else {
		r.seen[key] = true
		r.arrivals = append(r.arrivals, a)
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// count is the number of distinct deliveries received on paths with prefix.
func (r *receiver) count(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, a := range r.arrivals {
		if strings.HasPrefix(a.path, prefix) {
			n++
		}
	}
	return n
}

// waitFor waits until n deliveries arrived on paths with prefix, or the time-out.
func (r *receiver) waitFor(prefix string, n int, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for r.count(prefix) < n {
		select {
		case <-r.notify:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return false
		}
	}
	return true
}

// received returns the deliveries on paths with prefix.
func (r *receiver) received(prefix string) []arrival {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []arrival
	for _, a := range r.arrivals {
		if strings.HasPrefix(a.path, prefix) {
			out = append(out, a)
		}
	}
	return out
}
