package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
	"github.com/shipd-dev/shipd/webhooks/signature"
)

// Which addresses test-mode deliveries may reach (WebhookDeliveryConfig.TestTargets).
// Live mode only ever reaches public addresses.
const (
	// TestTargetsLoopback allows public addresses and loopback, so a developer
	// (and the tests) can receive on 127.0.0.1; private networks, link-local
	// and cloud metadata addresses stay blocked.
	TestTargetsLoopback = "loopback"
	// TestTargetsPublic treats test mode like live mode.
	TestTargetsPublic = "public"
	// TestTargetsAny lets test mode reach every address; for development only.
	TestTargetsAny = "any"
)

// WebhookDeliveryConfig tunes webhook delivery (VARIANTS.md: delivery semantics Variant A).
type WebhookDeliveryConfig struct {
	// RetrySchedule is the wait after failed attempt n before attempt n+1
	// (entry n-1; the last entry repeats). Default 1m, 5m, 25m, 2h, 12h.
	RetrySchedule []time.Duration
	// MaxAttempts is the number of automatic attempts before a delivery is failed. Default 5.
	MaxAttempts int
	// Timeout bounds one attempt, from dial to the end of the response. Default 10 s.
	Timeout time.Duration
	// Concurrency is the number of deliveries sent at once when Queue is a
	// queue of its own (see Queue). Default 8.
	Concurrency int
	// MaxResponseBodyBytes is how much of a receiver's response body is read (and discarded). Default 64 KiB.
	MaxResponseBodyBytes int64
	// Queue is the River queue delivery jobs go to; default "webhooks", a
	// queue of its own with Concurrency workers (Setup configures it).
	Queue string
	// TestTargets says which addresses test-mode deliveries may reach:
	// TestTargetsLoopback (default), TestTargetsPublic or TestTargetsAny.
	TestTargets string

	// The clients, one per mode, built by setDefaults.
	liveClient, testClient *http.Client
}

func (c *WebhookDeliveryConfig) setDefaults() {
	if len(c.RetrySchedule) == 0 {
		c.RetrySchedule = []time.Duration{time.Minute, 5 * time.Minute, 25 * time.Minute, 2 * time.Hour, 12 * time.Hour}
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Timeout <= 0 {
		c.Timeout = webhooks.DefaultClientTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 32
	}
	if c.MaxResponseBodyBytes <= 0 {
		c.MaxResponseBodyBytes = 64 << 10
	}
	if c.Queue == "" {
		c.Queue = "webhooks"
	}
	switch c.TestTargets {
	case TestTargetsLoopback, TestTargetsPublic, TestTargetsAny:
	case "":
		c.TestTargets = TestTargetsLoopback
	default:
		c.TestTargets = TestTargetsPublic // an unknown value gets the safe one
	}
	if c.liveClient == nil {
		c.liveClient = webhooks.NewHTTPClient(webhooks.ClientOptions{Timeout: c.Timeout})
	}
	if c.testClient == nil {
		c.testClient = newTestModeClient(c.TestTargets, c.Timeout)
	}
}

// retryOffset is the wait after failed automatic attempt n.
func (c *WebhookDeliveryConfig) retryOffset(n int) time.Duration {
	return c.RetrySchedule[min(n, len(c.RetrySchedule))-1]
}

// newTestModeClient builds the test-mode client. webhooks.NewHTTPClient knows
// "everything public" and "everything"; loopback-only-extra is its client with
// the dialer's guard swapped for one that also lets loopback through.
func newTestModeClient(targets string, timeout time.Duration) *http.Client {
	switch targets {
	case TestTargetsAny:
		return webhooks.NewHTTPClient(webhooks.ClientOptions{AllowPrivate: true, Timeout: timeout})
	case TestTargetsLoopback:
		c := webhooks.NewHTTPClient(webhooks.ClientOptions{AllowPrivate: true, Timeout: timeout})
		if tr, ok := c.Transport.(*http.Transport); ok {
			d := &net.Dialer{Timeout: min(timeout, 5*time.Second), KeepAlive: 30 * time.Second, Control: publicOrLoopback}
			tr.DialContext = d.DialContext
			return c
		}
	}
	return webhooks.NewHTTPClient(webhooks.ClientOptions{Timeout: timeout}) // fail closed
}

// publicOrLoopback is a net.Dialer Control function: the webhooks package's
// guard, except that loopback is allowed.
func publicOrLoopback(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", webhooks.ErrForbiddenAddress, address)
	}
	ip := ap.Addr().WithZone("").Unmap()
	if !ip.IsLoopback() && webhooks.IsForbiddenIP(ip) {
		return fmt.Errorf("%w: %s is neither public nor loopback", webhooks.ErrForbiddenAddress, ip)
	}
	return nil
}

func (s *Server) deliveryClient(mode string) *http.Client {
	if mode == "test" {
		return s.cfg.Webhooks.testClient
	}
	return s.cfg.Webhooks.liveClient
}

// deliveryArgs makes automatic attempt Attempt (from 1) of a delivery. Each
// attempt is its own unique job, inserted with the record of the attempt
// before it, so the schedule is ours and survives restarts.
type deliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
	Attempt    int    `json:"attempt"`
}

func (deliveryArgs) Kind() string { return "webhook_delivery" }

// InsertOpts makes each attempt unique, so a retried insert never doubles an attempt.
func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// redeliveryArgs makes a manual attempt: the retry endpoint's, or the test
// event's. Request is the nonce stored on the delivery when it was asked for.
type redeliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
	Request    string `json:"request"`
}

func (redeliveryArgs) Kind() string { return "webhook_redelivery" }

type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	s *Server
}

func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	return w.s.attemptDelivery(ctx, job.Args.DeliveryID, job.Args.Attempt, "")
}

// Timeout leaves the HTTP client's own time-out to end a slow attempt.
func (w *deliveryWorker) Timeout(*river.Job[deliveryArgs]) time.Duration {
	return w.s.cfg.Webhooks.Timeout + 30*time.Second
}

type redeliveryWorker struct {
	river.WorkerDefaults[redeliveryArgs]
	s *Server
}

func (w *redeliveryWorker) Work(ctx context.Context, job *river.Job[redeliveryArgs]) error {
	return w.s.attemptDelivery(ctx, job.Args.DeliveryID, 0, job.Args.Request)
}

func (w *redeliveryWorker) Timeout(*river.Job[redeliveryArgs]) time.Duration {
	return w.s.cfg.Webhooks.Timeout + 30*time.Second
}

func (s *Server) registerDeliveryWorkers(workers *river.Workers) {
	river.AddWorker(workers, &deliveryWorker{s: s})
	river.AddWorker(workers, &redeliveryWorker{s: s})
}

// subscribedTo reports whether a subscription's events select eventType.
func subscribedTo(sub store.Subscription, eventType string) bool {
	for _, e := range sub.Events() {
		if e == "*" || e == eventType {
			return true
		}
	}
	return false
}

// enqueueDeliveries queues one delivery of ev per matching subscription, in the event's transaction.
func (s *Server) enqueueDeliveries(ctx context.Context, tx *sqlx.Tx, ev store.Event) error {
	subs, err := store.DeliverableSubscriptions(ctx, tx, ev.AccountID, ev.Mode)
	if err != nil {
		return err
	}
	var jobs []river.InsertManyParams
	for _, sub := range subs {
		if !subscribedTo(sub, ev.Type) {
			continue
		}
		due := ev.CreatedAt
		d := store.Delivery{ID: store.NewID("dlv"), SubscriptionID: sub.ID, AccountID: ev.AccountID, Mode: ev.Mode,
			EventID: ev.ID, EventType: ev.Type, Status: store.DeliveryPending, NextAttemptAt: &due,
			CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt}
		inserted, err := store.InsertDelivery(ctx, tx, &d)
		if err != nil {
			return err
		}
		if !inserted {
			continue
		}
		jobs = append(jobs, river.InsertManyParams{Args: deliveryArgs{DeliveryID: d.ID, Attempt: 1},
			InsertOpts: &river.InsertOpts{Queue: s.cfg.Webhooks.Queue}})
	}
	if len(jobs) == 0 {
		return nil
	}
	// One statement for every subscription's job: the writer is held once, not once per subscription.
	_, err = s.jobs.InsertManyTx(ctx, tx.Tx, jobs)
	return err
}

// queueManualAttempt asks for one attempt of d now (retry endpoint, test
// event): the nonce goes on the delivery, which must then be written, and
// into the job, in the caller's transaction.
func (s *Server) queueManualAttempt(ctx context.Context, tx *sqlx.Tx, d *store.Delivery, now time.Time) error {
	nonce := store.NewID("req")
	d.RetryRequest, d.RetryRequestedAt = &nonce, &now
	d.Status, d.UpdatedAt = store.DeliveryPending, now
	_, err := s.jobs.InsertTx(ctx, tx.Tx, redeliveryArgs{DeliveryID: d.ID, Request: nonce},
		&river.InsertOpts{Queue: s.cfg.Webhooks.Queue})
	return err
}

// envelope is the delivered body (VARIANTS.md: Event envelope).
type envelope struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	APIVersion string          `json:"apiVersion"`
	CreatedAt  time.Time       `json:"createdAt"`
	Data       json.RawMessage `json:"data"`
}

// deliveryBody builds the envelope of a delivery's event, once per attempt.
func (s *Server) deliveryBody(ctx context.Context, d store.Delivery) ([]byte, error) {
	env := envelope{ID: d.EventID, Type: d.EventType, APIVersion: apiVersion, CreatedAt: d.CreatedAt}
	if d.EventData != nil {
		env.Data = json.RawMessage(*d.EventData)
	} else {
		ev, err := store.EventByID(ctx, s.store.R, d.EventID)
		if err != nil {
			return nil, fmt.Errorf("event %s of delivery %s: %w", d.EventID, d.ID, err)
		}
		env.APIVersion, env.CreatedAt, env.Data = ev.APIVersion, ev.CreatedAt, json.RawMessage(ev.Data)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // data goes out as stored
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// attemptOutcome is what one attempt came to.
type attemptOutcome struct {
	attemptedAt time.Time
	status      *int
	latencyMs   int64
	err         string
	delivered   bool
	retryable   bool
}

// attemptDelivery makes one attempt: automatic attempt auto (>0) or the
// manual attempt with nonce request. A job that finds its attempt already
// recorded, or no longer wanted, does nothing, so a job run twice after a
// crash sends at most one extra copy (delivery is at least once) and records once.
func (s *Server) attemptDelivery(ctx context.Context, id string, auto int, request string) error {
	d, err := store.GetDelivery(ctx, s.store.R, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !s.attemptWanted(d, auto, request) {
		return nil
	}
	sub, err := store.SubscriptionByID(ctx, s.store.R, d.SubscriptionID)
	if err != nil {
		return err
	}
	switch {
	case sub.RevokedAt != nil:
		return s.endWithoutSending(ctx, id, auto, request, "subscription deleted")
	case auto > 0 && !sub.Enabled:
		// Pause stops automatic traffic: a retry that falls due while paused is dropped.
		return s.endWithoutSending(ctx, id, auto, request, "subscription paused when the attempt was due")
	}
	secret, err := s.cfg.WebhookCipher.Decrypt(sub.SecretCiphertext)
	if err != nil {
		s.log.ErrorContext(ctx, "webhook secret", slog.String("subscription_id", sub.ID), slog.Any("error", err))
		return s.endWithoutSending(ctx, id, auto, request, "the signing secret cannot be decrypted (server key changed)")
	}
	body, err := s.deliveryBody(ctx, d)
	if err != nil {
		return err
	}
	out := s.send(ctx, s.deliveryClient(sub.Mode), sub.URL, d, secret, body)
	if !out.delivered && ctx.Err() != nil {
		// The server is stopping (or the job timed out): not the receiver's
		// failure. Nothing is recorded and River runs the job again.
		return fmt.Errorf("delivery %s interrupted: %w", id, ctx.Err())
	}
	// A response is a fact worth keeping even while shutting down.
	return s.recordAttempt(context.WithoutCancel(ctx), id, auto, request, out)
}

func (s *Server) attemptWanted(d store.Delivery, auto int, request string) bool {
	if auto > 0 {
		return d.Status == store.DeliveryPending && d.NextAttemptAt != nil && d.AutoAttempts < auto
	}
	return d.RetryRequest != nil && *d.RetryRequest == request
}

// send makes the HTTP request; the body signed is the body sent.
func (s *Server) send(ctx context.Context, client *http.Client, url string, d store.Delivery, secret string, body []byte) attemptOutcome {
	out := attemptOutcome{attemptedAt: s.now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		out.err = "invalid URL: " + err.Error()
		return out
	}
	// The timestamp is real time, not s.now(): receivers check it against their clock.
	ts := time.Now()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "shipd-webhooks/1")
	req.Header.Set(signature.HeaderEvent, d.EventType)
	req.Header.Set(signature.HeaderEventID, d.EventID)
	req.Header.Set(signature.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(signature.HeaderSignature, signature.Sign(secret, ts, body))
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		out.latencyMs = time.Since(start).Milliseconds()
		out.err = store.TruncateError(err.Error())
		// A forbidden address stays forbidden: no retry.
		out.retryable = !errors.Is(err, webhooks.ErrForbiddenAddress)
		return out
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, s.cfg.Webhooks.MaxResponseBodyBytes))
	_ = res.Body.Close()
	out.latencyMs = time.Since(start).Milliseconds()
	code := res.StatusCode
	out.status = &code
	switch {
	case code >= 200 && code < 300:
		out.delivered = true
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooManyRequests:
		out.retryable = true
		out.err = "the receiver answered " + res.Status + "; retried"
	default:
		out.err = "the receiver answered " + res.Status + "; not retried (only 5xx, 408 and 429 are)"
	}
	return out
}

// recordAttempt stores an attempt and its consequence, and queues the next
// automatic attempt in the same transaction.
func (s *Server) recordAttempt(ctx context.Context, id string, auto int, request string, out attemptOutcome) error {
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		d, err := store.GetDelivery(ctx, tx, id)
		if err != nil {
			return err
		}
		if auto > 0 && d.AutoAttempts >= auto || auto == 0 && (d.RetryRequest == nil || *d.RetryRequest != request) {
			return nil // recorded already
		}
		sub, err := store.SubscriptionByID(ctx, tx, d.SubscriptionID)
		if err != nil {
			return err
		}
		a := store.DeliveryAttempt{DeliveryID: id, AttemptedAt: out.attemptedAt, ResponseStatus: out.status, LatencyMs: out.latencyMs}
		if out.err != "" {
			a.Error = &out.err
		}
		if auto > 0 {
			a.AutoAttempt = &auto
		}
		if err := store.InsertDeliveryAttempt(ctx, tx, &a); err != nil {
			return err
		}
		d.Attempts++
		d.UpdatedAt = s.now()
		d.LastError = a.Error
		// chainLive: automatic attempts were still wanted when this one was recorded.
		chainLive := d.NextAttemptAt != nil
		if auto > 0 {
			d.AutoAttempts = auto
		} else {
			d.RetryRequest, d.RetryRequestedAt = nil, nil
		}
		switch {
		case out.delivered:
			d.Status, d.NextAttemptAt = store.DeliveryDelivered, nil
		case auto > 0 && !chainLive:
			// Cancelled or superseded while in flight: the attempt is logged, the state stays.
		case auto > 0 && out.retryable && auto < s.cfg.Webhooks.MaxAttempts && sub.RevokedAt == nil && sub.Enabled:
			wait := s.cfg.Webhooks.retryOffset(auto)
			next := out.attemptedAt.Add(wait)
			d.Status, d.NextAttemptAt = store.DeliveryPending, &next
			if _, err := s.jobs.InsertTx(ctx, tx.Tx, deliveryArgs{DeliveryID: id, Attempt: auto + 1},
				&river.InsertOpts{Queue: s.cfg.Webhooks.Queue, ScheduledAt: time.Now().Add(wait)}); err != nil {
				return err
			}
		case auto > 0:
			d.NextAttemptAt = nil
			d.Status = store.DeliveryFailed
			if d.RetryRequest != nil {
				d.Status = store.DeliveryPending // a manual attempt is still queued
			}
		default: // a manual attempt failed
			d.Status = store.DeliveryFailed
			if chainLive {
				d.Status = store.DeliveryPending // automatic retries continue
			}
		}
		return store.UpdateDelivery(ctx, tx, &d)
	})
}

// endWithoutSending ends an attempt that must not be sent (deleted or paused
// subscription): nothing is logged as an attempt; the reason is kept.
func (s *Server) endWithoutSending(ctx context.Context, id string, auto int, request, reason string) error {
	return s.store.Tx(ctx, func(tx *sqlx.Tx) error {
		d, err := store.GetDelivery(ctx, tx, id)
		if err != nil {
			return err
		}
		if !s.attemptWanted(d, auto, request) {
			return nil
		}
		if auto > 0 {
			d.NextAttemptAt = nil
		} else {
			d.RetryRequest, d.RetryRequestedAt = nil, nil
		}
		if d.NextAttemptAt == nil && d.RetryRequest == nil {
			d.Status = store.DeliveryFailed
		}
		d.LastError, d.UpdatedAt = &reason, s.now()
		return store.UpdateDelivery(ctx, tx, &d)
	})
}
