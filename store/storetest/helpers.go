package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shipd-dev/shipd/store"
)

// t0 is the time fixtures are stamped with. It has microseconds (what
// PostgreSQL keeps) and no zero fraction, so a backend that dropped the
// fraction of a second would fail the comparisons.
var t0 = time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC)

// at is t0 moved by d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// ptr returns a pointer to v, for the nullable columns.
func ptr[T any](v T) *T { return &v }

// equateTimes compares times as instants within a millisecond: a database may
// round the nanoseconds and hand times back in another location.
var equateTimes = cmpopts.EquateApproxTime(time.Millisecond)

// diff is cmp.Diff with the suite's time tolerance.
func diff(want, got any) string { return cmp.Diff(want, got, equateTimes, ignoreRevisions) }

// ignoreRevisions: which cached reading a row is (Shipment.Revision) is not
// its content; the revisions have a test of their own (testFreshness).
var ignoreRevisions = cmpopts.IgnoreFields(store.Shipment{}, "Revision")

// mustTx runs fn in a write transaction and fails the test if it fails.
func mustTx(t *testing.T, s *store.Store, fn func(ctx context.Context, tx *store.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.Tx(ctx, func(tx *store.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("transaction: %v", err)
	}
}

// wantErr fails the test unless err is target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// noErr fails the test on err.
func noErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// race runs fn n times at once, released together so that they overlap as
// much as the database lets them, and returns the errors in call order.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// newAccount inserts an account with a payment method and returns it.
func newAccount(t *testing.T, s *store.Store) store.Account {
	t.Helper()
	a := store.Account{ID: store.NewID("acct"), Name: "Acme Parcels", HasPaymentMethod: true, Currency: "USD", CreatedAt: t0}
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertAccount(ctx, a) })
	return a
}

// tokenRow is a token of accountID in test mode that was never used nor revoked.
func tokenRow(accountID string) store.Token {
	id := store.NewID("tok")
	hash := sha256.Sum256([]byte("secret of " + id))
	return store.Token{ID: id, AccountID: accountID, Mode: "test", Prefix: "svc_test_abc123",
		SecretHash: hash[:], Scopes: "read:shipments write:shipments", CreatedAt: t0}
}

// newToken inserts tokenRow(accountID) and returns it.
func newToken(t *testing.T, s *store.Store, accountID string) store.Token {
	t.Helper()
	tok := tokenRow(accountID)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertToken(ctx, tok) })
	return tok
}

// addressRow is an address of accountID in mode with every text column set.
func addressRow(accountID, mode string) *store.Address {
	return &store.Address{ID: store.NewID("adr"), AccountID: accountID, Mode: mode, CreatedAt: t0,
		Name: "Ada Lovelace", Company: "Analytical Engines", Street1: "12 St James's Square", Street2: "Floor 2",
		City: "London", State: "LDN", Zip: "SW1Y 4JH", Country: "GB", Phone: "+44 20 7946 0000",
		Email: "ada@example.com", Residential: ptr(true)}
}

// newAddress inserts addressRow(accountID, mode) and returns it with its seq.
func newAddress(t *testing.T, s *store.Store, accountID, mode string) store.Address {
	t.Helper()
	a := addressRow(accountID, mode)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertAddress(ctx, a) })
	return *a
}

// shipmentRow is a freshly created shipment, before any purchase result.
func shipmentRow(accountID, mode, status string) *store.Shipment {
	return &store.Shipment{ID: store.NewID("shp"), AccountID: accountID, Mode: mode, Status: status,
		CreatedAt: t0, UpdatedAt: at(time.Second), Carrier: "usps", Service: "Priority", ServiceCategory: "standard",
		CarrierRateCents: 812, PlatformFeeCents: 25, CustomerPriceCents: 837, BalanceAppliedCents: 300,
		ChargeAmountCents: 537, Currency: "USD", EstimatedDays: 2, Request: `{"parcel":{"weight_oz":12}}`, Source: "api"}
}

// newShipment inserts shipmentRow(accountID, mode, status) and returns it with its seq.
func newShipment(t *testing.T, s *store.Store, accountID, mode, status string) store.Shipment {
	t.Helper()
	sh := shipmentRow(accountID, mode, status)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertShipment(ctx, sh) })
	return *sh
}

// eventRow is an event of accountID.
func eventRow(accountID, mode, eventType string) *store.Event {
	return &store.Event{ID: store.NewID("evt"), AccountID: accountID, Mode: mode, Type: eventType,
		APIVersion: "2025-01-01", CreatedAt: t0, Data: `{"id":"shp_1","status":"purchased"}`}
}

// newEvent inserts eventRow(accountID, mode, eventType) and returns it with its seq.
func newEvent(t *testing.T, s *store.Store, accountID, mode, eventType string) store.Event {
	t.Helper()
	e := eventRow(accountID, mode, eventType)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertEvent(ctx, e) })
	return *e
}

// subscriptionRow is an enabled, active subscription of accountID to url.
func subscriptionRow(accountID, mode, url string) *store.Subscription {
	return &store.Subscription{ID: store.NewID("wh"), AccountID: accountID, Mode: mode, URL: url,
		EventsJSON: `["label.purchased","tracker.updated"]`, Description: ptr("orders endpoint"), Enabled: true,
		SecretCiphertext: "sealed:abc", CreatedAt: t0, UpdatedAt: t0}
}

// newSubscription inserts subscriptionRow(accountID, mode, url) and returns it with its seq.
func newSubscription(t *testing.T, s *store.Store, accountID, mode, url string) store.Subscription {
	t.Helper()
	sub := subscriptionRow(accountID, mode, url)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertSubscription(ctx, sub) })
	return *sub
}

// deliveryRow is a pending delivery of eventID to sub, before any attempt.
func deliveryRow(sub store.Subscription, eventID string) *store.Delivery {
	return &store.Delivery{ID: store.NewID("whd"), SubscriptionID: sub.ID, AccountID: sub.AccountID, Mode: sub.Mode,
		EventID: eventID, EventType: "label.purchased", Status: "pending",
		NextAttemptAt: ptr(at(time.Minute)), CreatedAt: t0, UpdatedAt: t0}
}

// newDelivery inserts deliveryRow(sub, eventID) and returns it with its seq.
func newDelivery(t *testing.T, s *store.Store, sub store.Subscription, eventID string) store.Delivery {
	t.Helper()
	d := deliveryRow(sub, eventID)
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
		inserted, err := tx.InsertDelivery(ctx, d)
		if err == nil && !inserted {
			return errors.New("delivery fixture not inserted")
		}
		return err
	})
	return *d
}
