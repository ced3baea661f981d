package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// BenchmarkDeliveryToSend compares, on SQLite, the two ways DeliveryToSend
// reads a delivery with its subscription and event: SQLite's point reads
// against the join PostgreSQL runs (one round trip instead of three).
func BenchmarkDeliveryToSend(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	now := time.Now().UTC()
	const events, subs = 400, 10
	var ids []string
	err = st.Tx(ctx, func(tx *Tx) error {
		if err := tx.InsertAccount(ctx, Account{ID: "acct_bench", Name: "bench", HasPaymentMethod: true, Currency: "USD", CreatedAt: now}); err != nil {
			return err
		}
		for j := range subs {
			if err := tx.InsertSubscription(ctx, &Subscription{ID: fmt.Sprintf("wh_%d", j), AccountID: "acct_bench", Mode: "test",
				URL: fmt.Sprintf("https://example.com/%d", j), EventsJSON: `["shipment.purchased"]`, Enabled: true,
				SecretCiphertext: "sealed", CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		for i := range events {
			e := &Event{ID: fmt.Sprintf("evt_%d", i), AccountID: "acct_bench", Mode: "test", Type: "shipment.purchased",
				APIVersion: "2024-01-01", CreatedAt: now, Data: `{"id":"shp_1","status":"purchased","trackingNumber":"1Z999"}`}
			if err := tx.InsertEvent(ctx, e); err != nil {
				return err
			}
			var ds []*Delivery // an event's fan-out, as webhooks inserts it
			for j := range subs {
				d := &Delivery{ID: fmt.Sprintf("whd_%d_%d", i, j), SubscriptionID: fmt.Sprintf("wh_%d", j), AccountID: "acct_bench",
					Mode: "test", EventID: e.ID, EventType: e.Type, Status: "pending", CreatedAt: now, UpdatedAt: now}
				ds = append(ds, d)
				ids = append(ids, d.ID)
			}
			if _, err := tx.InsertDeliveries(ctx, ds); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	joined, err := st.reader.deliveryToSendJoined(ctx, ids[0])
	if err != nil {
		b.Fatal(err)
	}
	steps, err := st.reader.deliveryToSendInSteps(ctx, ids[0])
	if err != nil {
		b.Fatal(err)
	}
	if d := cmp.Diff(joined, steps); d != "" {
		b.Fatalf("the two reads differ (-joined +steps):\n%s", d)
	}
	for _, way := range []struct {
		name string
		read func(context.Context, string) (DeliveryToSend, error)
	}{{"point reads", st.reader.deliveryToSendInSteps}, {"join", st.reader.deliveryToSendJoined}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := way.read(ctx, ids[i%len(ids)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
