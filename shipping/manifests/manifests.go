package manifests

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/idempotency"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/store"
	"github.com/shipd-dev/shipd/webhooks"
)

// Manifests (POST /manifests): the labels of a day on one carrier form, so
// the carrier accepts them with one scan (USPS SCAN form) or one close
// (FedEx Ground). A label is on one manifest at most: the transaction that
// inserts a manifest claims its labels with a guarded update
// (store.ClaimForManifest) and queues the manifest job; the job asks the
// carrier outside any transaction, then records created (with the form) or
// failed (the labels are released) and the event, guarded by the
// manifest's status, so a job run twice after a crash acts once.

// ManifestStatus is where a manifest is. manifestTransitions is its whole
// state machine: the job moves a creating manifest once, to created or
// failed, both terminal.
type ManifestStatus string

// The manifest statuses.
const (
	ManifestCreating ManifestStatus = "creating"
	ManifestCreated  ManifestStatus = "created"
	ManifestFailed   ManifestStatus = "failed"
)

// ManifestStatuses lists every manifest status.
func ManifestStatuses() []ManifestStatus {
	return []ManifestStatus{ManifestCreating, ManifestCreated, ManifestFailed}
}

// ManifestTrigger is what moves a manifest.
type ManifestTrigger string

// The manifest triggers.
const (
	// ManifestFormMade: the carrier made the form (or one it had made was recovered).
	ManifestFormMade ManifestTrigger = "form_made"
	// ManifestRefused: the carrier refused, or stayed unavailable too long;
	// the labels are released.
	ManifestRefused ManifestTrigger = "refused"
)

// ManifestTriggers lists every manifest trigger.
func ManifestTriggers() []ManifestTrigger {
	return []ManifestTrigger{ManifestFormMade, ManifestRefused}
}

var manifestTransitions = map[ManifestStatus]map[ManifestTrigger]ManifestStatus{
	ManifestCreating: {ManifestFormMade: ManifestCreated, ManifestRefused: ManifestFailed},
}

// Next returns the status t leads to from s; false when s does not allow t.
func (s ManifestStatus) Next(t ManifestTrigger) (ManifestStatus, bool) {
	to, ok := manifestTransitions[s][t]
	return to, ok
}

// Creating reports whether the manifest's job still has to act.
func (s ManifestStatus) Creating() bool {
	_, ok := s.Next(ManifestFormMade)
	return ok
}

// MaxManifestLabels is how many labels one manifest takes. Without
// shipmentIds, the oldest waiting labels up to it go on the manifest, and
// the rest wait for the next one.
const MaxManifestLabels = 5000

// Manifest is a manifest as the API shows it.
type Manifest struct {
	ID           string           `json:"id"`
	Mode         accounts.Mode    `json:"mode"`
	Carrier      string           `json:"carrier"`
	Status       ManifestStatus   `json:"status"`
	ShipmentIDs  []string         `json:"shipmentIds"`
	From         shipping.Address `json:"fromAddress"`
	FormNumber   *string          `json:"formNumber,omitempty"`
	HasForm      bool             `json:"hasForm"`
	ErrorMessage *string          `json:"errorMessage,omitempty"`
	CreatedAt    time.Time        `json:"createdAt"`
	CompletedAt  *time.Time       `json:"completedAt,omitempty"`
	// CarrierAccountID is the carrier account the labels were bought
	// through, whose credentials make the form; nil: the operator's carriers.
	CarrierAccountID *string `json:"carrierAccountId,omitempty"`
}

// NewManifest is what creating a manifest takes.
type NewManifest struct {
	Carrier     string   `json:"carrier"`
	ShipmentIDs []string `json:"shipmentIds,omitempty"`
	// From picks one origin when the labels have several.
	From *shipping.Address `json:"fromAddress,omitempty"`
	// CarrierAccountID picks the labels of one carrier account when they
	// were bought through several.
	CarrierAccountID *string `json:"carrierAccountId,omitempty"`
	// ServerCarrierOnly picks the labels bought through the server's own
	// carrier (the settings page's row of them; the API lists shipmentIds).
	ServerCarrierOnly bool `json:"serverCarrierOnly,omitempty"`
	// IdempotencyKey and RequestFingerprint as for NewLabel.
	IdempotencyKey     string `json:"-"`
	RequestFingerprint []byte `json:"-"`
}

// ManifestEncoder renders a manifest as event data (manifest.created,
// manifest.failed): the shape GET /manifests/{id} returns.
type ManifestEncoder func(Manifest) (json.RawMessage, error)

// Errors of manifests; the API maps each to its code.
var (
	// ErrNothingToManifest: no label to put on a manifest (422 nothing_to_manifest).
	ErrNothingToManifest = errors.New("no purchased label of this carrier is waiting for a manifest")
	// ErrManifestNotSupported: the carrier has no manifest step (422 manifest_not_supported).
	ErrManifestNotSupported = errors.New("this carrier has no manifest step: it scans each package when it picks it up")
	// ErrManifestPending: the form is not ready yet (202 label_pending).
	ErrManifestPending = errors.New("the manifest's form is not ready yet; retry in a few seconds")
)

// AlreadyManifestedError: a listed label is on a manifest already (409 already_manifested).
type AlreadyManifestedError struct{ ShipmentID, ManifestID string }

func (e *AlreadyManifestedError) Error() string {
	if e.ManifestID == "" {
		return "shipment " + e.ShipmentID + " is already on a manifest"
	}
	return "shipment " + e.ShipmentID + " is already on manifest " + e.ManifestID
}

// ManifestNotPurchasedError: a listed label is not purchased (409 not_purchased).
type ManifestNotPurchasedError struct {
	ShipmentID string
	Status     shipping.Status
}

func (e *ManifestNotPurchasedError) Error() string {
	return fmt.Sprintf("shipment %s is %s; only purchased labels go on a manifest", e.ShipmentID, e.Status)
}

// manifester finds the carrier's manifest step in the caller's mode. In
// live mode a carrier the server has no credentials of its own for may still
// be reached through the account's carrier accounts; whether it has a
// manifest step is then learnt from the sandbox's carrier of that name,
// which does what the live one does.
func (s *Service) manifester(c accounts.Caller, name string) (string, error) {
	carrier, err := s.cfg.Carriers.Lookup(c.Mode == accounts.Test, name)
	if c.Mode == accounts.Live && shipping.CarrierNotServed(err) {
		carrier, err = s.cfg.Carriers.Lookup(true, name)
	}
	switch {
	case errors.Is(err, carriers.ErrNotConfigured):
		return "", shipping.ErrCarrierNotConfigured
	case errors.Is(err, carriers.ErrUnknownCarrier):
		return "", &shipping.InputError{Issues: []shipping.Issue{{Path: "carrier", Message: "is not a carrier of this mode"}}}
	case err != nil:
		return "", err
	}
	if !carrier.Capabilities().Has(carriers.CapManifests) {
		return "", fmt.Errorf("%s: %w", carrier.Name(), ErrManifestNotSupported)
	}
	return carrier.Name(), nil
}

// ManifestGroup is the labels a manifest of the caller's can take at once:
// one carrier's, bought through one carrier account (nil: the server's own
// carrier, or the sandbox), with how many wait for a manifest.
type ManifestGroup struct {
	Carrier          string
	CarrierAccountID *string
	// AccountNumber is the carrier account's, to tell several apart.
	AccountNumber string
	Waiting       int
}

// ManifestGroups lists the groups of the caller's mode whose carrier has a
// manifest step: each with labels waiting, and those that could have some
// (the mode's configured carriers; in live mode the enabled carrier
// accounts), ordered by carrier, the server's own carrier first.
func (s *Service) ManifestGroups(ctx context.Context, c accounts.Caller) ([]ManifestGroup, error) {
	capable := map[string]bool{}
	hasStep := func(name string) bool {
		ok, seen := capable[name]
		if !seen {
			_, err := s.manifester(c, name)
			ok = err == nil
			capable[name] = ok
		}
		return ok
	}
	var groups []ManifestGroup
	seen := map[string]bool{}
	add := func(g ManifestGroup) {
		k := g.Carrier + "|" + deref(g.CarrierAccountID)
		if !seen[k] && hasStep(g.Carrier) {
			seen[k] = true
			groups = append(groups, g)
		}
	}
	waiting, err := s.store.UnmanifestedCounts(ctx, c.AccountID, string(c.Mode))
	if err != nil {
		return nil, err
	}
	numbers := map[string]string{}
	hasEnabled := false
	if c.Mode == accounts.Live {
		enabled, err := s.store.EnabledCarrierAccounts(ctx, c.AccountID, string(c.Mode))
		if err != nil {
			return nil, err
		}
		hasEnabled = len(enabled) > 0
		for _, ca := range enabled {
			numbers[ca.ID] = ca.AccountNumber
		}
		for _, w := range waiting {
			if id := deref(w.CarrierAccountID); id != "" && numbers[id] == "" {
				if ca, err := s.store.CarrierAccountByID(ctx, id); err == nil {
					numbers[id] = ca.AccountNumber
				}
			}
		}
		for _, w := range waiting {
			add(ManifestGroup{Carrier: w.Carrier, CarrierAccountID: w.CarrierAccountID, AccountNumber: numbers[deref(w.CarrierAccountID)], Waiting: w.N})
		}
		for _, ca := range enabled {
			add(ManifestGroup{Carrier: ca.Carrier, CarrierAccountID: &ca.ID, AccountNumber: ca.AccountNumber})
		}
	} else {
		for _, w := range waiting {
			add(ManifestGroup{Carrier: w.Carrier, Waiting: w.N})
		}
	}
	// The server's own carriers can have labels waiting only where new
	// labels are bought through them: not beside enabled carrier accounts.
	if c.Mode == accounts.Test || !hasEnabled && !s.cfg.NoPlatformCarriers {
		if cs, err := s.cfg.Carriers.For(c.Mode == accounts.Test); err == nil {
			for _, carrier := range cs {
				add(ManifestGroup{Carrier: carrier.Name()})
			}
		} else if !errors.Is(err, carriers.ErrNotConfigured) {
			return nil, err
		}
	}
	slices.SortStableFunc(groups, func(a, b ManifestGroup) int {
		return cmp.Or(strings.Compare(a.Carrier, b.Carrier), strings.Compare(deref(a.CarrierAccountID), deref(b.CarrierAccountID)))
	})
	return groups, nil
}

// CreateManifest selects the labels, claims them and queues the carrier
// call, in one transaction: 202 with the manifest creating.
func (s *Service) CreateManifest(ctx context.Context, c accounts.Caller, in NewManifest) (Manifest, bool, error) {
	req := idempotency.Request{AccountID: c.AccountID, Mode: string(c.Mode), Endpoint: "POST /manifests", Key: in.IdempotencyKey, Fingerprint: in.RequestFingerprint, Input: in}
	m, replayed, err := idempotency.Run(ctx, s.idem, req, func(ctx context.Context, commit idempotency.Commit[Manifest]) (Manifest, error) {
		name, err := s.manifester(c, in.Carrier)
		if err != nil {
			return Manifest{}, err
		}
		asked, err := s.ship.AskedCarrierAccount(ctx, c, name, in.CarrierAccountID, false)
		if err != nil {
			return Manifest{}, err
		}
		if asked == nil && in.ServerCarrierOnly {
			asked = &store.CarrierAccount{} // the id "": the server's own carrier
		}
		var want *string
		if in.From != nil {
			k := originKey(*in.From)
			want = &k
		}
		return commit(ctx, func(tx *store.Tx) (Manifest, error) {
			if err := s.accounts.Recheck(ctx, tx, c); err != nil {
				return Manifest{}, err
			}
			rows, from, ca, err := s.manifestSelection(ctx, tx, c, name, in.ShipmentIDs, want, asked)
			if err != nil {
				return Manifest{}, err
			}
			if ca == nil && c.Mode == accounts.Live {
				if _, err := s.cfg.Carriers.Lookup(false, name); shipping.CarrierNotServed(err) {
					return Manifest{}, shipping.ErrCarrierNotConfigured
				}
			}
			fromJSON, err := json.Marshal(from)
			if err != nil {
				return Manifest{}, err
			}
			ids := make([]string, len(rows))
			for i, r := range rows {
				ids[i] = r.ID
			}
			idsJSON, _ := json.Marshal(ids)
			row := store.Manifest{ID: store.NewID("man"), AccountID: c.AccountID, Mode: string(c.Mode), Carrier: name,
				Status: string(ManifestCreating), FromAddress: string(fromJSON), ShipmentIDs: string(idsJSON), CreatedAt: s.now(), CarrierAccountID: ca}
			if err := tx.InsertManifest(ctx, &row); err != nil {
				return Manifest{}, err
			}
			n, err := tx.ClaimForManifest(ctx, row.ID, ids)
			if err != nil {
				return Manifest{}, err
			}
			if int(n) < len(ids) {
				// Another manifest took some of the labels between the read
				// and the claim (PostgreSQL; SQLite writes one at a time).
				if ids, err = s.claimRace(ctx, tx, row, in.ShipmentIDs != nil); err != nil {
					return Manifest{}, err
				}
			}
			if err := tx.Enqueue(ctx, river.InsertManyParams{Args: manifestArgs{ManifestID: row.ID},
				InsertOpts: &river.InsertOpts{MaxAttempts: s.cfg.PurchaseAttempts}}); err != nil {
				return Manifest{}, err
			}
			out, err := manifestOf(row)
			out.ShipmentIDs = ids
			return out, err
		})
	})
	if err != nil || !replayed {
		return m, replayed, err
	}
	// A replay shows the manifest as it is now.
	now, err := s.GetManifest(ctx, c, m.ID)
	return now, true, err
}

// claimRace settles a claim that took fewer labels than selected: a listed
// label taken by another manifest is already_manifested (nothing is kept);
// without a list the manifest keeps what it got, or there was nothing left.
func (s *Service) claimRace(ctx context.Context, tx *store.Tx, row store.Manifest, listed bool) ([]string, error) {
	got, err := tx.ManifestShipmentIDs(ctx, row.ID)
	if err != nil {
		return nil, err
	}
	if listed {
		var all []string
		if err := json.Unmarshal([]byte(row.ShipmentIDs), &all); err != nil {
			return nil, err
		}
		rows, err := tx.ShipmentsByIDs(ctx, row.AccountID, all)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.ManifestID != nil && *r.ManifestID != row.ID {
				return nil, &AlreadyManifestedError{ShipmentID: r.ID, ManifestID: *r.ManifestID}
			}
			if shipping.Status(r.Status) != shipping.Purchased {
				return nil, &ManifestNotPurchasedError{ShipmentID: r.ID, Status: shipping.Status(r.Status)}
			}
		}
		return nil, &AlreadyManifestedError{ShipmentID: all[0]}
	}
	if len(got) == 0 {
		return nil, ErrNothingToManifest
	}
	idsJSON, _ := json.Marshal(got)
	return got, tx.SetManifestShipments(ctx, row.ID, string(idsJSON))
}

// manifestSelection picks the labels of a manifest: the listed ones, each
// checked, or every waiting label of the carrier; then those of one carrier
// account, the one asked for or the only one; then one origin, the one
// asked for (want) or the only one. It returns the carrier account too.
func (s *Service) manifestSelection(ctx context.Context, tx *store.Tx, c accounts.Caller, carrier string, listed []string, want *string, asked *store.CarrierAccount) ([]store.Shipment, shipping.Address, *string, error) {
	type labelFrom struct {
		row  store.Shipment
		from shipping.Address
		path string // shipmentIds.N, for a listed label
	}
	var labels []labelFrom
	if listed != nil {
		rows, err := tx.ShipmentsByIDs(ctx, c.AccountID, listed)
		if err != nil {
			return nil, shipping.Address{}, nil, err
		}
		byID := make(map[string]store.Shipment, len(rows))
		for _, r := range rows {
			byID[r.ID] = r
		}
		seen := make(map[string]bool, len(listed))
		var issues []shipping.Issue
		for i, id := range listed {
			path := "shipmentIds." + strconv.Itoa(i)
			r, ok := byID[id]
			switch {
			case seen[id]:
				issues = append(issues, shipping.Issue{Path: path, Message: "lists " + id + " twice"})
				continue
			case !ok || r.Mode != string(c.Mode):
				issues = append(issues, shipping.Issue{Path: path, Message: "is not a shipment of this account and mode: " + id})
				continue
			case r.IsReturn:
				issues = append(issues, shipping.Issue{Path: path, Message: "is a return label, which its sender hands over: " + id})
				continue
			case r.Carrier != carrier:
				issues = append(issues, shipping.Issue{Path: path, Message: fmt.Sprintf("is a %s label, not %s: %s", r.Carrier, carrier, id)})
				continue
			}
			seen[id] = true
			labels = append(labels, labelFrom{row: r, path: path})
		}
		if len(issues) > 0 {
			return nil, shipping.Address{}, nil, &shipping.InputError{Issues: issues}
		}
		for _, l := range labels {
			if l.row.ManifestID != nil {
				return nil, shipping.Address{}, nil, &AlreadyManifestedError{ShipmentID: l.row.ID, ManifestID: *l.row.ManifestID}
			}
			if shipping.Status(l.row.Status) != shipping.Purchased {
				return nil, shipping.Address{}, nil, &ManifestNotPurchasedError{ShipmentID: l.row.ID, Status: shipping.Status(l.row.Status)}
			}
		}
	} else {
		rows, err := tx.UnmanifestedLabels(ctx, c.AccountID, string(c.Mode), carrier, MaxManifestLabels)
		if err != nil {
			return nil, shipping.Address{}, nil, err
		}
		for _, r := range rows {
			labels = append(labels, labelFrom{row: r})
		}
	}
	// One carrier account per manifest: the form is made with the
	// credentials that bought its labels.
	labels, ca, err := oneCarrierAccount(labels, asked, func(l labelFrom) (*string, string) { return l.row.CarrierAccountID, l.path })
	if err != nil {
		return nil, shipping.Address{}, nil, err
	}
	// One origin per manifest: the carrier's form names one address.
	var origins []string
	fromOf := make(map[string]shipping.Address)
	for i := range labels {
		in, err := s.ship.StoredInput(labels[i].row.Request)
		if err != nil {
			return nil, shipping.Address{}, nil, fmt.Errorf("shipment %s: %w", labels[i].row.ID, err)
		}
		labels[i].from = in.From
		k := originKey(in.From)
		if _, ok := fromOf[k]; !ok {
			fromOf[k] = in.From
			origins = append(origins, k)
		}
	}
	if want != nil {
		var kept []labelFrom
		var issues []shipping.Issue
		for _, l := range labels {
			if originKey(l.from) == *want {
				kept = append(kept, l)
			} else if l.path != "" {
				issues = append(issues, shipping.Issue{Path: l.path, Message: "ships from another address than fromAddress: " + l.row.ID})
			}
		}
		if len(issues) > 0 {
			return nil, shipping.Address{}, nil, &shipping.InputError{Issues: issues}
		}
		labels, origins = kept, []string{*want}
	}
	if len(labels) == 0 {
		return nil, shipping.Address{}, nil, ErrNothingToManifest
	}
	if len(origins) > 1 {
		shown := make([]string, len(origins))
		for i, k := range origins {
			shown[i] = originText(fromOf[k])
		}
		return nil, shipping.Address{}, nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "fromAddress",
			Message: fmt.Sprintf("is required: the labels ship from %d addresses (%s); give fromAddress to pick one", len(origins), strings.Join(shown, "; "))}}}
	}
	rows := make([]store.Shipment, len(labels))
	for i, l := range labels {
		rows[i] = l.row
	}
	return rows, labels[0].from, ca, nil
}

// oneCarrierAccount keeps the labels bought through one carrier account:
// the one asked for (a listed label of another is an issue at its path; an
// asked id "" is the operator's carriers), or the only one among them;
// several without one asked for is an issue at carrierAccountId naming
// them. nil is the operator's carriers.
func oneCarrierAccount[L any](labels []L, asked *store.CarrierAccount, of func(L) (id *string, path string)) ([]L, *string, error) {
	if asked != nil {
		var kept []L
		var issues []shipping.Issue
		for _, l := range labels {
			id, path := of(l)
			if deref(id) == asked.ID {
				kept = append(kept, l)
			} else if path != "" {
				issues = append(issues, shipping.Issue{Path: path, Message: "was not bought through " + shipping.CarrierAccountsText([]string{asked.ID})})
			}
		}
		if len(issues) > 0 {
			return nil, nil, &shipping.InputError{Issues: issues}
		}
		if asked.ID == "" {
			return kept, nil, nil
		}
		return kept, &asked.ID, nil
	}
	var ids []string
	for _, l := range labels {
		id, _ := of(l)
		if !slices.Contains(ids, deref(id)) {
			ids = append(ids, deref(id))
		}
	}
	switch len(ids) {
	case 0:
		return labels, nil, nil
	case 1:
		first, _ := of(labels[0])
		if deref(first) == "" {
			return labels, nil, nil
		}
		return labels, first, nil
	}
	return nil, nil, &shipping.InputError{Issues: []shipping.Issue{{Path: "carrierAccountId", Missing: true,
		Message: fmt.Sprintf("is required: the labels were bought through %d carrier accounts (%s), and each one's go on forms of their own; give carrierAccountId, or list shipmentIds", len(ids), shipping.CarrierAccountsText(ids))}}}
}

// originKey is an address as a carrier's form compares origins: the street,
// city, state, 5-digit ZIP and country, whatever the case and spacing; the
// name and company may differ (one dock, several brands).
func originKey(a shipping.Address) string {
	norm := func(s string) string { return strings.ToUpper(strings.Join(strings.Fields(s), " ")) }
	zip, _, _ := strings.Cut(strings.TrimSpace(a.Zip), "-")
	return strings.Join([]string{norm(a.Street1), norm(deref(a.Street2)), norm(a.City), norm(deref(a.State)), norm(zip), norm(a.Country)}, "|")
}

func originText(a shipping.Address) string {
	parts := []string{a.Street1}
	if st := deref(a.Street2); st != "" {
		parts = append(parts, st)
	}
	parts = append(parts, a.City, strings.TrimSpace(deref(a.State)+" "+a.Zip), strings.ToUpper(a.Country))
	return strings.Join(parts, ", ")
}

func manifestOf(row store.Manifest) (Manifest, error) {
	m := Manifest{ID: row.ID, Mode: accounts.Mode(row.Mode), Carrier: row.Carrier, Status: ManifestStatus(row.Status),
		FormNumber: row.FormNumber, HasForm: row.FormKey != nil, ErrorMessage: row.ErrorMessage,
		CreatedAt: row.CreatedAt, CompletedAt: row.CompletedAt, CarrierAccountID: row.CarrierAccountID}
	if err := json.Unmarshal([]byte(row.ShipmentIDs), &m.ShipmentIDs); err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: shipment ids: %w", row.ID, err)
	}
	if err := json.Unmarshal([]byte(row.FromAddress), &m.From); err != nil {
		return Manifest{}, fmt.Errorf("manifest %s: from address: %w", row.ID, err)
	}
	return m, nil
}

func (s *Service) findManifest(ctx context.Context, c accounts.Caller, id string) (store.Manifest, error) {
	return accounts.Find(c, func() (store.Manifest, error) { return s.store.Manifest(ctx, c.AccountID, id) },
		func(m store.Manifest) (string, string) { return m.AccountID, m.Mode })
}

// GetManifest reads one of the caller's manifests.
func (s *Service) GetManifest(ctx context.Context, c accounts.Caller, id string) (Manifest, error) {
	row, err := s.findManifest(ctx, c, id)
	if err != nil {
		return Manifest{}, err
	}
	return manifestOf(row)
}

// ListManifests pages through the caller's manifests, newest first.
func (s *Service) ListManifests(ctx context.Context, c accounts.Caller, p paging.Request) ([]Manifest, bool, error) {
	rows, more, err := s.store.ListManifests(ctx, c.AccountID, string(c.Mode), p)
	if err != nil {
		return nil, false, err
	}
	out := make([]Manifest, len(rows))
	for i, row := range rows {
		if out[i], err = manifestOf(row); err != nil {
			return nil, false, err
		}
	}
	return out, more, nil
}

// ManifestForm returns the manifest's form PDF: ErrManifestPending while
// it is creating, ErrLabelUnavailable when it failed.
func (s *Service) ManifestForm(ctx context.Context, c accounts.Caller, id string) ([]byte, error) {
	row, err := s.findManifest(ctx, c, id)
	if err != nil {
		return nil, err
	}
	switch {
	case ManifestStatus(row.Status).Creating():
		return nil, ErrManifestPending
	case row.FormKey == nil:
		return nil, shipping.ErrLabelUnavailable
	}
	doc, err := s.cfg.Documents.Get(ctx, *row.FormKey)
	if errors.Is(err, shipping.ErrDocumentNotFound) {
		return nil, shipping.ErrLabelUnavailable
	}
	return doc, err
}

// ManifestFormKey is where a manifest's form is stored.
func ManifestFormKey(id string) string { return "manifests/" + id + ".pdf" }

// manifestArgs asks the carrier for a manifest's form.
type manifestArgs struct {
	ManifestID string `json:"manifest_id"`
}

func (manifestArgs) Kind() string { return "create_manifest" }

type manifestWorker struct {
	river.WorkerDefaults[manifestArgs]
	s *Service
}

func (w *manifestWorker) NextRetry(job *river.Job[manifestArgs]) time.Time {
	return w.s.jobNow().Add(shipping.RetryDelay(w.s.cfg.PurchaseRetryBase, job.Attempt))
}

// Work asks the carrier once per run; an unavailable carrier is retried by
// River, a refusal (or the last attempt) fails the manifest.
func (w *manifestWorker) Work(ctx context.Context, job *river.Job[manifestArgs]) error {
	s := w.s
	row, err := s.store.ManifestByID(ctx, job.Args.ManifestID)
	if err != nil {
		return err
	}
	if !ManifestStatus(row.Status).Creating() {
		return nil
	}
	m, err := manifestOf(row)
	if err != nil {
		return err
	}
	labels, err := s.store.ManifestLabels(ctx, row.ID)
	if err != nil {
		return err
	}
	carrier, err := s.ship.CarrierThrough(ctx, accounts.Mode(row.Mode), row.Carrier, row.CarrierAccountID)
	if err != nil {
		return s.failManifest(ctx, row.ID, err)
	}
	if !carrier.Capabilities().Has(carriers.CapManifests) {
		return s.failManifest(ctx, row.ID, ErrManifestNotSupported)
	}
	// A run after the first may follow one that reached the carrier and
	// died before recording its answer (manifests_recover.go).
	req := carriers.ManifestRequest{Reference: row.ID, From: shipping.CarrierAddress(m.From), ShipDate: s.now(),
		TestMode: accounts.Mode(row.Mode) == accounts.Test, Labels: make([]carriers.ManifestLabel, len(labels)), Resumed: job.Attempt > 1}
	for i, l := range labels {
		req.Labels[i] = carriers.ManifestLabel{TrackingNumber: deref(l.TrackingNumber), CarrierShipmentID: deref(l.CarrierShipmentID)}
	}
	form, err := carrier.Manifest(ctx, req)
	if wait, ok := shipping.OverQuotaWait(err); ok {
		// Not called: the carrier's budget of forms is spent. Not an
		// attempt: the manifest waits for its call.
		s.log.InfoContext(ctx, "manifest waits for the carrier's call budget", slog.String("manifest_id", row.ID), slog.Duration("wait", wait))
		return river.JobSnooze(wait)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return err
	case errors.Is(err, carriers.ErrRejected) || err != nil && job.Attempt >= job.MaxAttempts:
		return s.failManifest(ctx, row.ID, err)
	case err != nil:
		return fmt.Errorf("manifest: %w", err)
	}
	if form.Recovered {
		if form, err = s.recoveredForm(ctx, row, req, form); err != nil {
			return err
		}
	}
	key := ManifestFormKey(row.ID)
	inTx, _ := s.cfg.Documents.(shipping.TxDocuments)
	if inTx == nil {
		if err := s.cfg.Documents.Put(ctx, key, form.PDF); err != nil {
			return fmt.Errorf("store manifest form: %w", err)
		}
	}
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		if inTx != nil {
			if err := inTx.PutTx(ctx, tx, key, form.PDF); err != nil {
				return fmt.Errorf("store manifest form: %w", err)
			}
		}
		to, ok := ManifestStatus(row.Status).Next(ManifestFormMade)
		if !ok {
			return nil // finished by a run before this one
		}
		now := s.now()
		row.Status, row.FormNumber, row.FormKey, row.CompletedAt = string(to), &form.Number, &key, &now
		done, err := tx.FinishManifest(ctx, row)
		if err != nil || !done {
			return err
		}
		if form.Recovered {
			if err := tx.InsertAudit(ctx, &store.AuditEntry{AccountID: row.AccountID, Mode: row.Mode, Actor: shipping.AuditActor,
				Action: AuditManifestFormRecovered, Target: row.ID + " " + form.Number, CreatedAt: now}); err != nil {
				return err
			}
		}
		return s.recordManifest(ctx, tx, row, webhooks.EventManifestCreated)
	})
}

// failManifest records a manifest the carrier refused and frees its labels
// for another.
func (s *Service) failManifest(ctx context.Context, id string, cause error) error {
	s.log.WarnContext(ctx, "manifest failed", slog.String("manifest_id", id), slog.String("error", cause.Error()))
	return s.store.Tx(ctx, func(tx *store.Tx) error {
		row, err := tx.ManifestByID(ctx, id)
		if err != nil {
			return err
		}
		ids, err := tx.ManifestShipmentIDs(ctx, id)
		if err != nil {
			return err
		}
		to, ok := ManifestStatus(row.Status).Next(ManifestRefused)
		if !ok {
			return nil // finished by a run before this one
		}
		now, msg := s.now(), "manifest refused by the carrier: "+cause.Error()
		row.Status, row.ErrorMessage, row.CompletedAt = string(to), &msg, &now
		done, err := tx.FinishManifest(ctx, row)
		if err != nil || !done {
			return err
		}
		if err := tx.ReleaseManifest(ctx, id, ids); err != nil {
			return err
		}
		return s.recordManifest(ctx, tx, row, webhooks.EventManifestFailed)
	})
}

func (s *Service) recordManifest(ctx context.Context, tx *store.Tx, row store.Manifest, eventType string) error {
	m, err := manifestOf(row)
	if err != nil {
		return err
	}
	var data json.RawMessage
	if s.eventData != nil {
		data, err = s.eventData(m)
	} else {
		data, err = json.Marshal(m)
	}
	if err != nil {
		return fmt.Errorf("event data: %w", err)
	}
	_, err = s.webhooks.Record(ctx, tx, row.AccountID, row.Mode, eventType, data)
	return err
}
