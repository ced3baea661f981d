package shipping

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
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Trackers of any package: POST /trackers follows a tracking number that was
// not bought through shipd (a standalone tracker, without a shipment). It is
// tracked as labels are (tracking.go): in test mode by the sandbox's plan for
// the number (carriers.CapNumberPlan), in live mode by polling the carrier's
// tracking API on the labels' schedule. Each new scan records tracker.updated
// with the tracker as its data; a standalone tracker has no shipment events.

// ErrTrackerOfShipment: a label's tracker follows the label and cannot be
// deleted (409 tracker_of_shipment).
var ErrTrackerOfShipment = errors.New("this tracker follows a label bought through shipd: it stops when the label is delivered or voided and cannot be deleted")

// ErrTrackerLimit: the account already follows as many packages in this
// mode as the operator allows (Config.TrackerLimit; 422 tracker_limit).
var ErrTrackerLimit = errors.New("too many active trackers")

// DefaultTrackerLimit is how many active standalone trackers an account
// may have in each mode unless the operator says otherwise: on the live
// schedule a tracker costs about 4 tracking calls an hour in its first 6
// hours and one a day after 3 days, so 500 young ones would take about
// 2,000 calls an hour, past any default carrier budget (USPS: 60).
const DefaultTrackerLimit = 500

// Why shipd stopped following a standalone tracker's package (its
// endReason): those trackers no longer count against the limit.
const (
	// EndFinalStatus: delivered, returned to sender or cancelled; in test
	// mode, the sandbox's last scan.
	EndFinalStatus = "final_status"
	// EndUnknownNumber: the carrier had no information on the number after
	// UnknownNumberAttempts polls.
	EndUnknownNumber = "unknown_number"
	// EndExpired: 30 days (PollGiveUpAfter) after the tracker was made.
	EndExpired = "expired"
)

// UnknownNumberAttempts is how many times the carrier is asked about a
// standalone tracker's number while it has no information on it. The
// first poll is due 15 minutes after the tracker was made, and each answer
// of no information doubles the wait for the next (30 minutes, 1, 2, 4, 8
// hours), so the last is about 16 hours after the tracker was made; then
// the tracker ends (EndUnknownNumber). Carriers know a number from the
// moment its label is made, so a number still unknown after that is most
// likely mistyped.
const UnknownNumberAttempts = 6

// unknownNumberScan is the scan index of the event that says the carrier
// does not know the number: before every carrier scan (they count from 0).
const unknownNumberScan = -1

// UnknownNumberMessage is the event a standalone tracker gets when the
// carrier does not know its number.
const UnknownNumberMessage = "The carrier does not know this tracking number yet; it is asked again 5 more times, the last about 16 hours after the tracker was made"

// TrackerEncoder renders a tracker as event data: the same shape the API's
// GET /trackers/{id} returns, which is the API layer's to define.
type TrackerEncoder func(Tracker) (json.RawMessage, error)

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
	Tracker Tracker `json:"tracker"`
	Created bool    `json:"created"`
}

// CreateTracker follows a package by its carrier and tracking number.
func (s *Service) CreateTracker(ctx context.Context, c accounts.Caller, in NewTracker) (CreatedTracker, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /trackers", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[CreatedTracker]) (CreatedTracker, error) {
		number := carriers.NormalizeTrackingNumber(in.TrackingNumber)
		carrier, carrierAccountID, formErr := s.trackerCarrier(ctx, c, in.Carrier, number)
		var input *InputError
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
				t, err := trackerDetail(ctx, tx.TrackingEvents, tr)
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
			switch {
			case planned:
				err = s.scheduleScan(ctx, tx, tr.ID, 0, plan, true)
			case polled:
				err = s.schedulePoll(ctx, tx, tr.ID, 1, now)
			}
			if err != nil {
				return CreatedTracker{}, err
			}
			return CreatedTracker{Tracker: trackerOf(tr, nil), Created: true}, nil
		})
	})
}

// activeTrackers is the bound of an account's active standalone trackers
// in a mode (Config.TrackerLimit): those not ended, made within the
// longest a tracker is followed.
func (s *Service) activeTrackers(now time.Time) store.ActiveTrackers {
	return store.ActiveTrackers{Max: max(s.cfg.TrackerLimit, 0), Since: now.Add(-PollGiveUpAfter)}
}

// trackerCarrier resolves a create's carrier: the one named (any letter
// case), or the one the number's form names; in live mode, the account's
// carrier account of that carrier when it has an enabled one (its id is
// returned too), else the operator's carrier unless the operator offers
// none to tenants. A number without one of the carrier's forms is an
// InputError on trackingNumber, returned with the carrier.
func (s *Service) trackerCarrier(ctx context.Context, c accounts.Caller, name, number string) (carriers.Carrier, *string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		switch names := s.cfg.Catalog.TrackingNumberCarriers(number); len(names) {
		case 0:
			return nil, nil, &InputError{Issues: []Issue{{Path: "carrier", Message: "is required: the tracking number has no carrier's form (" + s.numberHints() + ")"}}}
		case 1:
			name = names[0]
		default:
			return nil, nil, &InputError{Issues: []Issue{{Path: "carrier", Message: "is required: the tracking number has the form of several carriers (" + strings.Join(names, ", ") + ")"}}}
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
			return nil, nil, ErrNoCarrierAccounts
		}
	}
	if carrier == nil {
		carrier, err = s.cfg.Carriers.Lookup(c.Mode == accounts.Test, name)
	}
	if errors.Is(err, carriers.ErrUnknownCarrier) {
		return nil, nil, &InputError{Issues: []Issue{{Path: "carrier", Message: "is not a carrier of this mode"}}}
	}
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, nil, ErrCarrierNotConfigured
	}
	if err != nil {
		return nil, nil, err
	}
	if !s.cfg.Catalog.WellFormedTrackingNumber(carrier.Name(), number) {
		return carrier, viaAccount, &InputError{Issues: []Issue{{Path: "trackingNumber", Message: "is not a " + carrier.Name() + " tracking number"}}}
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
		client, err := s.accountCarrier(r)
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
func (s *Service) Trackers(ctx context.Context, c accounts.Caller, status string, p paging.Request) ([]Tracker, bool, error) {
	rows, more, err := s.store.ListTrackers(ctx, c.AccountID, string(c.Mode), status, p)
	if err != nil {
		return nil, false, err
	}
	out := make([]Tracker, len(rows))
	for i, r := range rows {
		if out[i], err = trackerDetail(ctx, s.store.CachedTrackingEvents, r); err != nil {
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

func trackerDetail(ctx context.Context, scans scansReader, t store.Tracker) (Tracker, error) {
	events, err := scans(ctx, t.ID, MaxTrackingEvents)
	if err != nil {
		return Tracker{}, err
	}
	return trackerOf(t, events), nil
}

func trackerOf(t store.Tracker, events []store.TrackingEvent) Tracker {
	out := Tracker{
		ID: t.ID, Mode: accounts.Mode(t.Mode), ShipmentID: t.ShipmentID, Carrier: t.Carrier, TrackingNumber: t.TrackingNumber,
		Status: t.Status, EstimatedDeliveryAt: t.EstimatedDeliveryAt, Events: trackingEventsOf(events),
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, EndedAt: t.EndedAt,
	}
	if t.EndReason != nil {
		out.EndReason = *t.EndReason
	}
	return out
}

// endTracker stops following a standalone tracker's package, for reason.
// Its caller records the tracker.updated that says so (with the tracker's
// new status, when there is one).
func (s *Service) endTracker(ctx context.Context, tx *store.Tx, id, reason string) error {
	s.log.InfoContext(ctx, "tracker ended", slog.String("tracker_id", id), slog.String("reason", reason))
	return tx.EndTracker(ctx, id, reason, s.now())
}

// recordTracker records tracker.updated for a standalone tracker, n times
// (once per new scan), with the tracker as it is now as the data.
func (s *Service) recordTracker(ctx context.Context, tx *store.Tx, id string, n int) error {
	tr, err := tx.TrackerByID(ctx, id)
	if err != nil {
		return err
	}
	t, err := trackerDetail(ctx, tx.TrackingEvents, tr)
	if err != nil {
		return err
	}
	data, err := s.trackerEventData(t)
	if err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	for range n {
		if _, err := s.webhooks.Record(ctx, tx, tr.AccountID, tr.Mode, webhooks.EventTrackerUpdated, data); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) trackerEventData(t Tracker) (json.RawMessage, error) {
	if s.cfg.TrackerEventData != nil {
		return s.cfg.TrackerEventData(t)
	}
	return json.Marshal(t)
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
