package shipping

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/webhooks"
)

// The manifest job run again after it committed (a crash before River
// recorded its completion) changes nothing and emits nothing more.
func TestManifestWorkerActsOnceWhenRunTwice(t *testing.T) {
	t.Parallel()
	b := setupWorkers(t)
	ctx := context.Background()
	name := "Ada Lovelace"
	in := NewLabel{Input: Input{
		From:   Address{Name: ptr("Shop"), Phone: ptr("+1 415 555 0100"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105", Country: "US"},
		To:     Address{Name: &name, Phone: ptr("+1 212 555 0100"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118", Country: "US"},
		Parcel: Parcel{WeightOz: 32},
	}, Selection: Selection{Carrier: ptr("USPS"), Service: ptr("Priority")}}
	sh, _, err := b.svc.Create(ctx, b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&purchaseWorker{s: b.svc}).Work(ctx, job[purchaseArgs](t, b, purchaseArgs{}.Kind(), "shipment_id", sh.ID)); err != nil {
		t.Fatal(err)
	}
	m, _, err := b.svc.CreateManifest(ctx, b.caller, NewManifest{Carrier: "USPS"})
	if err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(time.Minute)
	w := &manifestWorker{s: b.svc}
	if err := w.Work(ctx, job[manifestArgs](t, b, manifestArgs{}.Kind(), "manifest_id", m.ID)); err != nil {
		t.Fatal(err)
	}
	done, err := b.svc.GetManifest(ctx, b.caller, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != ManifestCreated || !done.HasForm || done.CompletedAt == nil || !done.CompletedAt.Equal(b.clock.Now()) {
		t.Fatalf("after the job: %+v", done)
	}
	b.clock.Advance(time.Minute)
	if err := w.Work(ctx, job[manifestArgs](t, b, manifestArgs{}.Kind(), "manifest_id", m.ID)); err != nil {
		t.Fatal(err)
	}
	again, err := b.svc.GetManifest(ctx, b.caller, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(done, again); diff != "" {
		t.Errorf("the manifest after its job ran twice (-once +twice):\n%s", diff)
	}
	events, _, err := b.st.ListEvents(ctx, b.caller.AccountID, string(b.caller.Mode), webhooks.EventManifestCreated, paging.Request{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Errorf("%d manifest.created events after the job ran twice, want 1", len(events))
	}
}
