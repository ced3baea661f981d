package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/store"
)

// manifestRow is a manifest of accountID in test mode, being created.
func manifestRow(accountID, carrier string) *store.Manifest {
	return &store.Manifest{ID: store.NewID("man"), AccountID: accountID, Mode: "test", Carrier: carrier,
		Status: "creating", FromAddress: `{"zip":"94105"}`, ShipmentIDs: "[]", CreatedAt: t0}
}

// newLabel inserts a purchased label of accountID in test mode with carrier.
func newLabel(t *testing.T, s *store.Store, accountID, carrier string) store.Shipment {
	t.Helper()
	sh := shipmentRow(accountID, "test", "purchased")
	sh.Carrier = carrier
	mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertShipment(ctx, sh) })
	return *sh
}

func shipmentIDs(rows []store.Shipment) []string {
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

// testManifests covers manifests.go: the rows, the labels waiting for a
// form, a label's claim by one manifest only, and the guarded finish.
func testManifests(t *testing.T, open Opener) {
	leaf(t, open, "round trip and list", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct, other := newAccount(t, s), newAccount(t, s)
		first, second := manifestRow(acct.ID, "usps"), manifestRow(acct.ID, "ups")
		second.CarrierAccountID = ptr("ca_1")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			if err := tx.InsertManifest(ctx, first); err != nil {
				return err
			}
			return tx.InsertManifest(ctx, second)
		})
		if first.Seq == 0 || second.Seq <= first.Seq {
			t.Errorf("seqs %d then %d, want increasing", first.Seq, second.Seq)
		}
		got, err := s.Manifest(ctx, acct.ID, second.ID)
		noErr(t, "Manifest", err)
		if d := diff(*second, got); d != "" {
			t.Errorf("Manifest (-want +got):\n%s", d)
		}
		got, err = s.ManifestByID(ctx, first.ID)
		noErr(t, "ManifestByID", err)
		if d := diff(*first, got); d != "" {
			t.Errorf("ManifestByID (-want +got):\n%s", d)
		}
		_, err = s.Manifest(ctx, other.ID, first.ID)
		wantErr(t, "Manifest of another account", err, store.ErrNotFound)
		_, err = s.ManifestByID(ctx, "man_missing")
		wantErr(t, "ManifestByID", err, store.ErrNotFound)
		page, more, err := s.ListManifests(ctx, acct.ID, "test", paging.Request{Limit: 1})
		noErr(t, "ListManifests", err)
		if len(page) != 1 || page[0].ID != second.ID || !more {
			t.Errorf("first page %v (more %v), want the newest and more", page, more)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			return tx.SetManifestShipments(ctx, first.ID, `["shp_1"]`)
		})
		got, err = s.ManifestByID(ctx, first.ID)
		noErr(t, "ManifestByID", err)
		if got.ShipmentIDs != `["shp_1"]` {
			t.Errorf("shipment ids %s after SetManifestShipments", got.ShipmentIDs)
		}
	})

	leaf(t, open, "waiting labels, claim, release", func(t *testing.T, s *store.Store) {
		ctx := t.Context()
		acct := newAccount(t, s)
		a, b := newLabel(t, s, acct.ID, "usps"), newLabel(t, s, acct.ID, "usps")
		ups := newLabel(t, s, acct.ID, "ups")
		newShipment(t, s, acct.ID, "test", "paying") // not a label yet
		ret := shipmentRow(acct.ID, "test", "purchased")
		ret.IsReturn, ret.ReturnOf = true, &a.ID
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertShipment(ctx, ret) })

		counts, err := s.UnmanifestedCounts(ctx, acct.ID, "test")
		noErr(t, "UnmanifestedCounts", err)
		if d := diff([]store.WaitingGroup{{Carrier: "ups", N: 1}, {Carrier: "usps", N: 2}}, counts); d != "" {
			t.Errorf("UnmanifestedCounts (-want +got):\n%s", d)
		}
		waiting, err := s.UnmanifestedLabels(ctx, acct.ID, "test", "usps", 10)
		noErr(t, "UnmanifestedLabels", err)
		if d := diff([]string{a.ID, b.ID}, shipmentIDs(waiting)); d != "" {
			t.Errorf("UnmanifestedLabels (-want +got):\n%s", d)
		}
		byIDs, err := s.ShipmentsByIDs(ctx, acct.ID, []string{b.ID, ups.ID, "shp_missing"})
		noErr(t, "ShipmentsByIDs", err)
		if len(byIDs) != 2 {
			t.Errorf("ShipmentsByIDs found %v, want the two that exist", shipmentIDs(byIDs))
		}

		m, late := manifestRow(acct.ID, "usps"), manifestRow(acct.ID, "usps")
		var claimed, again int64
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			if err := tx.InsertManifest(ctx, m); err != nil {
				return err
			}
			if err := tx.InsertManifest(ctx, late); err != nil {
				return err
			}
			var err error
			if claimed, err = tx.ClaimForManifest(ctx, m.ID, []string{a.ID, b.ID, ret.ID}); err != nil {
				return err
			}
			// A label on a form is on no other.
			again, err = tx.ClaimForManifest(ctx, late.ID, []string{a.ID, b.ID})
			return err
		})
		if claimed != 2 || again != 0 {
			t.Errorf("claimed %d (want 2: the return is never manifested), then %d (want 0)", claimed, again)
		}
		ids, err := s.ManifestShipmentIDs(ctx, m.ID)
		noErr(t, "ManifestShipmentIDs", err)
		labels, err := s.ManifestLabels(ctx, m.ID)
		noErr(t, "ManifestLabels", err)
		if d := diff([]string{a.ID, b.ID}, ids); d != "" || len(labels) != 2 || *labels[0].ManifestID != m.ID {
			t.Errorf("the manifest's labels %v / %v (-want +got):\n%s", ids, shipmentIDs(labels), d)
		}
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.ReleaseManifest(ctx, m.ID, ids) })
		waiting, err = s.UnmanifestedLabels(ctx, acct.ID, "test", "usps", 1)
		noErr(t, "UnmanifestedLabels", err)
		if d := diff([]string{a.ID}, shipmentIDs(waiting)); d != "" {
			t.Errorf("released labels wait again, limited to 1 (-want +got):\n%s", d)
		}
	})

	leaf(t, open, "FinishManifest once", func(t *testing.T, s *store.Store) {
		acct := newAccount(t, s)
		m := manifestRow(acct.ID, "usps")
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error { return tx.InsertManifest(ctx, m) })
		done := *m
		done.Status, done.FormNumber, done.FormKey, done.CompletedAt = "created", ptr("9475"), ptr("manifests/x.pdf"), ptr(at(time.Minute))
		failed := *m
		failed.Status, failed.ErrorMessage, failed.CompletedAt = "failed", ptr("refused"), ptr(at(time.Hour))
		finished := make([]bool, 4)
		errs := race(4, func(i int) error {
			return s.Tx(t.Context(), func(tx *store.Tx) error {
				row := done
				if i%2 == 1 {
					row = failed
				}
				var err error
				finished[i], err = tx.FinishManifest(t.Context(), row)
				return err
			})
		})
		n := 0
		for i, err := range errs {
			noErr(t, "FinishManifest", err)
			if finished[i] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d of 4 racing FinishManifest finished it, want 1", n)
		}
		got, err := s.ManifestByID(t.Context(), m.ID)
		noErr(t, "ManifestByID", err)
		if got.Status == "creating" {
			t.Fatal("no FinishManifest took")
		}
		var again bool
		mustTx(t, s, func(ctx context.Context, tx *store.Tx) error {
			var err error
			again, err = tx.FinishManifest(ctx, failed)
			return err
		})
		if again {
			t.Error("a finished manifest was finished again")
		}
	})
}
