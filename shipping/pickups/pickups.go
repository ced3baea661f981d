package pickups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
)

// Pickups: POST /pickups asks a carrier to collect packages. The carrier is
// called synchronously, so the answer carries its confirmation number. The
// pickup is stored as 'requesting' in a transaction of its own before the
// call, and becomes 'scheduled' in the transaction that records the answer
// (and the idempotency key's result): a crash between the carrier's
// confirmation and that commit leaves a 'requesting' pickup that the account
// sees, instead of a pickup the carrier knows and shipd lost. A retry under
// the same idempotency key adopts that row; as no carrier takes an
// idempotency key on pickups, it asks the carrier whether that pickup was
// booked before booking it (pickups_resume.go).

// PickupStatus is where a pickup is. pickupTransitions is its whole state
// machine. A request the carrier refused is deleted, not moved: it was
// never booked.
type PickupStatus string

// The pickup statuses.
const (
	// PickupRequesting: recorded before the carrier is asked; it stays so
	// when the call is cut off (pickups_resume.go).
	PickupRequesting PickupStatus = "requesting"
	// PickupScheduled: the carrier booked it (a confirmation number).
	PickupScheduled PickupStatus = "scheduled"
	// PickupCancelled: the carrier cancelled it; terminal.
	PickupCancelled PickupStatus = "cancelled"
)

// PickupStatuses lists every pickup status.
func PickupStatuses() []PickupStatus {
	return []PickupStatus{PickupRequesting, PickupScheduled, PickupCancelled}
}

// PickupTrigger is what moves a pickup.
type PickupTrigger string

// The pickup triggers.
const (
	// PickupBooked: the carrier confirmed the request (or a retry adopted
	// what it had booked).
	PickupBooked PickupTrigger = "booked"
	// PickupCancelConfirmed: the carrier cancelled it (DELETE /pickups/{id}).
	PickupCancelConfirmed PickupTrigger = "cancel_confirmed"
)

// PickupTriggers lists every pickup trigger.
func PickupTriggers() []PickupTrigger { return []PickupTrigger{PickupBooked, PickupCancelConfirmed} }

var pickupTransitions = map[PickupStatus]map[PickupTrigger]PickupStatus{
	PickupRequesting: {PickupBooked: PickupScheduled},
	PickupScheduled:  {PickupCancelConfirmed: PickupCancelled},
}

// Next returns the status t leads to from s; false when s does not allow t.
func (s PickupStatus) Next(t PickupTrigger) (PickupStatus, bool) {
	to, ok := pickupTransitions[s][t]
	return to, ok
}

// CanCancel says whether a pickup in status s may be cancelled: only a
// scheduled one. The others have their reason (409).
func (s PickupStatus) CanCancel() error {
	if _, ok := s.Next(PickupCancelConfirmed); ok {
		return nil
	}
	if s == PickupRequesting {
		return ErrPickupRequesting
	}
	return ErrPickupCancelled
}

// Pickup limits beyond the schema's.
const (
	// PickupMaxDaysAhead is how far ahead a pickup may be booked: the
	// carriers take a few business days to two weeks.
	PickupMaxDaysAhead = 14
)

// The limits of a request that openapi.yaml's PickupCreateRequest states
// too (TestPickupLimitsMatchContract). The API's door checks them against
// the schema before the domain does; the domain checks them for the doors
// that have no schema (the settings pages), so both refuse alike.
const (
	MinPickupPackages           = 1
	MaxPickupPackages           = 999
	MaxPickupShipments          = 500
	MaxPickupInstructionsLength = 250
	MaxPickupWeightOz           = 160000
)

// schemaIssues are the contract's limits of a request (see above), with
// the address's required fields and lengths.
func schemaIssues(in NewPickup) []shipping.Issue {
	issues := shipping.AddressRequiredIssues("address.", in.Address)
	issues = append(issues, shipping.AddressLengthIssues("address.", in.Address)...)
	if n := in.PackageCount; n != nil && (*n < MinPickupPackages || *n > MaxPickupPackages) {
		issues = append(issues, shipping.Issue{Path: "packageCount", Message: fmt.Sprintf("must be from %d to %d", MinPickupPackages, MaxPickupPackages)})
	}
	if len(in.ShipmentIDs) > MaxPickupShipments {
		issues = append(issues, shipping.Issue{Path: "shipmentIds", Message: fmt.Sprintf("must hold at most %d labels", MaxPickupShipments)})
	}
	if w := in.TotalWeightOz; w != nil && (*w <= 0 || *w > MaxPickupWeightOz) {
		issues = append(issues, shipping.Issue{Path: "totalWeightOz", Message: fmt.Sprintf("must be above 0 and at most %d", MaxPickupWeightOz)})
	}
	if utf8.RuneCountInString(in.Instructions) > MaxPickupInstructionsLength {
		issues = append(issues, shipping.Issue{Path: "instructions", Message: fmt.Sprintf("must be at most %d characters", MaxPickupInstructionsLength)})
	}
	return issues
}

// ErrPickupCancelled: the pickup was cancelled before (409 already_cancelled).
var ErrPickupCancelled = errors.New("this pickup was already cancelled")

// ErrPickupRequesting: the pickup's carrier call has no recorded answer, so
// there is no confirmation to cancel (409 ineligible_state).
var ErrPickupRequesting = errors.New("this pickup is still requesting: its carrier call has no recorded answer, so it has no confirmation number to cancel; retry the create with its idempotency key, or ask the carrier")

// NewPickup is what scheduling a pickup takes.
type NewPickup struct {
	Carrier       string           `json:"carrier"`
	Address       shipping.Address `json:"address"`
	ReadyAt       time.Time        `json:"readyAt"`
	CloseAt       time.Time        `json:"closeAt"`
	ShipmentIDs   []string         `json:"shipmentIds,omitempty"`
	PackageCount  *int             `json:"packageCount,omitempty"`
	TotalWeightOz *float64         `json:"totalWeightOz,omitempty"`
	Instructions  string           `json:"instructions,omitempty"`
	// CarrierAccountID books the pickup on one of the account's carrier
	// accounts (live mode); nil: as pickupCarrierAccount decides.
	CarrierAccountID *string `json:"carrierAccountId,omitempty"`
	// IdempotencyKey and RequestFingerprint as for other creates.
	IdempotencyKey     string `json:"-"`
	RequestFingerprint []byte `json:"-"`
}

// Pickup is a carrier's visit as the API shows it.
type Pickup struct {
	ID                 string           `json:"id"`
	Mode               accounts.Mode    `json:"mode"`
	Carrier            string           `json:"carrier"`
	Status             PickupStatus     `json:"status"`
	ConfirmationNumber *string          `json:"confirmationNumber"`
	Address            shipping.Address `json:"address"`
	ReadyAt            time.Time        `json:"readyAt"`
	CloseAt            time.Time        `json:"closeAt"`
	PackageCount       int              `json:"packageCount"`
	TotalWeightOz      *float64         `json:"totalWeightOz,omitempty"`
	ShipmentIDs        []string         `json:"shipmentIds"`
	Instructions       string           `json:"instructions,omitempty"`
	CreatedAt          time.Time        `json:"createdAt"`
	UpdatedAt          time.Time        `json:"updatedAt"`
	CancelledAt        *time.Time       `json:"cancelledAt,omitempty"`
	CarrierAccountID   *string          `json:"carrierAccountId,omitempty"`
}

// pickupIssues checks a pickup's window, address and count: the rules
// every carrier shares, so that a bad request is a clear 422 before any
// call. Days and hours are read in readyAt's own offset, which must be the
// address's (zones.go): the pickup's local time. carrier is the carrier's
// descriptor (where it picks up: its Origins); boxes are the boxes of the
// shipmentIds.
func pickupIssues(mode accounts.Mode, now time.Time, carrier carriers.Descriptor, in NewPickup, boxes int) []shipping.Issue {
	issues := schemaIssues(in)
	ready, closes := in.ReadyAt, in.CloseAt.In(in.ReadyAt.Location())
	day := ready.Format(time.DateOnly)
	switch {
	case !closes.After(ready):
		issues = append(issues, shipping.Issue{Path: "closeAt", Message: "must be after readyAt (" + ready.Format(time.RFC3339) + ")"})
	case closes.Format(time.DateOnly) != day:
		issues = append(issues, shipping.Issue{Path: "closeAt", Message: "must be on the same day as readyAt (" + day + ", in readyAt's offset): a pickup is one day's visit"})
	case !closes.After(now):
		issues = append(issues, shipping.Issue{Path: "closeAt", Message: "is in the past: a pickup must close after now (" + now.Format(time.RFC3339) + ")"})
	}
	if ready.Weekday() == time.Sunday {
		issues = append(issues, shipping.Issue{Path: "readyAt", Message: "is a Sunday (" + day + "): no carrier picks up on Sundays; choose Monday to Saturday"})
	}
	if ready.After(now.AddDate(0, 0, PickupMaxDaysAhead)) {
		issues = append(issues, shipping.Issue{Path: "readyAt", Message: "is more than " + strconv.Itoa(PickupMaxDaysAhead) + " days ahead; carriers book pickups up to two weeks ahead"})
	}
	if country := carriers.NormalizeCountry(in.Address.Country); carrier.Origins != nil && !slices.Contains(carrier.Origins, country) {
		issues = append(issues, shipping.Issue{Path: "address.country", Message: fmt.Sprintf("is %s, where %s does not pick up: it picks up where it ships from (%s)",
			country, carrier.ID, strings.Join(carrier.Origins, ", "))})
	} else if is := readyAtZoneIssue(in.Address, in.ReadyAt); is != nil {
		issues = append(issues, *is)
	}
	if strings.TrimSpace(deref(in.Address.Name)) == "" {
		issues = append(issues, shipping.Issue{Path: "address.name", Message: "is required: the carrier's driver asks for a contact", Missing: true})
	}
	if strings.TrimSpace(deref(in.Address.Phone)) == "" {
		issues = append(issues, shipping.Issue{Path: "address.phone", Message: "is required: every carrier's pickup takes a contact phone", Missing: true})
	}
	issues = append(issues, shipping.AddressIssues(mode, "address.", in.Address, false)...)
	if in.PackageCount != nil && boxes > *in.PackageCount {
		issues = append(issues, shipping.Issue{Path: "packageCount", Message: fmt.Sprintf("is %d, fewer than the %d boxes of the shipmentIds (a shipment of several parcels is a package per box)", *in.PackageCount, boxes)})
	}
	return issues
}

// pickupLabels checks that each of ids is a purchased label of the caller's
// account and mode bought from carrier, and returns their tracking numbers,
// the carrier accounts they were bought through ("" for the operator's
// carriers), without repeats, and their boxes: the driver collects a
// package per box, so a shipment of three parcels is three.
func (s *Service) pickupLabels(ctx context.Context, c accounts.Caller, carrier string, ids []string) (numbers, through []string, boxes int, issues []shipping.Issue) {
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		path := "shipmentIds." + strconv.Itoa(i)
		if seen[id] {
			issues = append(issues, shipping.Issue{Path: path, Message: "names " + id + " twice"})
			continue
		}
		seen[id] = true
		sh, err := s.store.Shipment(ctx, c.AccountID, id)
		switch {
		case errors.Is(err, store.ErrNotFound) || (err == nil && sh.Mode != string(c.Mode)):
			issues = append(issues, shipping.Issue{Path: path, Message: id + " is not a label of this account in " + string(c.Mode) + " mode"})
		case err != nil:
			issues = append(issues, shipping.Issue{Path: path, Message: "could not be read: " + err.Error()})
		case !strings.EqualFold(sh.Carrier, carrier):
			issues = append(issues, shipping.Issue{Path: path, Message: id + " is a " + sh.Carrier + " label, not " + carrier})
		case shipping.Status(sh.Status) != shipping.Purchased || sh.TrackingNumber == nil:
			issues = append(issues, shipping.Issue{Path: path, Message: id + " is " + sh.Status + ": only purchased labels are picked up"})
		default:
			numbers = append(numbers, *sh.TrackingNumber)
			boxes += shipping.Boxes(sh.Packages)
			if ca := deref(sh.CarrierAccountID); !slices.Contains(through, ca) {
				through = append(through, ca)
			}
		}
	}
	return numbers, through, boxes, issues
}

// pickupScheduler resolves a pickup's carrier in the caller's mode: the
// client of the carrier account that books it, or the mode's carrier.
func (s *Service) pickupScheduler(ctx context.Context, mode accounts.Mode, name string, carrierAccountID *string) (carriers.Carrier, error) {
	carrier, err := s.ship.CarrierThrough(ctx, mode, name, carrierAccountID)
	if errors.Is(err, carriers.ErrUnknownCarrier) {
		return nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is not a carrier of this mode"}}}
	}
	if errors.Is(err, carriers.ErrNotConfigured) {
		return nil, shipping.ErrCarrierNotConfigured
	}
	if err != nil {
		return nil, err
	}
	if !carrier.Capabilities().Has(carriers.CapPickups) {
		return nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: carrier.Name() + " pickups cannot be scheduled through shipd"}}}
	}
	return carrier, nil
}

// pickupCarrierName is the carrier's name as rates and labels spell it:
// the mode's carrier of that name (in live mode, the sandbox's when the
// server has no credentials of its own for it: a carrier account may be
// the way to it).
func (s *Service) pickupCarrierName(mode accounts.Mode, name string) (string, error) {
	carrier, err := s.cfg.Carriers.Lookup(mode == accounts.Test, name)
	if mode == accounts.Live && shipping.CarrierNotServed(err) {
		carrier, err = s.cfg.Carriers.Lookup(true, name)
	}
	switch {
	case errors.Is(err, carriers.ErrUnknownCarrier):
		return "", &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is not a carrier of this mode"}}}
	case errors.Is(err, carriers.ErrNotConfigured):
		return "", shipping.ErrCarrierNotConfigured
	case err != nil:
		return "", err
	}
	return carrier.Name(), nil
}

// pickupCarrierAccount decides which carrier account books a pickup (nil:
// the operator's carriers): the one asked for; else the one the listed
// labels were bought through; else, without labels, the account's only
// enabled carrier account of the carrier, or the operator's carrier when it
// has none. Labels of several carrier accounts, or several enabled ones,
// need carrierAccountId.
func (s *Service) pickupCarrierAccount(ctx context.Context, c accounts.Caller, carrier string, asked *string, through []string) (*string, error) {
	row, err := s.ship.AskedCarrierAccount(ctx, c, carrier, asked, true)
	switch {
	case err != nil:
		return nil, err
	case row != nil:
		return &row.ID, nil
	case c.Mode == accounts.Test:
		return nil, nil // the sandbox
	}
	switch len(through) {
	case 1:
		if through[0] == "" {
			return nil, nil
		}
		return &through[0], nil
	case 0:
	default:
		return nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrierAccountId", Missing: true,
			Message: fmt.Sprintf("is required: the shipmentIds were bought through %d carrier accounts (%s); give the one that books the pickup", len(through), shipping.CarrierAccountsText(through))}}}
	}
	enabled, err := s.store.EnabledCarrierAccounts(ctx, c.AccountID, string(c.Mode))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range enabled {
		if strings.EqualFold(r.Carrier, carrier) {
			ids = append(ids, r.ID)
		}
	}
	switch {
	case len(ids) == 1:
		return &ids[0], nil
	case len(ids) > 1:
		return nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrierAccountId", Missing: true,
			Message: fmt.Sprintf("is required: this account has %d enabled %s carrier accounts (%s); give the one that books the pickup", len(ids), carrier, shipping.CarrierAccountsText(ids))}}}
	case len(enabled) > 0:
		// Live mode with carrier accounts uses them only, as quotes do.
		return nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "has no enabled carrier account of this account: connect one (POST /carrier-accounts)"}}}
	case s.cfg.NoPlatformCarriers:
		return nil, shipping.ErrNoCarrierAccounts
	}
	return nil, nil
}

// CreatePickup schedules a pickup with the carrier: the pickup once the
// carrier confirmed it, an InputError for a request no carrier takes, or a
// *CarriersError (rejected, unavailable, failed).
func (s *Service) CreatePickup(ctx context.Context, c accounts.Caller, in NewPickup) (Pickup, bool, error) {
	in.Address = in.Address.Normalized()
	in.Instructions = strings.TrimSpace(in.Instructions)
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /pickups", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	return idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[Pickup]) (Pickup, error) {
		name, err := s.pickupCarrierName(c.Mode, in.Carrier)
		if err != nil {
			return Pickup{}, err
		}
		numbers, through, boxes, labelIssues := s.pickupLabels(ctx, c, name, in.ShipmentIDs)
		d, _ := s.cfg.Catalog.Lookup(name)
		if issues := append(pickupIssues(c.Mode, s.now(), d, in, boxes), labelIssues...); len(issues) > 0 {
			return Pickup{}, &shipping.InputError{Issues: issues}
		}
		if in.PackageCount == nil {
			in.PackageCount = &boxes
		}
		ca, err := s.pickupCarrierAccount(ctx, c, name, in.CarrierAccountID, through)
		if err != nil {
			return Pickup{}, err
		}
		if _, err := s.pickupScheduler(ctx, c.Mode, name, ca); err != nil {
			return Pickup{}, err
		}
		row, resumed, err := s.requestPickup(ctx, c, name, ca, in)
		if err != nil {
			return Pickup{}, err
		}
		// A retry that adopted a 'requesting' row asks through the carrier
		// account that row was stored with, whatever was decided now.
		scheduler, err := s.pickupScheduler(ctx, c.Mode, name, row.CarrierAccountID)
		if err != nil {
			return Pickup{}, err
		}
		req := carriers.PickupRequest{
			Reference: row.ID, Address: shipping.CarrierAddress(in.Address), ReadyAt: in.ReadyAt, CloseAt: in.CloseAt,
			PackageCount: row.PackageCount, TotalWeightOz: deref(in.TotalWeightOz), Instructions: in.Instructions, TrackingNumbers: numbers,
		}
		var pc carriers.PickupConfirmation
		adopted := false
		if resumed {
			if pc, adopted, err = s.resumePickup(ctx, scheduler, row, req); err != nil {
				return Pickup{}, err
			}
		}
		if !adopted {
			pc, err = scheduler.SchedulePickup(ctx, req)
		}
		if err != nil {
			if carrierSaidNo(err) {
				// The carrier said no, so nothing is scheduled: the row goes.
				// Any other failure (a time-out, an answer that does not parse)
				// may have scheduled it, so the row stays 'requesting'.
				dctx := context.WithoutCancel(ctx)
				if derr := s.store.Tx(dctx, func(tx *store.Tx) error {
					return tx.DeletePickup(dctx, row.ID)
				}); derr != nil && !errors.Is(derr, store.ErrNotFound) {
					s.log.WarnContext(ctx, "pickup: removing a refused pickup", "pickup_id", row.ID, "error", derr)
				}
			}
			return Pickup{}, pickupCarrierError(name, err)
		}
		return commit(ctx, func(tx *store.Tx) (Pickup, error) {
			// No Recheck of the token here: the carrier has scheduled the
			// pickup, and recording it matters more than a token revoked
			// during the call.
			if err := tx.ConfirmPickup(ctx, row.ID, pc.ConfirmationNumber, pc.Location, s.now()); err != nil && !errors.Is(err, store.ErrNotFound) {
				return Pickup{}, err
			}
			if adopted {
				if err := tx.InsertAudit(ctx, &store.AuditEntry{AccountID: row.AccountID, Mode: row.Mode, Actor: shipping.AuditActor,
					Action: AuditPickupAdopted, Target: row.ID + " " + pc.ConfirmationNumber, CreatedAt: s.now()}); err != nil {
					return Pickup{}, err
				}
			}
			got, err := tx.LockPickup(ctx, row.ID)
			if err != nil {
				return Pickup{}, err
			}
			return pickupOf(got)
		})
	})
}

// requestPickup stores the pickup as 'requesting' in a transaction of its
// own, or finds the one a request under the same key left so (resumed).
func (s *Service) requestPickup(ctx context.Context, c accounts.Caller, carrier string, carrierAccountID *string, in NewPickup) (_ store.Pickup, resumed bool, _ error) {
	if in.IdempotencyKey != "" {
		row, err := s.store.RequestingPickupByKey(ctx, c.AccountID, string(c.Mode), in.IdempotencyKey)
		if err == nil {
			return row, true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return store.Pickup{}, false, err
		}
	}
	addr, err := json.Marshal(in.Address)
	if err != nil {
		return store.Pickup{}, false, err
	}
	ids := in.ShipmentIDs
	if ids == nil {
		ids = []string{}
	}
	shipments, err := json.Marshal(ids)
	if err != nil {
		return store.Pickup{}, false, err
	}
	count := 1
	if in.PackageCount != nil {
		count = *in.PackageCount
	}
	now := s.now()
	row := store.Pickup{
		ID: store.NewID("pck"), AccountID: c.AccountID, Mode: string(c.Mode), Carrier: carrier, Status: string(PickupRequesting),
		Address: string(addr), ReadyAt: in.ReadyAt.Format(time.RFC3339Nano), CloseAt: in.CloseAt.Format(time.RFC3339Nano),
		PackageCount: max(count, 1), TotalWeightOz: in.TotalWeightOz, Instructions: in.Instructions, ShipmentIDs: string(shipments),
		CreatedAt: now, UpdatedAt: now, CarrierAccountID: carrierAccountID,
	}
	if in.IdempotencyKey != "" {
		row.IdempotencyKey = &in.IdempotencyKey
	}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		return tx.InsertPickup(ctx, &row)
	})
	return row, false, err
}

// carrierSaidNo reports whether a failed schedule surely scheduled
// nothing: the carrier refused it, or answered that it is unavailable (an
// HTTP answer: 429, 503), or shipd did not call it, or could not reach it
// at all (no DNS, no route, an untrusted certificate: nothing was sent). A
// call without an answer (a time-out, a reset connection) may have reached
// the carrier.
func carrierSaidNo(err error) bool {
	if errors.Is(err, carriers.ErrRejected) || errors.Is(err, carriers.ErrOverQuota) || errors.Is(err, carriers.ErrPickupsNotSupported) {
		return true
	}
	var ce *carriers.Error
	return errors.Is(err, carriers.ErrUnavailable) && errors.As(err, &ce) && (ce.HTTPStatus != 0 || ce.Unreachable)
}

// pickupCarrierError is a carrier's failure as the API answers it.
func pickupCarrierError(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, carriers.ErrPickupsNotSupported) {
		return &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: name + " pickups cannot be scheduled through shipd"}}}
	}
	e := shipping.CarrierError(name, err)
	switch e.Kind {
	case shipping.ErrCarrierRejected:
		e.Kind = errPickupRejected
	case shipping.ErrCarrierUnavailable:
		e.Kind = errPickupUnavailable
	case shipping.ErrCarrierUnreachable:
		// Worded for any call already (502 carrier_unreachable).
	default:
		e.Kind = errPickupFailed
	}
	return e
}

// pickupKind words a carrier failure for a pickup while errors.Is still
// sees the kind the API maps (ErrCarrierRejected, ...).
type pickupKind struct {
	msg  string
	kind error
}

func (k *pickupKind) Error() string { return k.msg }
func (k *pickupKind) Unwrap() error { return k.kind }

var (
	errPickupRejected    = &pickupKind{"the carrier refused this pickup", shipping.ErrCarrierRejected}
	errPickupUnavailable = &pickupKind{"the carrier is temporarily unavailable; retry after the Retry-After delay", shipping.ErrCarrierUnavailable}
	errPickupFailed      = &pickupKind{"the carrier failed to answer; retry", shipping.ErrCarrierFailed}
)

// GetPickup reads one pickup.
func (s *Service) GetPickup(ctx context.Context, c accounts.Caller, id string) (Pickup, error) {
	row, err := accounts.Find(c, func() (store.Pickup, error) { return s.store.Pickup(ctx, c.AccountID, id) },
		func(p store.Pickup) (string, string) { return p.AccountID, p.Mode })
	if err != nil {
		return Pickup{}, err
	}
	return pickupOf(row)
}

// Pickups pages through the caller's pickups, newest first.
func (s *Service) Pickups(ctx context.Context, c accounts.Caller, p paging.Request) ([]Pickup, bool, error) {
	rows, more, err := s.store.ListPickups(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]Pickup, len(rows))
	for i, r := range rows {
		if out[i], err = pickupOf(r); err != nil {
			return nil, false, err
		}
	}
	return out, more, nil
}

// CancelPickup asks the carrier to cancel a scheduled pickup, then records
// it cancelled. A carrier that refuses or cannot answer leaves it scheduled.
func (s *Service) CancelPickup(ctx context.Context, c accounts.Caller, id string) (Pickup, error) {
	row, err := accounts.Find(c, func() (store.Pickup, error) { return s.store.Pickup(ctx, c.AccountID, id) },
		func(p store.Pickup) (string, string) { return p.AccountID, p.Mode })
	if err != nil {
		return Pickup{}, err
	}
	if err := PickupStatus(row.Status).CanCancel(); err != nil {
		return Pickup{}, err
	}
	carrier, err := s.pickupScheduler(ctx, c.Mode, row.Carrier, row.CarrierAccountID)
	if err != nil {
		return Pickup{}, err
	}
	p, err := pickupOf(row)
	if err != nil {
		return Pickup{}, err
	}
	if err := carrier.CancelPickup(ctx, carriers.PickupCancelRequest{
		Reference: row.ID, ConfirmationNumber: deref(row.ConfirmationNumber), Location: row.CarrierLocation,
		Address: shipping.CarrierAddress(p.Address), ReadyAt: p.ReadyAt, Instructions: row.Instructions,
	}); err != nil {
		return Pickup{}, pickupCarrierError(carrier.Name(), err)
	}
	err = s.store.Tx(ctx, func(tx *store.Tx) error {
		if err := s.accounts.Recheck(ctx, tx, c); err != nil {
			return err
		}
		if err := tx.CancelPickup(ctx, row.ID, s.now()); errors.Is(err, store.ErrNotFound) {
			return ErrPickupCancelled // another cancel got there first
		} else if err != nil {
			return err
		}
		row, err = tx.LockPickup(ctx, row.ID)
		return err
	})
	if err != nil {
		return Pickup{}, err
	}
	return pickupOf(row)
}

func pickupOf(r store.Pickup) (Pickup, error) {
	p := Pickup{
		ID: r.ID, Mode: accounts.Mode(r.Mode), Carrier: r.Carrier, Status: PickupStatus(r.Status), ConfirmationNumber: r.ConfirmationNumber,
		PackageCount: r.PackageCount, TotalWeightOz: r.TotalWeightOz, Instructions: r.Instructions,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, CancelledAt: r.CancelledAt, CarrierAccountID: r.CarrierAccountID,
	}
	var err error
	if p.ReadyAt, err = time.Parse(time.RFC3339Nano, r.ReadyAt); err != nil {
		return Pickup{}, fmt.Errorf("pickup %s ready_at: %w", r.ID, err)
	}
	if p.CloseAt, err = time.Parse(time.RFC3339Nano, r.CloseAt); err != nil {
		return Pickup{}, fmt.Errorf("pickup %s close_at: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.Address), &p.Address); err != nil {
		return Pickup{}, fmt.Errorf("pickup %s address: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.ShipmentIDs), &p.ShipmentIDs); err != nil {
		return Pickup{}, fmt.Errorf("pickup %s shipment ids: %w", r.ID, err)
	}
	return p, nil
}

// PickupCarriers names the carriers that book pickups, as the sandbox has
// them (each the twin of its live carrier, which a carrier account may
// reach in live mode), in its order.
func (s *Service) PickupCarriers() []string {
	cs, _ := s.cfg.Carriers.For(true)
	var names []string
	for _, c := range cs {
		if c.Capabilities().Has(carriers.CapPickups) {
			names = append(names, c.Name())
		}
	}
	return names
}
