package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks/signature"
)

// ErrDeliveryInProgress: a manual attempt of the delivery is already queued.
var ErrDeliveryInProgress = errors.New("a manual attempt of this delivery is already queued; wait for its outcome")

// Delivery is one event on its way to one subscription, with every attempt.
type Delivery struct {
	ID             string
	SubscriptionID string
	EventID        string
	EventType      string
	Status         DeliveryStatus
	Attempts       int
	// AutomaticAttempts counts the automatic attempts made, of at most MaxAttempts.
	AutomaticAttempts int
	CreatedAt         time.Time
	// NextAttemptAt is the queued manual attempt's time, else the next automatic attempt's.
	NextAttemptAt *time.Time
	Log           []Attempt
}

// Attempt is one HTTP request of a delivery, as it went.
type Attempt struct {
	AttemptedAt    time.Time
	ResponseStatus *int
	LatencyMs      int64
	Error          *string
	// AutomaticAttempt is the automatic attempt's number; nil for a manual attempt.
	AutomaticAttempt *int
	// ResponseExcerpt is the start of the response body (ResponseExcerptBytes at most).
	ResponseExcerpt *string
}

// ResponseExcerptBytes is how much of a receiver's response body the
// delivery log keeps: enough to recognise an error page.
const ResponseExcerptBytes = 200

// attemptArgs makes automatic attempt Attempt (from 1) of a delivery. Each
// attempt is its own unique job, inserted with the record of the attempt
// before it, so the schedule is ours and survives restarts.
type attemptArgs struct {
	DeliveryID string `json:"delivery_id"`
	Attempt    int    `json:"attempt"`
}

func (attemptArgs) Kind() string { return "webhook_delivery" }

// InsertOpts makes each attempt unique, so a retried insert never doubles an attempt.
func (attemptArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// manualArgs makes a manual attempt: the retry endpoint's, or the test
// event's. Request is the nonce stored on the delivery when it was asked for.
type manualArgs struct {
	DeliveryID string `json:"delivery_id"`
	Request    string `json:"request"`
}

func (manualArgs) Kind() string { return "webhook_redelivery" }

// fanOutArgs makes the first automatic attempt of every delivery of an
// event, together: one job per event rather than one per subscription, whose
// outcomes are recorded in groups (attempts), so a fan-out costs the
// database a few statements instead of a few per subscription. Each later
// attempt of a delivery is its own attemptArgs job.
type fanOutArgs struct {
	EventID     string   `json:"event_id"`
	DeliveryIDs []string `json:"delivery_ids"`
}

func (fanOutArgs) Kind() string { return "webhook_fan_out" }

func (s *Service) attemptJob(deliveryID string, attempt int, at time.Time) river.InsertManyParams {
	opts := &river.InsertOpts{Queue: s.cfg.Queue}
	if !at.IsZero() {
		// at is a time of the service's clock; the job's schedule is in
		// River's time base (Config.JobNow), the same distance ahead.
		opts.ScheduledAt = s.jobNow().Add(at.Sub(s.now()))
	}
	return river.InsertManyParams{Args: attemptArgs{DeliveryID: deliveryID, Attempt: attempt}, InsertOpts: opts}
}

type attemptWorker struct {
	river.WorkerDefaults[attemptArgs]
	s *Service
}

func (w *attemptWorker) Work(ctx context.Context, job *river.Job[attemptArgs]) error {
	return w.s.attempt(ctx, job.Args.DeliveryID, job.Args.Attempt, "")
}

// Timeout leaves the HTTP client's own time-out to end a slow attempt.
func (w *attemptWorker) Timeout(*river.Job[attemptArgs]) time.Duration {
	return w.s.cfg.Timeout + 30*time.Second
}

type fanOutWorker struct {
	river.WorkerDefaults[fanOutArgs]
	s *Service
}

func (w *fanOutWorker) Work(ctx context.Context, job *river.Job[fanOutArgs]) error {
	return w.s.attempts(ctx, job.Args.DeliveryIDs, 1, "")
}

// Timeout: none. Each send is bounded by the HTTP client's own time-out, but
// a send may first wait for a free slot behind other jobs' slow receivers; a
// job time-out would count that wait, and a fan-out timed out often enough
// would be discarded with its deliveries never attempted.
func (w *fanOutWorker) Timeout(*river.Job[fanOutArgs]) time.Duration {
	return -1
}

type manualWorker struct {
	river.WorkerDefaults[manualArgs]
	s *Service
}

func (w *manualWorker) Work(ctx context.Context, job *river.Job[manualArgs]) error {
	return w.s.attempt(ctx, job.Args.DeliveryID, 0, job.Args.Request)
}

func (w *manualWorker) Timeout(*river.Job[manualArgs]) time.Duration {
	return w.s.cfg.Timeout + 30*time.Second
}

// RegisterWorkers adds the delivery workers.
func (s *Service) RegisterWorkers(w *river.Workers) {
	river.AddWorker(w, &attemptWorker{s: s})
	river.AddWorker(w, &fanOutWorker{s: s})
	river.AddWorker(w, &manualWorker{s: s})
}

// stateOf is what the retry rule reads of a stored delivery.
func stateOf(d store.Delivery) deliveryState {
	s := deliveryState{Status: DeliveryStatus(d.Status), AutoAttempts: d.AutoAttempts, NextAttemptAt: d.NextAttemptAt}
	if d.RetryRequest != nil {
		s.ManualRequest = *d.RetryRequest
	}
	return s
}

// setState writes what the rule decided onto a stored delivery, which the
// caller then writes; requestedAt is when a newly queued manual attempt was asked for.
func setState(d *store.Delivery, s deliveryState, requestedAt time.Time) {
	d.Status, d.AutoAttempts, d.NextAttemptAt = string(s.Status), s.AutoAttempts, s.NextAttemptAt
	switch {
	case s.ManualRequest == "":
		d.RetryRequest, d.RetryRequestedAt = nil, nil
	case d.RetryRequest == nil || *d.RetryRequest != s.ManualRequest:
		nonce := s.ManualRequest
		d.RetryRequest, d.RetryRequestedAt = &nonce, &requestedAt
	}
}

func (s *Service) policy() retryPolicy {
	return retryPolicy{MaxAttempts: s.cfg.MaxAttempts, Schedule: s.cfg.RetrySchedule}
}

// attempt makes one attempt of one delivery (see attempts).
func (s *Service) attempt(ctx context.Context, id string, auto int, request string) error {
	return s.attempts(ctx, []string{id}, auto, request)
}

// attemptResult is one delivery's attempt on its way to its record: err is
// set when it was interrupted and must not be recorded.
type attemptResult struct {
	id  string
	out attemptOutcome
	res sendResult
	err error
}

// attempts makes automatic attempt auto (>0), or the manual attempt with
// nonce request, of each delivery of ids: the receivers are called at once,
// and the outcomes are recorded in groups as they come in, each group one
// transaction, so an event's fan-out costs one transaction or a few rather
// than one per subscription, and a slow receiver delays only its own record.
// Delivery is at least once: a job run twice after a crash may send one
// extra copy, but records each attempt once.
func (s *Service) attempts(ctx context.Context, ids []string, auto int, request string) error {
	ds, err := s.store.DeliveriesToSend(ctx, ids)
	if err != nil {
		return err
	}
	var (
		errs     []error
		unsent   []attemptResult
		results  = make(chan attemptResult, len(ds))
		inFlight int
		bodies   = map[string][]byte{} // an event's body, the same to every subscription
	)
	for _, d := range ds {
		if !wanted(stateOf(d.Delivery), auto, request) {
			continue
		}
		sub := d.Subscription
		out := attemptOutcome{Auto: auto, Request: request, At: s.now(), SubscriptionActive: sub.RevokedAt == nil && sub.Enabled}
		switch {
		case sub.RevokedAt != nil:
			out.Reason = "not sent: the subscription was deleted"
			unsent = append(unsent, attemptResult{id: d.ID, out: out})
			continue
		case auto > 0 && !sub.Enabled:
			// Pause stops automatic traffic: a retry that falls due while paused is dropped.
			out.Reason = "not sent: the subscription was paused when the attempt was due"
			unsent = append(unsent, attemptResult{id: d.ID, out: out})
			continue
		}
		secret, err := s.cipher.Decrypt(sub.SecretCiphertext)
		if err != nil {
			s.log.ErrorContext(ctx, "webhook secret", slog.String("subscription_id", sub.ID), slog.Any("error", err))
			out.Reason = "not sent: the signing secret cannot be decrypted (the server key changed)"
			unsent = append(unsent, attemptResult{id: d.ID, out: out})
			continue
		}
		key := "event:" + d.EventID
		if d.EventData != nil {
			key = "delivery:" + d.ID
		}
		body, ok := bodies[key]
		if !ok {
			if body, err = envelopeOf(d); err != nil {
				errs = append(errs, err)
				continue
			}
			bodies[key] = body
		}
		inFlight++
		go func() { results <- s.sendOne(ctx, d, secret, body, out) }()
	}
	if len(unsent) > 0 {
		if err := s.record(ctx, unsent); err != nil {
			errs = append(errs, err)
		}
	}
	for inFlight > 0 {
		// The outcomes that arrive within RecordWindow of a group's first
		// are recorded with it; those arriving later or during its
		// transaction make the next group. Receivers that answer together
		// (the usual case) cost one transaction, and a slow one delays the
		// others' record by at most the window.
		group := []attemptResult{<-results}
		inFlight--
		window := time.NewTimer(s.cfg.RecordWindow)
	more:
		for inFlight > 0 {
			select {
			case r := <-results:
				group = append(group, r)
				inFlight--
			case <-window.C:
				break more
			}
		}
		window.Stop()
		var done []attemptResult
		for _, r := range group {
			if r.err != nil {
				errs = append(errs, r.err)
				continue
			}
			done = append(done, r)
		}
		if len(done) > 0 {
			// A response is a fact worth keeping even while shutting down.
			if err := s.record(context.WithoutCancel(ctx), done); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// sendOne sends one delivery once a sending slot is free (at most
// Concurrency deliveries are in flight, whichever jobs they belong to).
func (s *Service) sendOne(ctx context.Context, d store.DeliveryToSend, secret string, body []byte, out attemptOutcome) attemptResult {
	r := attemptResult{id: d.ID, out: out}
	select {
	case s.sending <- struct{}{}:
		defer func() { <-s.sending }()
	case <-ctx.Done():
		r.err = fmt.Errorf("delivery %s interrupted: %w", d.ID, ctx.Err())
		return r
	}
	sendCtx, done := observerFrom(ctx).AttemptStarted(ctx, d.EventType, out.Auto)
	res := s.send(sendCtx, s.client(d.Subscription.Mode), d.Subscription.URL, d.Delivery, secret, body)
	status := 0
	if res.status != nil {
		status = *res.status
	}
	done(status, res.delivered)
	if !res.delivered && ctx.Err() != nil {
		// The server is stopping (or the job timed out): not the receiver's
		// failure. Nothing is recorded and River runs the job again.
		r.err = fmt.Errorf("delivery %s interrupted: %w", d.ID, ctx.Err())
		return r
	}
	r.out.Sent, r.out.Delivered, r.out.Retryable, r.out.At = true, res.delivered, res.retryable, res.attemptedAt
	r.res = res
	return r
}

// envelope is the delivered body (VARIANTS.md: Event envelope).
type envelope struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	APIVersion string          `json:"apiVersion"`
	CreatedAt  time.Time       `json:"createdAt"`
	Data       json.RawMessage `json:"data"`
}

// envelopeOf builds the body of a delivery's event, once per attempt.
func envelopeOf(d store.DeliveryToSend) ([]byte, error) {
	env := envelope{ID: d.EventID, Type: d.EventType, APIVersion: APIVersion, CreatedAt: d.CreatedAt}
	switch {
	case d.EventData != nil:
		env.Data = json.RawMessage(*d.EventData)
	case d.EventRecord == nil || d.EventAPIVersion == nil || d.EventCreatedAt == nil:
		return nil, fmt.Errorf("event %s of delivery %s: %w", d.EventID, d.ID, store.ErrNotFound)
	default:
		env.APIVersion, env.CreatedAt, env.Data = *d.EventAPIVersion, *d.EventCreatedAt, withObject(d.EventType, json.RawMessage(*d.EventRecord))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // data goes out as stored
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sendResult is what the HTTP exchange came to.
type sendResult struct {
	attemptedAt time.Time
	status      *int
	latencyMs   int64
	// problem describes a failure (network error or non-2xx answer).
	problem   string
	delivered bool
	retryable bool
	// excerpt is the start of the response body, nil when it had none.
	excerpt *string
}

// send makes the HTTP request; the body signed is the body sent.
func (s *Service) send(ctx context.Context, client *http.Client, url string, d store.Delivery, secret string, body []byte) sendResult {
	out := sendResult{attemptedAt: s.now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		out.problem = "invalid URL: " + err.Error()
		return out
	}
	// The timestamp is real time, not the service clock: receivers check it against their clock.
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
		out.problem = err.Error()
		// A forbidden address stays forbidden: no retry.
		out.retryable = !errors.Is(err, ErrForbiddenAddress)
		return out
	}
	out.excerpt = readExcerpt(res.Body, s.cfg.MaxResponseBodyBytes)
	_ = res.Body.Close()
	out.latencyMs = time.Since(start).Milliseconds()
	code := res.StatusCode
	out.status = &code
	switch {
	case code >= 200 && code < 300:
		out.delivered = true
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusTooManyRequests:
		out.retryable = true
		out.problem = "the receiver answered " + res.Status
	default:
		out.problem = "the receiver answered " + res.Status
	}
	return out
}

// readExcerpt reads a response body, at most limit bytes of it (so the
// connection can be reused), and keeps its first ResponseExcerptBytes as
// valid UTF-8: a character cut at the end, or bytes that are not text, are
// dropped. nil when the body is empty.
func readExcerpt(body io.Reader, limit int64) *string {
	head := make([]byte, ResponseExcerptBytes)
	n, _ := io.ReadFull(io.LimitReader(body, min(limit, ResponseExcerptBytes)), head)
	_, _ = io.Copy(io.Discard, io.LimitReader(body, limit-int64(n)))
	excerpt := strings.ToValidUTF8(string(head[:n]), "")
	if excerpt == "" {
		return nil
	}
	return &excerpt
}

// record stores attempts (except those dropped unsent) and their
// consequences, and queues the next automatic attempts, in one transaction
// shared with the records of other jobs that are waiting for one
// (recorder.go).
func (s *Service) record(ctx context.Context, rs []attemptResult) error {
	return s.recorder.record(ctx, rs, s.recordTx)
}

// recorded is what the metrics learn of a recorded attempt: rs[i]'s.
type recorded struct {
	i          int
	outcome    string
	auto       int
	sinceEvent time.Duration
}

// recordTx is record of rs in a transaction of its own; it returns what
// the metrics are told once it committed.
func (s *Service) recordTx(ctx context.Context, rs []attemptResult) ([]recorded, error) {
	var seen []recorded
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	err := s.store.Tx(ctx, func(tx *store.Tx) error {
		seen = seen[:0]
		locked, err := tx.LockDeliveries(ctx, ids)
		if err != nil {
			return err
		}
		byID := make(map[string]store.SubscribedDelivery, len(locked))
		for _, l := range locked {
			byID[l.ID] = l
		}
		var (
			rows     []*store.Delivery
			attempts []*store.DeliveryAttempt
			jobs     []river.InsertManyParams
		)
		for i, r := range rs {
			l, ok := byID[r.id]
			if !ok {
				continue // gone with its account
			}
			d, out, res := l.Delivery, r.out, r.res
			if !recordable(stateOf(d), out) {
				continue // recorded already, or no longer wanted
			}
			// Whether retries may continue is decided on the subscription as it is
			// now: it may have been paused or deleted while the attempt was in flight.
			sub := l.Subscription
			out.SubscriptionActive = sub.RevokedAt == nil && sub.Enabled
			t := next(stateOf(d), out, s.policy())
			rec := recorded{i: i, outcome: attemptOutcomeOf(out, res, t), auto: out.Auto}
			if res.delivered {
				rec.sinceEvent = res.attemptedAt.Add(time.Duration(res.latencyMs) * time.Millisecond).Sub(d.CreatedAt)
			}
			seen = append(seen, rec)
			setState(&d, t.State, time.Time{})
			d.UpdatedAt = s.now()
			rows = append(rows, &d)
			if !out.Sent {
				d.LastError = &out.Reason
				continue
			}
			a := store.DeliveryAttempt{DeliveryID: d.ID, AttemptedAt: res.attemptedAt, ResponseStatus: res.status, LatencyMs: res.latencyMs, ResponseExcerpt: res.excerpt}
			if !res.delivered {
				msg := store.TruncateError(res.problem + "; " + t.Note)
				a.Error = &msg
			}
			if out.Auto > 0 {
				a.AutoAttempt = &out.Auto
			}
			attempts = append(attempts, &a)
			d.Attempts++
			d.LastError = a.Error
			if t.ScheduleAuto > 0 {
				// The job is due when the rule says the attempt is, by the service's clock.
				jobs = append(jobs, s.attemptJob(d.ID, t.ScheduleAuto, *t.State.NextAttemptAt))
			}
		}
		if err := tx.InsertDeliveryAttempts(ctx, attempts); err != nil {
			return err
		}
		if len(jobs) > 0 {
			if err := tx.Enqueue(ctx, jobs...); err != nil {
				return err
			}
		}
		return tx.UpdateDeliveries(ctx, rows)
	})
	if err != nil {
		return nil, err
	}
	return seen, nil
}

// queueManual asks for one attempt of d now (retry endpoint, test event):
// the nonce goes on the delivery, which the caller then writes, and into the
// job, in the caller's transaction.
func (s *Service) queueManual(ctx context.Context, tx *store.Tx, d *store.Delivery, now time.Time) error {
	nonce := store.NewID("req")
	st, err := requestManual(stateOf(*d), nonce)
	if err != nil {
		return err
	}
	setState(d, st, now)
	d.UpdatedAt = now
	return tx.Enqueue(ctx, river.InsertManyParams{Args: manualArgs{DeliveryID: d.ID, Request: nonce},
		InsertOpts: &river.InsertOpts{Queue: s.cfg.Queue}})
}

// SendTest queues a signed webhook.test event to this endpoint only. The test
// event is not in the event history: it exists only as this delivery. It is
// attempted once, as a manual attempt (no automatic retries; use Retry), and
// it is sent even while the subscription is paused, since someone asked for it.
func (s *Service) SendTest(ctx context.Context, c accounts.Caller, id string) (Delivery, error) {
	var d store.Delivery
	err := s.write(ctx, c, func(tx *store.Tx) error {
		sub, err := find(ctx, tx, c, id)
		if err != nil {
			return err
		}
		raw, err := json.Marshal(map[string]string{"message": "test event from shipd", "subscriptionId": sub.ID})
		if err != nil {
			return err
		}
		data := string(raw)
		now := s.now()
		d = store.Delivery{ID: store.NewID("dlv"), SubscriptionID: sub.ID, AccountID: sub.AccountID, Mode: sub.Mode,
			EventID: store.NewID("evt"), EventType: EventTest, EventData: &data, CreatedAt: now}
		if err := s.queueManual(ctx, tx, &d, now); err != nil {
			return err
		}
		_, err = tx.InsertDelivery(ctx, &d)
		return err
	})
	return deliveryOf(d, nil), err
}

// Deliveries pages through a subscription's deliveries, newest first, each with every attempt.
func (s *Service) Deliveries(ctx context.Context, c accounts.Caller, id string, p paging.Request) ([]Delivery, bool, error) {
	sub, err := find(ctx, s.store, c, id)
	if err != nil {
		return nil, false, err
	}
	rows, more, err := s.store.ListDeliveries(ctx, c.AccountID, sub.ID, p)
	if err != nil {
		return nil, false, err
	}
	ids := make([]string, len(rows))
	for i, d := range rows {
		ids[i] = d.ID
	}
	attempts, err := s.store.DeliveryAttempts(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	out := make([]Delivery, len(rows))
	for i, d := range rows {
		out[i] = deliveryOf(d, attempts[d.ID])
	}
	return out, more, nil
}

// Retry queues one more attempt of a delivery now, whatever its status (also
// while the subscription is paused: someone asked for it). The attempt is
// counted and logged; its outcome becomes the delivery's status unless
// automatic attempts are still scheduled. While a manual attempt is queued and
// not yet made, another one is ErrDeliveryInProgress.
func (s *Service) Retry(ctx context.Context, c accounts.Caller, id, deliveryID string) (Delivery, error) {
	var (
		d        store.Delivery
		attempts map[string][]store.DeliveryAttempt
	)
	err := s.write(ctx, c, func(tx *store.Tx) error {
		sub, err := find(ctx, tx, c, id)
		if err != nil {
			return err
		}
		locked, err := tx.LockDelivery(ctx, deliveryID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && locked.SubscriptionID != sub.ID) {
			return accounts.ErrNotFound
		}
		if err != nil {
			return err
		}
		d = locked.Delivery
		if err := s.queueManual(ctx, tx, &d, s.now()); err != nil {
			return err
		}
		if err := tx.UpdateDelivery(ctx, &d); err != nil {
			return err
		}
		attempts, err = tx.DeliveryAttempts(ctx, []string{d.ID})
		return err
	})
	return deliveryOf(d, attempts[d.ID]), err
}

func deliveryOf(d store.Delivery, attempts []store.DeliveryAttempt) Delivery {
	v := Delivery{
		ID: d.ID, SubscriptionID: d.SubscriptionID, EventID: d.EventID, EventType: d.EventType,
		Status: DeliveryStatus(d.Status), Attempts: d.Attempts, AutomaticAttempts: d.AutoAttempts, CreatedAt: d.CreatedAt, NextAttemptAt: d.NextAttemptAt,
		Log: make([]Attempt, len(attempts)),
	}
	if d.RetryRequestedAt != nil {
		v.NextAttemptAt = d.RetryRequestedAt
	}
	for i, a := range attempts {
		v.Log[i] = Attempt{AttemptedAt: a.AttemptedAt, ResponseStatus: a.ResponseStatus, LatencyMs: a.LatencyMs, Error: a.Error, AutomaticAttempt: a.AutoAttempt, ResponseExcerpt: a.ResponseExcerpt}
	}
	return v
}
