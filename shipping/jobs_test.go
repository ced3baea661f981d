package shipping_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
)

// A batch's labels are bought one job each while they are no more than the
// workers, and in jobs of several labels past that: as few jobs as keep every
// worker busy, of at most MaxPurchaseBatch labels, covering every label once
// in the batch's order.
func TestPurchaseJobsSpreadABatchOverTheWorkers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		labels, workers int
		want            []int // labels per job; 1 is a PurchaseArgs job
	}{
		{labels: 3, workers: 4, want: []int{1, 1, 1}},
		{labels: 4, workers: 4, want: []int{1, 1, 1, 1}},
		{labels: 5, workers: 4, want: []int{2, 2, 1}},
		{labels: 12, workers: 4, want: []int{3, 3, 3, 3}},
		{labels: 41, workers: 4, want: []int{8, 8, 8, 8, 8, 1}},
		{labels: 130, workers: 0, want: []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1}},
	} {
		t.Run(fmt.Sprintf("%d labels, %d workers", tc.labels, tc.workers), func(t *testing.T) {
			t.Parallel()
			svc := shippingtest.New(t, accounts.Test, shipping.Config{PurchaseWorkers: tc.workers}).Shipping
			ids := make([]string, tc.labels)
			for i := range ids {
				ids[i] = fmt.Sprintf("shp_%03d", i)
			}
			var sizes []int
			var covered []string
			for _, job := range svc.PurchaseJobs(ids) {
				switch args := job.Args.(type) {
				case shipping.PurchaseArgs:
					sizes, covered = append(sizes, 1), append(covered, args.ShipmentID)
				case shipping.PurchaseBatchArgs:
					if len(args.ShipmentIDs) < 2 || len(args.ShipmentIDs) > shipping.MaxPurchaseBatch {
						t.Errorf("a job of %d labels", len(args.ShipmentIDs))
					}
					sizes, covered = append(sizes, len(args.ShipmentIDs)), append(covered, args.ShipmentIDs...)
				default:
					t.Fatalf("a job of %T", job.Args)
				}
			}
			if diff := cmp.Diff(tc.want, sizes); diff != "" {
				t.Errorf("labels per job (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(ids, covered); diff != "" {
				t.Errorf("labels bought, in order (-want +got):\n%s", diff)
			}
		})
	}
}
