package labeljobs

// A purchase cut off with the carrier's answer in flight, then run again
// (a crash and River's rescue, at the domain level): UPS and FedEx have no
// idempotency key, so the second attempt must find what the first bought
// instead of buying a second label.

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/carriers/ups"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/store"
)

// liveBundle is the shipping service in live mode with UPS and FedEx at
// their fakes, both wrapped as app wraps them (observed), and a live caller.
type liveBundle struct {
	st     *store.Store
	svc    *shipping.Service
	lj     *Service
	acc    *accounts.Service
	caller accounts.Caller
	ups    *upsfake.Server
	fedex  *fedexfake.Server
}

func setupLiveWorkers(t *testing.T) *liveBundle {
	t.Helper()
	uf, ff := upsfake.New(t), fedexfake.New(t)
	u, err := ups.New(ups.Config{ClientID: upsfake.ClientID, ClientSecret: upsfake.ClientSecret,
		AccountNumber: upsfake.AccountNumber, BaseURL: uf.URL()})
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fedex.New(fedex.Config{ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret,
		AccountNumber: fedexfake.AccountNumber, BaseURL: ff.URL()})
	if err != nil {
		t.Fatal(err)
	}
	observe := func(ctx context.Context, _, _ string) (context.Context, func(error)) { return ctx, func(error) {} }
	reg := carriers.NewRegistry(sandbox.New(sandbox.Config{}), []carriers.Carrier{u, fx}).Instrument(observe)
	s := shippingtest.New(t, accounts.Live, shipping.Config{Carriers: reg, PurchaseRetryBase: time.Second})
	return &liveBundle{st: s.Store, svc: s.Shipping, lj: New(s.Store, s.Shipping), acc: s.Accounts, caller: s.Caller, ups: uf, fedex: ff}
}

func (b *liveBundle) create(t *testing.T, carrier string) shipping.Shipment {
	t.Helper()
	in := shipping.NewLabel{Input: shipping.Input{
		From: shipping.Address{Name: ptr("Sender"), Street1: "1 Market St", City: "San Francisco", State: ptr("CA"), Zip: "94105",
			Country: "US", Phone: ptr("4155550100")},
		To: shipping.Address{Name: ptr("Recipient"), Street1: "350 Fifth Avenue", City: "New York", State: ptr("NY"), Zip: "10118",
			Country: "US", Phone: ptr("2125550199")},
		Parcel: shipping.Parcel{WeightOz: new(float64(32))},
	}, Selection: shipping.Selection{Carrier: &carrier, Service: ptr("Ground")}}
	sh, _, err := b.svc.Create(context.Background(), b.caller, in)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// sale is one label a fake sold, carrier-neutral.
type sale struct {
	TrackingNumber string
	Voided         bool
}

// salesOf reads a fake carrier's sales of the shipment id, as sales.
func salesOf[S ~struct {
	TrackingNumber string
	Voided         bool
}](list func(reference string) []S, id string) func() []sale {
	return func() []sale {
		var out []sale
		for _, s := range list(id) {
			out = append(out, sale(s))
		}
		return out
	}
}

// interruptPurchase runs the purchase of sh while the carrier holds its
// ship answer, and abandons it (as a killed process does) once the carrier
// has sold the label; then it lets the carrier answer again.
func (b *liveBundle) interruptPurchase(t *testing.T, id string, sales func() []sale, hold, release func()) {
	t.Helper()
	hold()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.lj.purchase(ctx, id, 0) }()
	deadline := time.Now().Add(20 * time.Second)
	for len(sales()) == 0 {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the carrier never sold the label of %s", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted purchase returned %v, want it cut off", err)
	}
	release()
}

func (b *liveBundle) audit(t *testing.T) []string {
	t.Helper()
	entries, _, err := b.acc.AuditLog(context.Background(), b.caller, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "purchase.") {
			got = append(got, e.Actor+" "+e.Action+" "+e.Target)
		}
	}
	return got
}

// UPS gives the label again (Label Recovery by reference): the rescued
// attempt adopts the first sale, and UPS sold one label.
func TestRescuedPurchaseAdoptsTheUPSLabelAlreadySold(t *testing.T) {
	t.Parallel()
	b := setupLiveWorkers(t)
	sh := b.create(t, "UPS")
	sales := salesOf(b.ups.Sales, sh.ID)
	b.interruptPurchase(t, sh.ID, sales, b.ups.HoldShips, b.ups.ReleaseShips)
	first := sales()[0].TrackingNumber

	if err := b.lj.purchase(context.Background(), sh.ID, 0); err != nil {
		t.Fatal(err)
	}
	got, err := b.svc.Get(context.Background(), b.caller, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "purchased" || got.TrackingNumber == nil || *got.TrackingNumber != first {
		t.Fatalf("after the rescue the label is %s with %v, want purchased with the first sale %s; UPS sales %+v", got.Status, *got.TrackingNumber, first, sales())
	}
	if d := cmp.Diff([]sale{{TrackingNumber: first}}, sales()); d != "" {
		t.Errorf("UPS sales for %s (-want +got):\n%s", sh.ID, d)
	}
	if d := cmp.Diff([]string{"shipd purchase.label_adopted " + sh.ID + " " + first}, b.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
	doc, err := b.lj.cfg.Documents.Get(context.Background(), shipping.LabelKey(sh.ID))
	if err != nil || !bytes.HasPrefix(doc, []byte("%PDF")) {
		t.Errorf("the adopted label's document: %v, %q", err, doc[:min(len(doc), 8)])
	}
	rec, err := b.st.PurchaseAttempt(context.Background(), sh.ID)
	if err != nil || rec.Attempts != 2 || !strings.Contains(rec.Recovery, "adopted label "+first) {
		t.Errorf("attempt record %+v, %v: want 2 attempts and the adoption", rec, err)
	}
}

// FedEx cannot give a label document again: the rescued attempt voids the
// first sale and buys again, so exactly one FedEx label stays billed, the
// shipment's; the void is in the audit log.
func TestRescuedPurchaseVoidsTheFedExLabelAlreadySold(t *testing.T) {
	t.Parallel()
	b := setupLiveWorkers(t)
	sh := b.create(t, "FedEx")
	sales := func() []sale {
		var out []sale
		for _, s := range b.fedex.Sales(sh.ID) {
			out = append(out, sale{TrackingNumber: s.TrackingNumber, Voided: s.Cancelled})
		}
		return out
	}
	b.interruptPurchase(t, sh.ID, sales, b.fedex.HoldShips, b.fedex.ReleaseShips)
	first := sales()[0].TrackingNumber

	if err := b.lj.purchase(context.Background(), sh.ID, 0); err != nil {
		t.Fatal(err)
	}
	got, err := b.svc.Get(context.Background(), b.caller, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := sales()
	if len(all) != 2 || got.Status != "purchased" || got.TrackingNumber == nil {
		t.Fatalf("after the rescue the label is %s with %v; FedEx sales %+v", got.Status, got.TrackingNumber, all)
	}
	if d := cmp.Diff([]sale{{TrackingNumber: first, Voided: true}, {TrackingNumber: *got.TrackingNumber}}, all); d != "" {
		t.Errorf("FedEx sales for %s (-want +got):\n%s", sh.ID, d)
	}
	if d := cmp.Diff([]string{"shipd purchase.orphan_voided " + sh.ID + " " + first}, b.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}

// A purchase deferred after an unavailable carrier asks again before
// buying: nothing was sold, so it buys, once.
func TestRetriedPurchaseAfterUnavailableBuysOnce(t *testing.T) {
	t.Parallel()
	b := setupLiveWorkers(t)
	sh := b.create(t, "FedEx")
	b.fedex.FailNext(fedexfake.OpShip, 503, fedexfake.ErrorBody("SERVICE.UNAVAILABLE.ERROR", "The service is currently unavailable."))
	if err := b.lj.purchase(context.Background(), sh.ID, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.lj.purchase(context.Background(), sh.ID, 1); err != nil {
		t.Fatal(err)
	}
	got, err := b.svc.Get(context.Background(), b.caller, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.fedex.Sales(sh.ID)); got.Status != "purchased" || n != 1 {
		t.Fatalf("label %s, FedEx sold %d labels; want purchased, one", got.Status, n)
	}
	if n := b.fedex.Requests(fedexfake.OpTrackReference); n != 1 {
		t.Errorf("FedEx was asked %d times by reference, want once (by the second attempt)", n)
	}
	if d := cmp.Diff([]string(nil), b.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}
