package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/store"
)

const (
	// idempotencyRetention is how long a key is kept; after it the key is
	// unknown to lookups (exactly, by Config.Now) and reusable, and the
	// periodic purge deletes it.
	idempotencyRetention = 7 * 24 * time.Hour
	// idempotencyAbandonAfter is when an in-progress key whose request died
	// (process crash) may be taken over by a retry.
	idempotencyAbandonAfter = 5 * time.Minute
	// idempotencyPurgeInterval is how often the purge job runs.
	idempotencyPurgeInterval = time.Hour
)

// IdempotencyWait is how a request that finds its key in progress waits: it
// polls the row every Poll for at most Limit (real time), then answers 409
// idempotency_key_in_use.
type IdempotencyWait struct {
	Poll  time.Duration // default 20 ms
	Limit time.Duration // default 10 s
}

func (w *IdempotencyWait) setDefaults() {
	if w.Poll <= 0 {
		w.Poll = 20 * time.Millisecond
	}
	if w.Limit <= 0 {
		w.Limit = 10 * time.Second
	}
}

// idempotentOperations are the operations whose request body takes an
// idempotencyKey, read from the contract (the schema is the only list).
func idempotentOperations(ops operations) map[*operation]bool {
	out := map[*operation]bool{}
	for _, op := range ops {
		rb := op.route.Operation.RequestBody
		if rb == nil || rb.Value == nil {
			continue
		}
		mt := rb.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		if _, ok := mt.Schema.Value.Properties["idempotencyKey"]; ok {
			out[op] = true
		}
	}
	return out
}

// canonicalHash decodes a JSON body and returns its idempotencyKey ("" when
// absent) and the SHA-256 of its canonical form: re-encoded with sorted
// object keys and no whitespace, numbers as written (so no precision is lost).
func canonicalHash(body []byte) (key string, sum [sha256.Size]byte, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", sum, err
	}
	canonical, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		return "", sum, err
	}
	if m, ok := v.(map[string]any); ok {
		key, _ = m["idempotencyKey"].(string)
	}
	return key, sha256.Sum256(canonical), nil
}

// idempotency makes create requests that carry an idempotencyKey safe to
// retry. The scope is the account, the mode and the endpoint: the method and
// the concrete path (so a key used to refund one shipment is unrelated to the
// same key on another). The first request claims the key with an in-progress
// row (the UNIQUE constraint decides between concurrent requests), runs the
// handler and stores a 2xx response (status, Content-Type, body); any other
// outcome deletes the row so the key can be retried. A later request with the
// same key gets the stored response byte for byte with Idempotent-Replayed:
// true, or 409 idempotency_key_collision when its canonical body differs. A
// request that finds the key in progress waits for it (see
// Config.IdempotencyWait), then replays or, if the first failed, runs itself.
func (s *Server) idempotency(next echo.HandlerFunc) echo.HandlerFunc {
	idempotent := idempotentOperations(s.ops)
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		req := c.Request()
		p := principalFrom(req.Context())
		if !idempotent[op] || p == nil || req.Body == nil {
			return next(c)
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			if isBodyTooLarge(err) {
				return payloadTooLarge(s.cfg.MaxBodyBytes)
			}
			return newAPIError(http.StatusBadRequest, "invalid_json", "the request body could not be read")
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if len(bytes.TrimSpace(body)) == 0 {
			return next(c)
		}
		key, sum, err := canonicalHash(body)
		if err != nil || key == "" {
			return next(c) // validation has passed, so this is a body without a key
		}
		sc := store.IdempotencyScope{AccountID: p.AccountID, Mode: p.Mode, Endpoint: req.Method + " " + req.URL.Path, Key: key}
		owner := requestIDFrom(req.Context())
		if owner == "" {
			owner = store.NewID("req")
		}
		return s.idempotent(c, next, sc, sum[:], owner)
	}
}

func (s *Server) idempotent(c echo.Context, next echo.HandlerFunc, sc store.IdempotencyScope, hash []byte, owner string) error {
	ctx := c.Request().Context()
	deadline := time.Now().Add(s.cfg.IdempotencyWait.Limit)
	for {
		claimed, rec, err := s.claimIdempotencyKey(ctx, sc, hash, owner)
		if err != nil {
			return err
		}
		if claimed {
			return s.runRecorded(c, next, sc, owner)
		}
		if rec == nil && !time.Now().Before(deadline) {
			return keyInUse()
		}
		// Someone holds the key: wait until it is done, released or abandoned.
		for rec != nil {
			if !bytes.Equal(rec.RequestHash, hash) {
				return newAPIError(http.StatusConflict, "idempotency_key_collision",
					"this idempotencyKey was already used on this endpoint with a different request body; send a new key")
			}
			if rec.State == store.IdempotencyDone {
				return replay(c, *rec)
			}
			if rec.Committed == store.IdempotencyResponseLost {
				return responseLost()
			}
			if !time.Now().Before(deadline) {
				return keyInUse()
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(s.cfg.IdempotencyWait.Poll):
			}
			now := s.now()
			r, err := store.GetIdempotencyKey(ctx, s.store.R, sc, now.Add(-idempotencyRetention))
			switch {
			case errors.Is(err, store.ErrNotFound):
				rec = nil // released (the first request failed) or expired: claim it
			case err != nil:
				return err
			case r.State == store.IdempotencyInProgress && !r.Created().After(now.Add(-idempotencyAbandonAfter)) && r.Committed != store.IdempotencyNotCommitted:
				return responseLost() // its process died after committing: never run it again
			case r.State == store.IdempotencyInProgress && !r.Created().After(now.Add(-idempotencyAbandonAfter)):
				rec = nil // abandoned: the claim takes it over
			default:
				rec = &r
			}
		}
	}
}

// responseLost answers a retry whose first request created its resource but
// whose response could not be recorded (the request failed, or the process
// died, after the commit). Running it again would create the resource twice.
func responseLost() *apiError {
	return newAPIError(http.StatusConflict, "idempotency_response_lost",
		"a request with this idempotencyKey was processed, but its response was lost; list the resources to find what it created, and use a new key for a new request")
}

func keyInUse() *apiError {
	e := newAPIError(http.StatusConflict, "idempotency_key_in_use",
		"a request with this idempotencyKey is still in progress; retry in a moment")
	e.RetryAfter = 1
	return e
}

// claimIdempotencyKey inserts the in-progress row, or returns the row that
// holds the key. Expired and abandoned rows of the scope are dropped first.
func (s *Server) claimIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, hash []byte, owner string) (bool, *store.IdempotencyRecord, error) {
	var (
		claimed bool
		holder  *store.IdempotencyRecord
	)
	now := s.now()
	err := s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		err := store.ClaimIdempotencyKey(ctx, tx, sc, hash, owner, now, now.Add(-idempotencyRetention), now.Add(-idempotencyAbandonAfter))
		if errors.Is(err, store.ErrIdempotencyKeyTaken) {
			r, err := store.GetIdempotencyKey(ctx, tx, sc, now.Add(-idempotencyRetention))
			if errors.Is(err, store.ErrNotFound) {
				return nil // cannot happen in one transaction; the caller claims again
			}
			holder = &r
			return err
		}
		claimed = err == nil
		return err
	})
	return claimed, holder, err
}

// runRecorded runs the handler with its response teed into a recorder, then
// stores a 2xx response for replay or releases the key. A panic (answered
// 500 by recoverPanics) releases the key too. Both writes outlive a client
// that hung up, so a created resource is always recorded.
func (s *Server) runRecorded(c echo.Context, next echo.HandlerFunc, sc store.IdempotencyScope, owner string) error {
	ctx := context.WithoutCancel(c.Request().Context())
	res := c.Response()
	orig := res.Writer
	rec := &responseRecorder{ResponseWriter: orig}
	res.Writer = rec
	finished := false
	defer func() {
		res.Writer = orig
		if !finished {
			s.releaseIdempotencyKey(ctx, sc, owner)
		}
	}()
	c.SetRequest(c.Request().WithContext(withIdempotencyClaim(c.Request().Context(), &idempotencyClaim{scope: sc, owner: owner})))
	err := next(c)
	finished = true
	res.Writer = orig
	if err != nil || !res.Committed || rec.status < 200 || rec.status > 299 {
		s.releaseIdempotencyKey(ctx, sc, owner)
		return err
	}
	werr := s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		if s.cfg.failIdempotencyRecording {
			return errors.New("recording failure injected by a test")
		}
		return store.CompleteIdempotencyKey(ctx, tx, sc, owner, rec.status, rec.contentType, rec.body.Bytes(), s.now())
	})
	if werr != nil {
		s.log.ErrorContext(ctx, "recording an idempotent response", slog.String("request_id", requestIDFrom(ctx)),
			slog.String("endpoint", sc.Endpoint), slog.Any("error", werr))
		s.releaseIdempotencyKey(ctx, sc, owner)
	}
	return nil
}

func (s *Server) releaseIdempotencyKey(ctx context.Context, sc store.IdempotencyScope, owner string) {
	err := s.store.Tx(ctx, func(tx *sqlx.Tx) error { return store.ReleaseIdempotencyKey(ctx, tx, sc, owner) })
	if err != nil {
		s.log.ErrorContext(ctx, "releasing an idempotency key", slog.String("request_id", requestIDFrom(ctx)),
			slog.String("endpoint", sc.Endpoint), slog.Any("error", err))
	}
}

// replay answers with a stored response: same status, Content-Type and body bytes.
func replay(c echo.Context, rec store.IdempotencyRecord) error {
	res := c.Response()
	if rec.ContentType != "" {
		res.Header().Set("Content-Type", rec.ContentType)
	}
	res.Header().Set("Idempotent-Replayed", "true")
	res.WriteHeader(rec.Status)
	_, err := res.Write(rec.Body)
	return err
}

// responseRecorder passes a response through and keeps a copy of it.
type responseRecorder struct {
	http.ResponseWriter
	status      int
	contentType string
	body        bytes.Buffer
}

func (r *responseRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.contentType = r.Header().Get("Content-Type")
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *responseRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
		r.contentType = r.Header().Get("Content-Type")
	}
	n, err := r.ResponseWriter.Write(b)
	r.body.Write(b[:n])
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer (Flush).
func (r *responseRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// purgeIdempotencyKeys deletes the keys past their retention; the periodic
// job runs it. Lookups already ignore such keys, so the purge only frees space.
func (s *Server) purgeIdempotencyKeys(ctx context.Context) (int64, error) {
	return s.store.PurgeIdempotencyKeys(ctx, s.now().Add(-idempotencyRetention))
}

// purgeIdempotencyKeysArgs is the periodic purge job.
type purgeIdempotencyKeysArgs struct{}

func (purgeIdempotencyKeysArgs) Kind() string { return "purge_idempotency_keys" }

type purgeIdempotencyKeysWorker struct {
	river.WorkerDefaults[purgeIdempotencyKeysArgs]
	s *Server
}

func (w *purgeIdempotencyKeysWorker) Work(ctx context.Context, _ *river.Job[purgeIdempotencyKeysArgs]) error {
	n, err := w.s.purgeIdempotencyKeys(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		w.s.log.InfoContext(ctx, "purged expired idempotency keys", slog.Int64("deleted", n))
	}
	return nil
}

// registerIdempotencyWorkers adds the purge worker; registerWorkers calls it.
func (s *Server) registerIdempotencyWorkers(workers *river.Workers) {
	river.AddWorker(workers, &purgeIdempotencyKeysWorker{s: s})
}

// idempotencyPeriodicJobs schedules the purge hourly, and once at start.
func (s *Server) idempotencyPeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(idempotencyPurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return purgeIdempotencyKeysArgs{}, nil },
			&river.PeriodicJobOpts{ID: "purge_idempotency_keys", RunOnStart: true}),
	}
}

// idempotencyClaim is the key a request holds, so that writeTx can mark it
// committed in the transaction that creates the resource.
type idempotencyClaim struct {
	scope store.IdempotencyScope
	owner string
}

type idempotencyClaimKey struct{}

func withIdempotencyClaim(ctx context.Context, c *idempotencyClaim) context.Context {
	return context.WithValue(ctx, idempotencyClaimKey{}, c)
}

// markCommitted records in tx that the request's key has created its
// resource; each create calls it in the transaction that creates it.
func markCommitted(ctx context.Context, tx *sqlx.Tx) error {
	c, _ := ctx.Value(idempotencyClaimKey{}).(*idempotencyClaim)
	if c == nil {
		return nil
	}
	if err := store.MarkIdempotencyCommitted(ctx, tx, c.scope, c.owner); err != nil {
		return fmt.Errorf("idempotency key %q: %w", c.scope.Key, err)
	}
	return nil
}
