package trackers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// ErrTrackerOfShipment: a label's tracker follows the label and cannot be
// deleted (409 tracker_of_shipment).
var ErrTrackerOfShipment = errors.New("this tracker follows a label bought through shipd: it stops when the label is delivered or voided and cannot be deleted")

// ErrTrackerLimit: the account already follows as many packages in this
// mode as the operator allows (Config.TrackerLimit; 422 tracker_limit).
var ErrTrackerLimit = errors.New("too many active trackers")

// NewTracker is what following a package takes.
type NewTracker struct {
	TrackingNumber string `json:"trackingNumber"`
	// Carrier may be empty when the number's form names one carrier.
	Carrier        string `json:"carrier,omitempty"`
	IdempotencyKey string `json:"-"`
	// RequestFingerprint is the hash of the request as sent, when the caller has one.
	RequestFingerprint []byte `json:"-"`
}

// CreatedTracker is a create's result: Created is false when the account
// already followed that carrier's number in that mode (200, not 201).
type CreatedTracker struct {
	Tracker shipping.Tracker `json:"tracker"`
	Created bool             `json:"created"`
}

// CreateTracker follows a package by its carrier and tracking number.
func (s *Service) CreateTracker(ctx context.Context, c accounts.Caller, in NewTracker) (CreatedTracker, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /trackers", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[CreatedTracker]) (CreatedTracker, error) {
		number := carriers.NormalizeTrackingNumber(in.TrackingNumber)
		carrier, carrierAccountID, formErr := s.trackerCarrier(ctx, c, in.Carrier, number)
		var input *shipping.InputError
		if formErr != nil && !(errors.As(formErr, &input) && input.Issues[0].Path == "trackingNumber") {
			return CreatedTracker{}, formErr
		}
		name := carrier.Name()
		var plan []carriers.TrackingScan
		caps := carrier.Capabilities()
		planned, polled := caps.Has(carriers.CapNumberPlan), caps.Has(carriers.CapTrack)
		if planned {
			var err error
			if plan, err = carrier.NumberPlan(ctx, number); err != nil {
				return CreatedTracker{}, fmt.Errorf("tracking plan: %w", err)
			}
		}
		planJSON, err := json.Marshal(plan)
		if err != nil {
			return CreatedTracker{}, err
		}
		return commit(ctx, func(tx *store.Tx) (CreatedTracker, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return CreatedTracker{}, err
			}
			existing := func() (CreatedTracker, error) {
				tr, err := tx.TrackerByNumber(ctx, c.AccountID, string(c.Mode), name, number)
				if err != nil {
					return CreatedTracker{}, err
				}
				t, err := shipping.TrackerDetail(ctx, tx.TrackingEvents, tr)
				return CreatedTracker{Tracker: t}, err
			}
			// The account row makes "count the active trackers, then insert"
			// one step under concurrent creates, whichever instance serves
			// them (the insert itself counts and inserts in one statement).
			if _, err := tx.LockAccount(ctx, c.AccountID); err != nil {
				return CreatedTracker{}, err
			}
			if found, err := existing(); !errors.Is(err, store.ErrNotFound) {
				return found, err
			}
			// A number without the carrier's form is refused unless the
			// account already follows it (a sandbox label's number).
			if formErr != nil {
				return CreatedTracker{}, formErr
			}
			now := s.now()
			tr := store.Tracker{ID: store.NewID("trk"), AccountID: c.AccountID, Mode: string(c.Mode),
				CarrierAccountID: carrierAccountID, Carrier: name, TrackingNumber: number, Status: carriers.StatusUnknown, Plan: string(planJSON),
				CreatedAt: now, UpdatedAt: now}
			inserted, err := tx.InsertStandaloneTrackerWithin(ctx, &tr, s.activeTrackers(now))
			if errors.Is(err, store.ErrActiveTrackersLimit) {
				return CreatedTracker{}, fmt.Errorf("%w: this account's limit of active trackers in %s mode is %d; delete a tracker (DELETE /trackers/{id}) or wait for one to end",
					ErrTrackerLimit, c.Mode, s.cfg.TrackerLimit)
			}
			if err != nil {
				return CreatedTracker{}, err
			}
			if !inserted {
				// Another request inserted it since the read above.
				return existing()
			}
			if err := s.jobs.FollowTracker(ctx, tx, tr.ID, plan, planned, polled, now); err != nil {
				return CreatedTracker{}, err
			}
			return CreatedTracker{Tracker: shipping.TrackerOf(tr, nil), Created: true}, nil
		})
	})
}

// activeTrackers is the bound of an account's active standalone trackers
// in a mode (Config.TrackerLimit): those not ended, made within the
// longest a tracker is followed.
func (s *Service) activeTrackers(now time.Time) store.ActiveTrackers {
	return store.ActiveTrackers{Max: max(s.cfg.TrackerLimit, 0), Since: now.Add(-shipping.PollGiveUpAfter)}
}

// trackerCarrier resolves a create's carrier: the one named (any letter
// case), or the one the number's form names; in live mode, the account's
// carrier account of that carrier when it has an enabled one (its id is
// returned too), else the operator's carrier unless the operator offers
// none to tenants. A number without one of the carrier's forms is an
// InputError on trackingNumber, returned with the carrier. In test mode a
// number of a sandbox twin's form (9400SANDBOX…) is that carrier's, named
// or not: the sandbox's labels carry such numbers, and a user tries them
// first.
func (s *Service) trackerCarrier(ctx context.Context, c accounts.Caller, name, number string) (carriers.Carrier, *string, error) {
	name = strings.TrimSpace(name)
	sandboxOf := ""
	if c.Mode == accounts.Test {
		sandboxOf, _ = s.cfg.Catalog.SandboxTrackingNumberCarrier(number)
	}
	if name == "" && sandboxOf != "" {
		name = sandboxOf
	}
	if name == "" {
		switch names := s.cfg.Catalog.TrackingNumberCarriers(number); len(names) {
		case 0:
			return nil, nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is required: the tracking number has no carrier's form (" + s.numberHints() + ")"}}}
		case 1:
			name = names[0]
		default:
			return nil, nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is required: the tracking number has the form of several carriers (" + strings.Join(names, ", ") + ")"}}}
		}
	}
	var (
		carrier    carriers.Carrier
		viaAccount *string
		err        error
	)
	if c.Mode == accounts.Live {
		own, id, ownErr := s.ownCarrier(ctx, c, name)
		switch {
		case ownErr != nil:
			return nil, nil, ownErr
		case own != nil:
			carrier, viaAccount = own, &id
		case s.cfg.NoPlatformCarriers:
			return nil, nil, shipping.ErrNoCarrierAccounts
		}
	}
	if carrier == nil {
		carrier, err = s.cfg.Carriers.Lookup(c.Mode == accounts.Test, name)
	}
	if errors.Is(err, carriers.ErrUnknownCarrier) {
		return nil, nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is not a carrier of this mode"}}}
	}
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, nil, shipping.ErrCarrierNotConfigured
	}
	if err != nil {
		return nil, nil, err
	}
	if !strings.EqualFold(sandboxOf, carrier.Name()) && !s.cfg.Catalog.WellFormedTrackingNumber(carrier.Name(), number) {
		return carrier, viaAccount, &shipping.InputError{Issues: []shipping.Issue{{Path: "trackingNumber", Message: "is not a " + carrier.Name() + " tracking number"}}}
	}
	return carrier, viaAccount, nil
}

// ownCarrier is the client of the caller's oldest enabled carrier account
// of the carrier named, and its id; nil when it has none.
func (s *Service) ownCarrier(ctx context.Context, c accounts.Caller, name string) (carriers.Carrier, string, error) {
	rows, err := s.store.EnabledCarrierAccounts(ctx, c.AccountID, string(c.Mode))
	if err != nil {
		return nil, "", err
	}
	for _, r := range rows {
		if !strings.EqualFold(r.Carrier, name) {
			continue
		}
		client, err := s.ship.AccountCarrier(ctx, r)
		if err != nil {
			s.log.ErrorContext(ctx, "carrier account unusable", slog.String("carrier_account_id", r.ID), slog.Any("error", err))
			continue
		}
		return client, r.ID, nil
	}
	return nil, "", nil
}

// Trackers pages through the caller's trackers, standalone and of labels,
// newest first, optionally in one status; each with its latest scans.
func (s *Service) Trackers(ctx context.Context, c accounts.Caller, status string, p paging.Request) ([]shipping.Tracker, bool, error) {
	rows, more, err := s.store.ListTrackers(ctx, c.AccountID, string(c.Mode), status, p)
	if err != nil {
		return nil, false, err
	}
	out := make([]shipping.Tracker, len(rows))
	for i, r := range rows {
		if out[i], err = shipping.TrackerDetail(ctx, s.store.CachedTrackingEvents, r); err != nil {
			return nil, false, err
		}
	}
	return out, more, nil
}

// DeleteTracker stops a standalone tracker: it and its scans are deleted,
// and its pending scan or poll finds nothing to do.
func (s *Service) DeleteTracker(ctx context.Context, c accounts.Caller, id string) error {
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		tr, err := accounts.Find(c, func() (store.Tracker, error) { return tx.Tracker(ctx, c.AccountID, id) },
			func(t store.Tracker) (string, string) { return t.AccountID, t.Mode })
		if err != nil {
			return err
		}
		if tr.ShipmentID != nil {
			return ErrTrackerOfShipment
		}
		if _, err := tx.LockTracker(ctx, id); err != nil {
			return err
		}
		err = tx.DeleteStandaloneTracker(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return accounts.ErrNotFound
		}
		return err
	})
}

// numberHints names the forms of every carrier's tracking numbers, for the
// message that a number has none of them ("UPS 1Z…, FedEx 12 or 15 digits").
func (s *Service) numberHints() string {
	var hints []string
	for _, d := range s.cfg.Catalog.Descriptors() {
		if d.TrackingNumberHint != "" {
			hints = append(hints, string(d.ID)+" "+d.TrackingNumberHint)
		}
	}
	return strings.Join(hints, ", ")
}
