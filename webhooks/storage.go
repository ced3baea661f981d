package webhooks

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// Storage is what subscriptions, events and deliveries need of the database: reads on its pool and
// the transactions they open (Tx). The domain declares it and *store.Store
// implements it; the conformance suite (store/storetest, group "webhooks")
// proves each method on SQLite, SQLite with caches and PostgreSQL.
type Storage interface {
	DeliveryAttempts(ctx context.Context, deliveryIDs []string) (map[string][]store.DeliveryAttempt, error)
	DeliveryCounts(ctx context.Context, eventIDs []string) (map[string]map[string]int, error)
	DeliveriesToSend(ctx context.Context, ids []string) ([]store.DeliveryToSend, error)
	ListDeliveries(ctx context.Context, accountID string, subscriptionID string, p paging.Request) ([]store.Delivery, bool, error)
	ListEvents(ctx context.Context, accountID string, mode string, eventType string, p paging.Request) ([]store.Event, bool, error)
	ListSubscriptions(ctx context.Context, accountID string, mode string, p paging.Request) ([]store.Subscription, bool, error)
	Subscription(ctx context.Context, accountID string, id string) (store.Subscription, error)
	SubscriptionByID(ctx context.Context, id string) (store.Subscription, error)
	Tx(ctx context.Context, fn func(tx *store.Tx) error) (err error)
}

// TxStorage is what subscriptions, events and deliveries read and write inside a transaction
// (*store.Tx implements it).
type TxStorage interface {
	CountActiveSubscriptions(ctx context.Context, accountID string, mode string) (int, error)
	DeliverableSubscriptions(ctx context.Context, accountID string, mode string) ([]store.Subscription, error)
	DeliveryAttempts(ctx context.Context, deliveryIDs []string) (map[string][]store.DeliveryAttempt, error)
	Enqueue(ctx context.Context, jobs ...river.InsertManyParams) error
	EnqueueNew(ctx context.Context, jobs ...river.InsertManyParams) error
	InsertDelivery(ctx context.Context, d *store.Delivery) (inserted bool, err error)
	InsertDeliveries(ctx context.Context, ds []*store.Delivery) (inserted []bool, err error)
	InsertDeliveryAttempts(ctx context.Context, as []*store.DeliveryAttempt) error
	InsertEvent(ctx context.Context, e *store.Event) error
	InsertSubscription(ctx context.Context, sub *store.Subscription) error
	LockAccount(ctx context.Context, id string) (store.Account, error)
	LockDelivery(ctx context.Context, id string) (store.SubscribedDelivery, error)
	LockDeliveries(ctx context.Context, ids []string) ([]store.SubscribedDelivery, error)
	RevokeSubscription(ctx context.Context, accountID string, id string, now time.Time) error
	SettleDeliveries(ctx context.Context, subscriptionID string, from string, to string, lastError string, now time.Time) (int64, error)
	SubscriptionByID(ctx context.Context, id string) (store.Subscription, error)
	UpdateDelivery(ctx context.Context, d *store.Delivery) error
	UpdateDeliveries(ctx context.Context, ds []*store.Delivery) error
	UpdateSubscription(ctx context.Context, sub *store.Subscription) error
}

var (
	_ Storage   = (*store.Store)(nil)
	_ TxStorage = (*store.Tx)(nil)
)
