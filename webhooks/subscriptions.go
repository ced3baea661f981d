package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// MaxActiveSubscriptions is how many active subscriptions an account may have per mode.
const MaxActiveSubscriptions = 25

// Limits of a subscription's fields. openapi.yaml states them too
// (CreateWebhookRequest, UpdateWebhookRequest), and the API's validation
// refuses a request past them before the service is called; the service
// enforces them itself because the settings pages call it without that
// validation. TestSubscriptionLimitsMatchContract keeps the two in step.
// Lengths are counted in characters, as JSON Schema counts them.
const (
	// MaxURLLength keeps absurd values out of storage and logs; real endpoints are far shorter.
	MaxURLLength         = 2048
	MaxDescriptionLength = 255
	// MinEvents and MaxEvents bound the events list ("*" counts as one).
	MinEvents          = 1
	MaxEvents          = 20
	MaxEventTypeLength = 64
)

// Subscription rules broken; the API maps each to its code.
var (
	// ErrSubscriptionLimit: the account already has MaxActiveSubscriptions in this mode.
	ErrSubscriptionLimit = errors.New("an account may have at most 25 active subscriptions per mode; delete one first")
	// ErrDuplicateEndpoint: the URL already has an active subscription.
	ErrDuplicateEndpoint = errors.New("an active subscription for this URL already exists")
)

// InvalidEventTypeError names an event type nobody can subscribe to.
type InvalidEventTypeError struct{ Type string }

func (e *InvalidEventTypeError) Error() string {
	t := e.Type
	if len(t) > 64 {
		t = t[:64]
	}
	return fmt.Sprintf("unknown event type %q", t)
}

// FieldError is a subscription field that breaks a rule.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// The field checks word their messages as the API's validation words the
// same rule (server/validation.go, kin-openapi), so both doors say the same.

// checkLength refuses a text longer than limit characters.
func checkLength(field, value string, limit int) error {
	if utf8.RuneCountInString(value) > limit {
		return &FieldError{Field: field, Message: fmt.Sprintf("maximum string length is %d", limit)}
	}
	return nil
}

// checkEventsList applies the limits of an events list: how many, and how
// long each; whether each type is known is checkEventTypes's.
func checkEventsList(events []string) error {
	switch {
	case len(events) < MinEvents:
		return &FieldError{Field: "events", Message: fmt.Sprintf("minimum number of items is %d", MinEvents)}
	case len(events) > MaxEvents:
		return &FieldError{Field: "events", Message: fmt.Sprintf("must have at most %d items (has %d)", MaxEvents, len(events))}
	}
	for i, ev := range events {
		if err := checkLength("events."+strconv.Itoa(i), ev, MaxEventTypeLength); err != nil {
			return err
		}
	}
	return nil
}

// checkDescription applies the limit of a description; nil is no description.
func checkDescription(d *string) error {
	if d == nil {
		return nil
	}
	return checkLength("description", *d, MaxDescriptionLength)
}

// Subscription is a webhook subscription, without its secret.
type Subscription struct {
	ID          string        `json:"id"`
	Mode        accounts.Mode `json:"mode"`
	URL         string        `json:"url"`
	Events      []string      `json:"events"`
	Description *string       `json:"description"`
	Enabled     bool          `json:"enabled"`
	CreatedAt   time.Time     `json:"createdAt"`
}

// CreatedSubscription is a new subscription and its signing secret, which
// exists in clear only here (and, sealed, in an idempotent replay).
type CreatedSubscription struct {
	Subscription
	SigningSecret string `json:"signingSecret"`
}

// NewSubscription is what creating a subscription takes.
type NewSubscription struct {
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Description    *string  `json:"description"`
	Enabled        *bool    `json:"enabled"`
	IdempotencyKey string   `json:"-"`
	// RequestFingerprint is the hash of the request as sent, when the caller has one.
	RequestFingerprint []byte `json:"-"`
}

// Create subscribes an endpoint. The URL must pass the mode's rules, every
// event type must be known, the URL must not already be subscribed, and the
// account may have at most MaxActiveSubscriptions in the mode.
func (s *Service) Create(ctx context.Context, c accounts.Caller, in NewSubscription) (CreatedSubscription, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /webhooks", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[CreatedSubscription]) (CreatedSubscription, error) {
		if err := checkLength("url", in.URL, MaxURLLength); err != nil {
			return CreatedSubscription{}, err
		}
		if err := checkEventsList(in.Events); err != nil {
			return CreatedSubscription{}, err
		}
		if err := checkDescription(in.Description); err != nil {
			return CreatedSubscription{}, err
		}
		events, err := checkEventTypes(in.Events)
		if err != nil {
			return CreatedSubscription{}, err
		}
		if err := ValidateURL(in.URL, c.Mode == accounts.Live); err != nil {
			return CreatedSubscription{}, &FieldError{Field: "url", Message: err.Error()}
		}
		secret, err := NewSigningSecret()
		if err != nil {
			return CreatedSubscription{}, err
		}
		ciphertext, err := s.cipher.Encrypt(secret)
		if err != nil {
			return CreatedSubscription{}, err
		}
		eventsJSON, err := json.Marshal(events)
		if err != nil {
			return CreatedSubscription{}, err
		}
		now := s.now()
		row := store.Subscription{
			ID: store.NewID("whk"), AccountID: c.AccountID, Mode: string(c.Mode), URL: in.URL, EventsJSON: string(eventsJSON),
			Description: in.Description, Enabled: in.Enabled == nil || *in.Enabled,
			SecretCiphertext: ciphertext, CreatedAt: now, UpdatedAt: now,
		}
		return commit(ctx, func(tx *store.Tx) (CreatedSubscription, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return CreatedSubscription{}, err
			}
			// The account row lock makes "count, then insert" one step under
			// concurrent requests, whichever instance serves them.
			if _, err := tx.LockAccount(ctx, c.AccountID); err != nil {
				return CreatedSubscription{}, err
			}
			n, err := tx.CountActiveSubscriptions(ctx, c.AccountID, string(c.Mode))
			if err != nil {
				return CreatedSubscription{}, err
			}
			if n >= MaxActiveSubscriptions {
				return CreatedSubscription{}, ErrSubscriptionLimit
			}
			if err := tx.InsertSubscription(ctx, &row); err != nil {
				if errors.Is(err, store.ErrDuplicateEndpoint) {
					return CreatedSubscription{}, ErrDuplicateEndpoint
				}
				return CreatedSubscription{}, err
			}
			if err := s.audit(ctx, tx, c, row, accounts.AuditWebhookCreated); err != nil {
				return CreatedSubscription{}, err
			}
			sub, err := subscriptionOf(row)
			return CreatedSubscription{Subscription: sub, SigningSecret: secret}, err
		})
	})
}

// checkEventTypes refuses unknown types and drops repeats.
func checkEventTypes(events []string) ([]string, error) {
	out := make([]string, 0, len(events))
	for _, ev := range events {
		if ev != "*" && !slices.Contains(EventTypes(), ev) {
			return nil, &InvalidEventTypeError{Type: ev}
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

// List pages through the caller's active subscriptions, newest first.
func (s *Service) List(ctx context.Context, c accounts.Caller, p paging.Request) ([]Subscription, bool, error) {
	rows, more, err := s.store.ListSubscriptions(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]Subscription, len(rows))
	for i, r := range rows {
		if out[i], err = subscriptionOf(r); err != nil {
			return nil, false, err
		}
	}
	return out, more, nil
}

// find reads the caller's active subscription (accounts.ErrNotFound when
// missing, deleted or another account's; accounts.ErrWrongMode for the other mode).
func find(ctx context.Context, r interface {
	Subscription(ctx context.Context, accountID, id string) (store.Subscription, error)
}, c accounts.Caller, id string) (store.Subscription, error) {
	return accounts.Find(c, func() (store.Subscription, error) { return r.Subscription(ctx, c.AccountID, id) },
		func(s store.Subscription) (string, string) { return s.AccountID, s.Mode })
}

// Get reads one subscription.
func (s *Service) Get(ctx context.Context, c accounts.Caller, id string) (Subscription, error) {
	row, err := find(ctx, s.store, c, id)
	if err != nil {
		return Subscription{}, err
	}
	return subscriptionOf(row)
}

// Patch is a partial update: nil fields are left as they are.
type Patch struct {
	Enabled *bool
	// SetDescription says whether Description is given (nil then clears it).
	SetDescription bool
	Description    *string
	// Events replaces the events when not nil; an empty list is refused.
	Events []string
	// URL and SigningSecret are immutable; giving one is refused.
	URL, SigningSecret *string
}

// Update changes enabled, description and events; url and the secret are
// immutable (delete and create again).
func (s *Service) Update(ctx context.Context, c accounts.Caller, id string, p Patch) (Subscription, error) {
	if p.URL != nil {
		return Subscription{}, &FieldError{Field: "url", Message: "url is immutable; delete the subscription and create a new one"}
	}
	if p.SigningSecret != nil {
		return Subscription{}, &FieldError{Field: "signingSecret", Message: "signingSecret is immutable; delete the subscription and create a new one"}
	}
	if p.SetDescription {
		if err := checkDescription(p.Description); err != nil {
			return Subscription{}, err
		}
	}
	var eventsJSON []byte
	if p.Events != nil {
		if err := checkEventsList(p.Events); err != nil {
			return Subscription{}, err
		}
		events, err := checkEventTypes(p.Events)
		if err != nil {
			return Subscription{}, err
		}
		if eventsJSON, err = json.Marshal(events); err != nil {
			return Subscription{}, err
		}
	}
	var row store.Subscription
	err := s.write(ctx, c, func(tx *store.Tx) error {
		var err error
		if row, err = find(ctx, tx, c, id); err != nil {
			return err
		}
		before := row
		if p.Enabled != nil {
			row.Enabled = *p.Enabled
		}
		if p.SetDescription {
			row.Description = p.Description
		}
		if eventsJSON != nil {
			row.EventsJSON = string(eventsJSON)
		}
		row.UpdatedAt = s.now()
		if err := tx.UpdateSubscription(ctx, &row); err != nil {
			return err
		}
		return s.auditUpdate(ctx, tx, c, before, row)
	})
	if err != nil {
		return Subscription{}, err
	}
	return subscriptionOf(row)
}

// Delete revokes a subscription: it disappears from every later read, and
// its pending deliveries are cancelled (failed) at once; their jobs, finding
// nothing pending, send nothing.
func (s *Service) Delete(ctx context.Context, c accounts.Caller, id string) error {
	return s.write(ctx, c, func(tx *store.Tx) error {
		row, err := find(ctx, tx, c, id)
		if err != nil {
			return err
		}
		now := s.now()
		if err := tx.RevokeSubscription(ctx, c.AccountID, id, now); err != nil {
			return err
		}
		// cancelled's answer is the same for every pending delivery (failed,
		// nothing left to attempt), so one statement writes it to all of them.
		to := cancelled(deliveryState{Status: StatusPending})
		if _, err := tx.SettleDeliveries(ctx, id, string(StatusPending), string(to.Status), "subscription deleted", now); err != nil {
			return err
		}
		return s.audit(ctx, tx, c, row, accounts.AuditWebhookDeleted)
	})
}

// audit records a change of a subscription in the audit log, in tx.
func (s *Service) audit(ctx context.Context, tx *store.Tx, c accounts.Caller, row store.Subscription, action string) error {
	return s.accounts.Audit(ctx, tx, c, row.AccountID, accounts.Mode(row.Mode), action, row.ID+" "+row.URL)
}

// auditUpdate records what an update changed: a pause or resume, and an
// edit of the description or events; an update that changed nothing is not recorded.
func (s *Service) auditUpdate(ctx context.Context, tx *store.Tx, c accounts.Caller, before, after store.Subscription) error {
	if before.Enabled != after.Enabled {
		action := accounts.AuditWebhookPaused
		if after.Enabled {
			action = accounts.AuditWebhookResumed
		}
		if err := s.audit(ctx, tx, c, after, action); err != nil {
			return err
		}
	}
	if before.EventsJSON != after.EventsJSON || !equalText(before.Description, after.Description) {
		return s.audit(ctx, tx, c, after, accounts.AuditWebhookUpdated)
	}
	return nil
}

// equalText compares two optional texts.
func equalText(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func subscriptionOf(r store.Subscription) (Subscription, error) {
	var events []string
	if err := json.Unmarshal([]byte(r.EventsJSON), &events); err != nil {
		return Subscription{}, fmt.Errorf("subscription %s: stored events do not decode: %w", r.ID, err)
	}
	return Subscription{
		ID: r.ID, Mode: accounts.Mode(r.Mode), URL: r.URL, Events: events,
		Description: r.Description, Enabled: r.Enabled, CreatedAt: r.CreatedAt,
	}, nil
}
