package store

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// The read path of a label (GET /labels/{id}) reads its shipment row and its
// tracker's latest scans: two queries, about half of a GET's CPU. A Store
// that caches keeps the rows it read, and drops one whenever it learns that
// the row may have changed:
//
//   - SQLite: one server process writes those rows (the ServerLock; the CLI
//     never writes shipments or scans), and every write goes through a Tx of
//     this Store, so this process knows exactly when each row changes.
//     CacheDetails turns the cache on.
//   - PostgreSQL: several instances write them, so every instance hears of
//     every change from the database: triggers send each changed key to the
//     listeners when its transaction commits (changes.go). The cache is
//     always on; a hit waits for a barrier, which is what makes it fresh.
//
// The cache never serves a row older than a commit that finished before the
// read began:
//
//   - A Tx that writes a shipment or a scan marks its key busy before the
//     statement runs and drops the cached row. Until the transaction has
//     ended (committed or rolled back), reads of that key go to the database
//     and nothing is cached for it. When it ends, the row is dropped again
//     and the mark removed, before the writer's Store.Tx returns.
//   - On PostgreSQL, the notice of a commit, by this instance or another,
//     drops its key too; a hit is served only after a barrier that began
//     after the read did, by which time the notice of every commit that
//     finished before the read has been applied (changes.go).
//   - A row read from the database is kept only if no key was marked,
//     released or dropped while it was being read: otherwise it may be older
//     than a commit that finished meanwhile.
//
// So a reader sees either the cached row while no write of it is under way
// (the same row the database holds) or the database itself.

// maxCachedDetails bounds the cache; a full cache drops an arbitrary entry
// for each new one. A shipment row is about 1.5 KiB, and the heap peaks at
// three times what is live (GOGC=200, cmd/shipd): 10,000 rows and the
// server's kept answers took make bench's peak RSS to 161 MiB, over its
// 150 MiB; 4,096 rows and 1,024 answers, 127 MiB (ARCHITECTURE.md).
const maxCachedDetails = 4096

type detailKind uint8

const (
	shipmentDetail      detailKind = iota
	scansDetail                    // a tracker's latest scans, by tracker id
	subscriptionsDetail            // an account's deliverable subscriptions in one mode (subscriptionsKey)
)

type detailKey struct {
	kind detailKind
	id   string
}

type cachedScans struct {
	limit  int
	events []TrackingEvent
	rev    uint64
}

type detailCache struct {
	// revs numbers what is kept (Shipment.Revision, CachedScans): never
	// twice the same number, so a revision names one content of one key.
	revs atomic.Uint64

	mu sync.RWMutex
	// gen moves whenever a key is marked busy or released.
	gen     uint64
	busy    map[detailKey]int
	entries map[detailKey]any // Shipment or cachedScans
}

func newDetailCache() *detailCache {
	return &detailCache{busy: map[detailKey]int{}, entries: map[detailKey]any{}}
}

// lookup returns the cached value of k, or the generation to fill it with.
// fill is false when k is busy: read the database and keep nothing.
func (c *detailCache) lookup(k detailKey) (v any, hit bool, gen uint64, fill bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.busy[k] > 0 {
		return nil, false, 0, false
	}
	if v, ok := c.entries[k]; ok {
		return v, true, 0, false
	}
	return nil, false, c.gen, true
}

// revision is a new revision for a value about to be kept.
func (c *detailCache) revision() uint64 { return c.revs.Add(1) }

// keep stores v for k if nothing was marked or released since gen, and
// reports whether it did.
func (c *detailCache) keep(k detailKey, gen uint64, v any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || c.busy[k] > 0 {
		return false
	}
	if len(c.entries) >= maxCachedDetails {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = v
	return true
}

// mark makes k busy until release: a write of it is under way.
func (c *detailCache) mark(k detailKey) {
	c.mu.Lock()
	c.busy[k]++
	delete(c.entries, k)
	c.gen++
	c.mu.Unlock()
}

// release ends the writes of keys, once their transaction has ended.
func (c *detailCache) release(keys []detailKey) {
	if len(keys) == 0 {
		return
	}
	c.mu.Lock()
	for _, k := range keys {
		if c.busy[k]--; c.busy[k] <= 0 {
			delete(c.busy, k)
		}
		delete(c.entries, k)
	}
	c.gen++
	c.mu.Unlock()
}

// drop forgets k: a commit changed it (a notice on PostgreSQL).
func (c *detailCache) drop(k detailKey) {
	c.mu.Lock()
	delete(c.entries, k)
	c.gen++
	c.mu.Unlock()
}

// clear forgets everything: changes may have gone unheard.
func (c *detailCache) clear() {
	c.mu.Lock()
	clear(c.entries)
	c.gen++
	c.mu.Unlock()
}

// CacheDetails keeps the shipment rows and tracking scans that reads of this
// Store return, and the deliverable subscriptions that transactions read,
// dropping each one when a Tx writes it (see above). Only the
// holder of the ServerLock may turn it on: with one server per SQLite
// database, its own transactions are the only writes of those rows.
// PostgreSQL's Store always caches shipment rows and scans (not the
// subscriptions), kept current by its change feed.
func (s *Store) CacheDetails(_ *ServerLock) {
	if s.dialect == sqliteDialect && s.details == nil {
		s.details = newDetailCache()
	}
}

// CachesDetails reports whether reads of shipment rows and scans are served
// from what this Store already read (CacheDetails; PostgreSQL always).
func (s *Store) CachesDetails() bool { return s.details != nil }

// touch marks k busy for the rest of the transaction.
func (t *Tx) touch(k detailKey) {
	if t.details == nil {
		return
	}
	t.details.mark(k)
	t.touched = append(t.touched, k)
}

// ended releases what the transaction marked; its end (commit or rollback)
// is known.
func (t *Tx) ended() {
	if t.details != nil {
		t.details.release(t.touched)
		t.touched = nil
	}
}

// subscriptionsKey names an account's deliverable subscriptions in one mode.
func subscriptionsKey(accountID, mode string) detailKey {
	return detailKey{subscriptionsDetail, accountID + " " + mode}
}

// DeliverableSubscriptions returns the enabled, active subscriptions of an
// account in one mode, as the transaction sees them. Every event asks it
// (webhooks fan out in the transaction that records the event), and almost
// always gets the same answer, most often none; with the cache on, the answer
// is kept until a Tx writes that account's subscriptions in that mode. While
// such a write is under way, in this transaction or another of its group
// commit, the database answers: it alone knows what this transaction sees.
func (t *Tx) DeliverableSubscriptions(ctx context.Context, accountID, mode string) ([]Subscription, error) {
	if t.details == nil || t.d == postgresDialect {
		// PostgreSQL's instances hear of no subscription change.
		return t.reader.DeliverableSubscriptions(ctx, accountID, mode)
	}
	k := subscriptionsKey(accountID, mode)
	v, hit, gen, fill := t.details.lookup(k)
	if hit {
		return slices.Clone(v.([]Subscription)), nil
	}
	subs, err := t.reader.DeliverableSubscriptions(ctx, accountID, mode)
	if err != nil {
		return nil, err
	}
	if fill {
		t.details.keep(k, gen, slices.Clone(subs))
	}
	return subs, nil
}

// CachedShipment is Shipment served from what this server already read
// when it caches (CacheDetails): never older than a commit that finished
// before the call. A rule that reads then writes reads in its Tx instead.
func (s *Store) CachedShipment(ctx context.Context, accountID, id string) (Shipment, error) {
	if s.details == nil {
		return s.reader.Shipment(ctx, accountID, id)
	}
	k := detailKey{shipmentDetail, id}
	v, hit, gen, fill := s.fresh(ctx, k)
	if hit {
		row := v.(Shipment)
		if row.AccountID != accountID {
			return Shipment{}, ErrNotFound
		}
		return row, nil
	}
	row, err := s.reader.ShipmentByID(ctx, id)
	if err != nil {
		return Shipment{}, err
	}
	if fill {
		kept := row
		kept.Revision = s.details.revision()
		if s.details.keep(k, gen, kept) {
			row = kept
		}
	}
	if row.AccountID != accountID {
		return Shipment{}, ErrNotFound
	}
	return row, nil
}

// CachedTrackingEvents is TrackingEvents served from what this server
// already read when it caches, on the same terms as CachedShipment.
func (s *Store) CachedTrackingEvents(ctx context.Context, trackerID string, limit int) ([]TrackingEvent, error) {
	events, _, err := s.CachedScans(ctx, trackerID, limit)
	return events, err
}

// CachedScans is CachedTrackingEvents with the revision of the cached
// reading, as Shipment.Revision names a row's: equal revisions are equal
// scans; 0 when they did not come from the cache.
func (s *Store) CachedScans(ctx context.Context, trackerID string, limit int) ([]TrackingEvent, uint64, error) {
	if s.details == nil {
		events, err := s.reader.TrackingEvents(ctx, trackerID, limit)
		return events, 0, err
	}
	k := detailKey{scansDetail, trackerID}
	v, hit, gen, fill := s.fresh(ctx, k)
	if hit {
		if c := v.(cachedScans); c.limit == limit {
			return slices.Clone(c.events), c.rev, nil
		}
	}
	events, err := s.reader.TrackingEvents(ctx, trackerID, limit)
	if err != nil {
		return nil, 0, err
	}
	if fill {
		rev := s.details.revision()
		if s.details.keep(k, gen, cachedScans{limit: limit, events: slices.Clone(events), rev: rev}) {
			return events, rev, nil
		}
	}
	return events, 0, nil
}

// fresh is lookup for a read: on PostgreSQL a hit counts only after a
// barrier (changes.go), and when none can be had the database answers.
func (s *Store) fresh(ctx context.Context, k detailKey) (v any, hit bool, gen uint64, fill bool) {
	v, hit, gen, fill = s.details.lookup(k)
	if !hit || s.feed == nil {
		return v, hit, gen, fill
	}
	if err := s.feed.barrier(ctx); err != nil {
		return nil, false, 0, false
	}
	return s.details.lookup(k)
}
