// Package idempotency makes the creates that carry an idempotency key safe to
// retry. A create service runs its work through Run; nothing else needs to
// remember anything.
//
// The protocol, per key (account, mode, endpoint, key):
//
//  1. Claim: the first request inserts an in-progress row holding the
//     fingerprint of its input. From then on, within the 7-day retention, a
//     request with a different fingerprint is a collision, whatever happened
//     to the first.
//  2. Complete: the transaction that creates the resource also stores the
//     result (sealed: it may carry a signing secret) and marks the key done.
//     Either both commit or neither does, so a retry of a committed request
//     always replays its result, whatever crashed when.
//  3. Release: a request that creates nothing (a 402, a 422, a failure before
//     its commit) deletes its claim, so the key can be used again.
//
// A request that finds the key in progress waits for it (Wait), then replays
// the result or takes over a claim whose request is gone (claimed longer than
// AbandonAfter ago, or orphaned by a restart of the only server of a SQLite
// database), with the same fingerprint.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/shipd-dev/shipd/seal"
	"github.com/shipd-dev/shipd/store"
)

const (
	// Retention is how long a key is kept; after it the key is unknown and
	// can be used again, and the periodic purge deletes it.
	Retention = 7 * 24 * time.Hour
	// AbandonAfter is when an in-progress key whose request died (a crash)
	// may be taken over by a retry with the same input. It is far longer than
	// any request can run (the server's write timeout is 60 s).
	AbandonAfter = 5 * time.Minute
	// MaxKeyLength bounds a key, as openapi.yaml's IdempotencyKey does
	// (TestKeyLimitMatchesContract): the settings pages, which make keys
	// of their own, keep within it too.
	MaxKeyLength = 255
)

// Errors of Run; the API maps each to its 409.
var (
	// ErrCollision: the key was used with a different input.
	ErrCollision = errors.New("this idempotencyKey was already used on this endpoint with a different request body")
	// ErrInProgress: the key's first request is still running after Wait.Limit.
	ErrInProgress = errors.New("a request with this idempotencyKey is still in progress")
)

// Wait is how a request that finds its key in progress waits: it reads the
// key every Poll for at most Limit (real time), then gives up with ErrInProgress.
type Wait struct {
	Poll  time.Duration // default 20 ms
	Limit time.Duration // default 10 s
}

// Config tunes a Service.
type Config struct {
	Now    func() time.Time
	Wait   Wait
	Logger *slog.Logger
}

// Service runs creates under idempotency keys.
type Service struct {
	store  Storage
	cipher *seal.Cipher
	now    func() time.Time
	wait   Wait
	log    *slog.Logger
}

// New returns the service; results are sealed with cipher.
func New(st Storage, cipher *seal.Cipher, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Wait.Poll <= 0 {
		cfg.Wait.Poll = 20 * time.Millisecond
	}
	if cfg.Wait.Limit <= 0 {
		cfg.Wait.Limit = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, cipher: cipher, now: cfg.Now, wait: cfg.Wait, log: cfg.Logger}
}

// Request names the key a create runs under.
type Request struct {
	AccountID string
	Mode      string
	// Endpoint is the operation and the resource it acts on
	// ("POST /labels/create", "POST /labels/shp_x/refund").
	Endpoint string
	// Key is the client's idempotencyKey; "" runs the create without one.
	Key string
	// Fingerprint binds the key to the request. The API gives the hash of the
	// request body as sent (so any difference in the body is a collision, as
	// the spec says); when nil, it is the fingerprint of Input.
	Fingerprint []byte
	// Input is the create's input.
	Input any
}

// Fingerprint is the SHA-256 of v's JSON encoding. Domain inputs are structs,
// whose encoding has a fixed field order, so the same input always gives the
// same fingerprint however the client ordered its JSON.
func Fingerprint(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(raw)
	return sum[:], nil
}

// Commit runs fn in one write transaction; under a key, the same transaction
// stores fn's result as the key's result. A create calls it exactly once,
// for the transaction that creates its resource.
type Commit[T any] func(ctx context.Context, fn func(tx *store.Tx) (T, error)) (T, error)

// Run runs create under req's key and reports whether the result is a replay.
// Without a key it runs create with a plain transaction.
func Run[T any](ctx context.Context, s *Service, req Request, create func(ctx context.Context, commit Commit[T]) (T, error)) (result T, replayed bool, err error) {
	if req.Key == "" {
		plain := func(ctx context.Context, fn func(tx *store.Tx) (T, error)) (T, error) {
			var out T
			err := s.store.Tx(ctx, func(tx *store.Tx) error {
				var err error
				out, err = fn(tx)
				return err
			})
			return out, err
		}
		result, err = create(ctx, plain)
		return result, false, err
	}
	fp := req.Fingerprint
	if fp == nil {
		if fp, err = Fingerprint(req.Input); err != nil {
			return result, false, err
		}
	}
	sc := store.IdempotencyScope{AccountID: req.AccountID, Mode: req.Mode, Endpoint: req.Endpoint, Key: req.Key}
	owner := store.NewID("req")
	rec, err := s.acquire(ctx, sc, fp, owner)
	if err != nil {
		return result, false, err
	}
	if rec != nil { // done: replay
		result, err = open[T](s, *rec)
		return result, err == nil, err
	}

	completed := false
	defer func() {
		if !completed {
			// The claim outlives a client that hung up, so release it with a context of its own.
			s.release(context.WithoutCancel(ctx), sc, owner)
		}
	}()
	commit := func(ctx context.Context, fn func(tx *store.Tx) (T, error)) (T, error) {
		var out T
		err := s.store.Tx(ctx, func(tx *store.Tx) error {
			var err error
			if out, err = fn(tx); err != nil {
				return err
			}
			sealed, err := s.seal(out)
			if err != nil {
				return err
			}
			if err := tx.CompleteIdempotencyKey(ctx, sc, owner, sealed, s.now()); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					// Taken over by a retry that judged this request dead: it
					// runs the create; this one must not.
					return ErrInProgress
				}
				return err
			}
			return nil
		})
		if err == nil {
			completed = true
		}
		return out, err
	}
	result, err = create(ctx, commit)
	return result, false, err
}

// acquire claims the key for owner (nil, nil), or returns the done record to
// replay. It waits while another request holds the key.
func (s *Service) acquire(ctx context.Context, sc store.IdempotencyScope, fp []byte, owner string) (*store.IdempotencyRecord, error) {
	deadline := time.Now().Add(s.wait.Limit)
	for {
		var (
			owned  bool
			again  bool // the key changed hands in between: look again at once
			holder store.IdempotencyRecord
		)
		now := s.now()
		err := s.store.Tx(ctx, func(tx *store.Tx) error {
			claimed, err := tx.ClaimIdempotencyKey(ctx, sc, fp, owner, now, now.Add(-Retention))
			if err != nil || claimed {
				owned = claimed
				return err
			}
			holder, err = tx.IdempotencyKey(ctx, sc, now.Add(-Retention))
			if errors.Is(err, store.ErrNotFound) {
				again = true // released in between
				return nil
			}
			if err != nil {
				return err
			}
			if string(holder.Fingerprint) != string(fp) {
				return ErrCollision
			}
			orphaned := holder.Owner == store.OrphanedClaim || !time.Unix(0, holder.ClaimedAt).After(now.Add(-AbandonAfter))
			if holder.State == store.IdempotencyInProgress && orphaned {
				// Its request is gone: take the key over and run.
				err := tx.TakeOverIdempotencyKey(ctx, sc, holder.Owner, owner, now)
				if errors.Is(err, store.ErrNotFound) {
					again = true // another retry took it first
					return nil
				}
				owned = err == nil
				return err
			}
			return nil
		})
		switch {
		case err != nil:
			return nil, err
		case owned:
			return nil, nil
		case again:
			continue
		case holder.State == store.IdempotencyDone:
			return &holder, nil
		}
		if !time.Now().Before(deadline) {
			return nil, ErrInProgress
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(s.wait.Poll):
		}
	}
}

func (s *Service) release(ctx context.Context, sc store.IdempotencyScope, owner string) {
	if err := s.store.Tx(ctx, func(tx *store.Tx) error { return tx.ReleaseIdempotencyKey(ctx, sc, owner) }); err != nil {
		s.log.ErrorContext(ctx, "releasing an idempotency key", slog.String("endpoint", sc.Endpoint), slog.Any("error", err))
	}
}

func (s *Service) seal(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("idempotent result: %w", err)
	}
	return s.cipher.Encrypt(string(raw))
}

// open decodes the result a done key recorded.
func open[T any](s *Service, rec store.IdempotencyRecord) (T, error) {
	var out T
	if rec.Result == nil {
		return out, fmt.Errorf("idempotency key %q is done without a result", rec.Key)
	}
	raw, err := s.cipher.Decrypt(*rec.Result)
	if err != nil {
		return out, fmt.Errorf("idempotency key %q: %w", rec.Key, err)
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return out, fmt.Errorf("idempotency key %q: result does not decode: %w", rec.Key, err)
	}
	return out, nil
}

// Purge deletes the keys past their retention; lookups already ignore them,
// so the purge only frees space.
func (s *Service) Purge(ctx context.Context) (int64, error) {
	return s.store.PurgeIdempotencyKeys(ctx, s.now().Add(-Retention))
}
