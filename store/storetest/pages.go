package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// listRows is how many rows of the list under test each fill inserts; the
// walks use limits below, equal to and above it.
const listRows = 7

// pagedList is one paginated list of the store, filled with listRows rows
// interleaved with rows that must not show up in it.
type pagedList struct {
	// list reads one page of the list, as ids.
	list func(ctx context.Context, p paging.Request) ([]string, bool, error)
	// add inserts one more row of the list and returns its id.
	add func(t *testing.T) string
	// want is the ids of the list's rows, oldest first.
	want []string
	// strangers name no row of the list, so they are no cursor of it.
	strangers []stranger
	// sibling is a row of the same account and kind in a parallel list (the
	// other mode, or another subscription's deliveries).
	sibling stranger
}

// stranger is an id that is no cursor of the list, and why.
type stranger struct{ why, id string }

// pagedLists are the store's paginated lists, by name.
var pagedLists = []struct {
	name string
	fill func(t *testing.T, s *store.Store) pagedList
}{
	{"ListAddresses", fillAddresses},
	{"ListShipments", func(t *testing.T, s *store.Store) pagedList { return fillShipments(t, s, "") }},
	{"ListShipments by status", func(t *testing.T, s *store.Store) pagedList { return fillShipments(t, s, "purchased") }},
	{"ListEvents", func(t *testing.T, s *store.Store) pagedList { return fillEvents(t, s, "") }},
	{"ListEvents by type", func(t *testing.T, s *store.Store) pagedList { return fillEvents(t, s, "tracker.updated") }},
	{"ListSubscriptions", fillSubscriptions},
	{"ListDeliveries", fillDeliveries},
}

// testPages covers page.go through every list: keyset pages, newest first,
// and cursors resolved only within the caller's list.
func testPages(t *testing.T, open Opener) {
	for _, pl := range pagedLists {
		leaf(t, open, pl.name, func(t *testing.T, s *store.Store) {
			l := pl.fill(t, s)
			for _, limit := range []int{1, 3, listRows, listRows + 3} {
				walk(t, l, limit, l.want, nil)
			}
			// Rows inserted while a client walks are newer than its cursor:
			// the rest of the walk neither repeats nor skips a row.
			walk(t, l, 2, l.want, func() { l.want = append(l.want, l.add(t)) })
			walk(t, l, listRows+1, l.want, nil)

			for _, st := range append(l.strangers, stranger{"an unknown id", "x_0123456789abcdef01234567"}) {
				_, _, err := l.list(t.Context(), paging.Request{After: st.id, Limit: 3})
				wantErr(t, "cursor of "+st.why, err, paging.ErrInvalidCursor)
			}
		})
	}

	leaf(t, open, "empty lists", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		sub := newSubscription(t, s, acct.ID, "test", "https://example.com/hooks")
		first := paging.Request{Limit: 10}
		check := func(name string, n int, more bool, err error) {
			t.Helper()
			noErr(t, name, err)
			if n != 0 || more {
				t.Errorf("%s of an empty list = %d rows, more %v; want none and false", name, n, more)
			}
		}
		addresses, more, err := s.ListAddresses(ctx, acct.ID, "test", first)
		check("ListAddresses", len(addresses), more, err)
		shipments, more, err := s.ListShipments(ctx, acct.ID, "test", "", first)
		check("ListShipments", len(shipments), more, err)
		events, more, err := s.ListEvents(ctx, acct.ID, "test", "", first)
		check("ListEvents", len(events), more, err)
		subs, more, err := s.ListSubscriptions(ctx, acct.ID, "live", first)
		check("ListSubscriptions", len(subs), more, err)
		deliveries, more, err := s.ListDeliveries(ctx, acct.ID, sub.ID, first)
		check("ListDeliveries", len(deliveries), more, err)
	})

	leaf(t, open, "cursor of the other mode or subscription is refused", func(t *testing.T, s *store.Store) {
		for _, pl := range pagedLists {
			l := pl.fill(t, s)
			_, _, err := l.list(t.Context(), paging.Request{After: l.sibling.id, Limit: 3})
			if !errors.Is(err, paging.ErrInvalidCursor) {
				t.Errorf("%s with the cursor of %s: got %v, want paging.ErrInvalidCursor", pl.name, l.sibling.why, err)
			}
		}
	})
}

// walk reads the whole list limit rows at a time, checking every page, and
// calls midway (if set) after the first page. want is oldest first.
func walk(t *testing.T, l pagedList, limit int, want []string, midway func()) {
	t.Helper()
	newestFirst := slices.Clone(want)
	slices.Reverse(newestFirst)
	var wantPages [][]string
	var wantMore []bool
	for chunk := range slices.Chunk(newestFirst, limit) {
		wantPages = append(wantPages, chunk)
		wantMore = append(wantMore, true)
	}
	if len(wantMore) == 0 { // an empty list is one empty page
		wantPages, wantMore = [][]string{nil}, []bool{false}
	}
	wantMore[len(wantMore)-1] = false

	var pages [][]string
	var mores []bool
	after := ""
	for {
		ids, more, err := l.list(t.Context(), paging.Request{After: after, Limit: limit})
		noErr(t, fmt.Sprintf("page %d of limit %d", len(pages)+1, limit), err)
		pages, mores = append(pages, ids), append(mores, more)
		if !more || len(ids) == 0 || len(pages) > len(want)+1 {
			break
		}
		after = ids[len(ids)-1]
		if midway != nil && len(pages) == 1 {
			midway()
		}
	}
	if d := cmp.Diff(wantPages, pages, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("pages of limit %d (-want +got):\n%s", limit, d)
	}
	if d := cmp.Diff(wantMore, mores); d != "" {
		t.Errorf("more flags of the pages of limit %d (-want +got):\n%s", limit, d)
	}
}

// ids maps rows to their ids.
func ids[T any](rows []T, id func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

func fillAddresses(t *testing.T, s *store.Store) pagedList {
	acct, other := newAccount(t, s), newAccount(t, s)
	var l pagedList
	var theirs, otherMode string
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		for range listRows {
			mine, live, foreign := addressRow(acct.ID, "test"), addressRow(acct.ID, "live"), addressRow(other.ID, "test")
			for _, a := range []*store.Address{mine, live, foreign} {
				noErr(t, "InsertAddress", tx.InsertAddress(ctx, a))
			}
			l.want = append(l.want, mine.ID)
			theirs, otherMode = foreign.ID, live.ID
		}
		return nil
	})
	l.list = func(ctx context.Context, p paging.Request) ([]string, bool, error) {
		rows, more, err := s.ListAddresses(ctx, acct.ID, "test", p)
		return ids(rows, func(a store.Address) string { return a.ID }), more, err
	}
	l.add = func(t *testing.T) string { return newAddress(t, s, acct.ID, "test").ID }
	l.strangers = []stranger{
		{"another account's address", theirs},
		{"the account's shipment", newShipment(t, s, acct.ID, "test", "paying").ID},
	}
	l.sibling = stranger{"the account's live address", otherMode}
	return l
}

// fillShipments fills the account's test shipments; with status set, the
// list is of that status and the other shipments are of another one.
func fillShipments(t *testing.T, s *store.Store, status string) pagedList {
	acct, other := newAccount(t, s), newAccount(t, s)
	wantStatus, otherStatus := "purchased", "paying"
	if status == "" {
		otherStatus = "purchased" // without a filter, every status is listed
	}
	var l pagedList
	var theirs, otherMode string
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		for range listRows {
			mine := shipmentRow(acct.ID, "test", wantStatus)
			noise := []*store.Shipment{shipmentRow(acct.ID, "live", wantStatus), shipmentRow(other.ID, "test", wantStatus)}
			if status != "" {
				noise = append(noise, shipmentRow(acct.ID, "test", otherStatus))
			}
			for _, sh := range append([]*store.Shipment{mine}, noise...) {
				noErr(t, "InsertShipment", tx.InsertShipment(ctx, sh))
			}
			l.want = append(l.want, mine.ID)
			otherMode, theirs = noise[0].ID, noise[1].ID
		}
		return nil
	})
	l.list = func(ctx context.Context, p paging.Request) ([]string, bool, error) {
		rows, more, err := s.ListShipments(ctx, acct.ID, "test", status, p)
		return ids(rows, func(sh store.Shipment) string { return sh.ID }), more, err
	}
	l.add = func(t *testing.T) string { return newShipment(t, s, acct.ID, "test", wantStatus).ID }
	l.strangers = []stranger{
		{"another account's shipment", theirs},
		{"the account's address", newAddress(t, s, acct.ID, "test").ID},
	}
	l.sibling = stranger{"the account's live shipment", otherMode}
	return l
}

// fillEvents fills the account's test events; with eventType set, the list
// is of that type and the other events are of another one.
func fillEvents(t *testing.T, s *store.Store, eventType string) pagedList {
	acct, other := newAccount(t, s), newAccount(t, s)
	wantType := "tracker.updated"
	var l pagedList
	var theirs, otherMode string
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		for range listRows {
			mine := eventRow(acct.ID, "test", wantType)
			noise := []*store.Event{eventRow(acct.ID, "live", wantType), eventRow(other.ID, "test", wantType)}
			if eventType != "" {
				noise = append(noise, eventRow(acct.ID, "test", "label.purchased"))
			}
			for _, e := range append([]*store.Event{mine}, noise...) {
				noErr(t, "InsertEvent", tx.InsertEvent(ctx, e))
			}
			l.want = append(l.want, mine.ID)
			otherMode, theirs = noise[0].ID, noise[1].ID
		}
		return nil
	})
	l.list = func(ctx context.Context, p paging.Request) ([]string, bool, error) {
		rows, more, err := s.ListEvents(ctx, acct.ID, "test", eventType, p)
		return ids(rows, func(e store.Event) string { return e.ID }), more, err
	}
	l.add = func(t *testing.T) string { return newEvent(t, s, acct.ID, "test", wantType).ID }
	l.strangers = []stranger{
		{"another account's event", theirs},
		{"the account's shipment", newShipment(t, s, acct.ID, "test", "paying").ID},
	}
	l.sibling = stranger{"the account's live event", otherMode}
	return l
}

// fillSubscriptions fills the account's active test subscriptions, with
// revoked ones in between.
func fillSubscriptions(t *testing.T, s *store.Store) pagedList {
	acct, other := newAccount(t, s), newAccount(t, s)
	var l pagedList
	var theirs, otherMode string
	urls := 0
	nextURL := func() string { urls++; return fmt.Sprintf("https://example.com/hooks/%d", urls) }
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		for range listRows {
			mine, revoked := subscriptionRow(acct.ID, "test", nextURL()), subscriptionRow(acct.ID, "test", nextURL())
			live, foreign := subscriptionRow(acct.ID, "live", nextURL()), subscriptionRow(other.ID, "test", nextURL())
			for _, sub := range []*store.Subscription{mine, revoked, live, foreign} {
				noErr(t, "InsertSubscription", tx.InsertSubscription(ctx, sub))
			}
			noErr(t, "RevokeSubscription", tx.RevokeSubscription(ctx, acct.ID, revoked.ID, t0))
			l.want = append(l.want, mine.ID)
			theirs, otherMode = foreign.ID, live.ID
		}
		return nil
	})
	l.list = func(ctx context.Context, p paging.Request) ([]string, bool, error) {
		rows, more, err := s.ListSubscriptions(ctx, acct.ID, "test", p)
		return ids(rows, func(sub store.Subscription) string { return sub.ID }), more, err
	}
	l.add = func(t *testing.T) string { return newSubscription(t, s, acct.ID, "test", nextURL()).ID }
	l.strangers = []stranger{
		{"another account's subscription", theirs},
		{"the account's event", newEvent(t, s, acct.ID, "test", "label.purchased").ID},
	}
	l.sibling = stranger{"the account's live subscription", otherMode}
	return l
}

// fillDeliveries fills one subscription's deliveries, with deliveries of
// the account's other subscription and of another account in between.
func fillDeliveries(t *testing.T, s *store.Store) pagedList {
	acct, other := newAccount(t, s), newAccount(t, s)
	sub := newSubscription(t, s, acct.ID, "test", "https://example.com/a")
	sibling := newSubscription(t, s, acct.ID, "test", "https://example.com/b")
	foreign := newSubscription(t, s, other.ID, "test", "https://example.com/a")
	var l pagedList
	var theirs, siblings string
	events := 0
	nextEvent := func() string { events++; return fmt.Sprintf("evt_%d", events) }
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		for range listRows {
			event := nextEvent()
			mine, next, far := deliveryRow(sub, event), deliveryRow(sibling, event), deliveryRow(foreign, event)
			for _, d := range []*store.Delivery{mine, next, far} {
				if _, err := tx.InsertDelivery(ctx, d); err != nil {
					return err
				}
			}
			l.want = append(l.want, mine.ID)
			theirs, siblings = far.ID, next.ID
		}
		return nil
	})
	l.list = func(ctx context.Context, p paging.Request) ([]string, bool, error) {
		rows, more, err := s.ListDeliveries(ctx, acct.ID, sub.ID, p)
		return ids(rows, func(d store.Delivery) string { return d.ID }), more, err
	}
	l.add = func(t *testing.T) string { return newDelivery(t, s, sub, nextEvent()).ID }
	l.strangers = []stranger{
		{"another account's delivery", theirs},
		{"the account's subscription", sub.ID},
	}
	l.sibling = stranger{"a delivery of another subscription of the account", siblings}
	return l
}
