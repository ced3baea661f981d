package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/gls/glsfake"
)

// The same with GLS, whose ShipIT finds parcels by the shipment's
// reference and reprints their labels: the restarted server adopts the
// parcel the killed attempt created, and GLS created one. GLS is priced by
// the operator's rate sheet (--gls-rate-sheet), as it must be.
func TestKilledLiveGLSPurchaseAdoptsTheParcelCreated(t *testing.T) {
	t.Parallel()
	fake := glsfake.New(t)
	sold := func(id string) []string {
		var numbers []string
		for _, s := range fake.Sales(id) {
			numbers = append(numbers, s.ParcelNumber)
		}
		return numbers
	}
	sheet := filepath.Join(t.TempDir(), "gls.csv")
	if err := os.WriteFile(sheet, []byte("service,destination,maxWeightG,price,currency\nParcel,DE,31500,4.95,EUR\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	body := map[string]any{
		"fromAddress": map[string]any{"name": "Ada Lovelace", "street1": "Friedrichstraße 123", "city": "Berlin", "zip": "10117", "country": "DE"},
		"toAddress":   map[string]any{"name": "Grace Hopper", "street1": "Marienplatz 8", "city": "München", "zip": "80331", "country": "DE"},
		"parcel":      map[string]any{"weightOz": 70}, "carrier": "GLS", "service": "Parcel",
	}
	k := killPurchase(t, body, sold, fake.HoldShips, fake.ReleaseShips,
		"--gls-client-id", glsfake.ClientID, "--gls-client-secret", glsfake.ClientSecret, "--gls-contact-id", glsfake.ContactID,
		"--gls-base-url", fake.URL(), "--gls-rate-sheet", sheet)

	if k.label.TrackingNumber != k.orphan {
		t.Errorf("the label has %s, want the one created by the killed attempt, %s", k.label.TrackingNumber, k.orphan)
	}
	if d := cmp.Diff([]glsfake.Sale{{ParcelNumber: k.orphan, TrackID: fake.Sales(k.id)[0].TrackID}}, fake.Sales(k.id)); d != "" {
		t.Errorf("GLS parcels for %s (-want +got):\n%s", k.id, d)
	}
	if fake.Requests(glsfake.OpFind) == 0 || fake.Requests(glsfake.OpReprint) != 1 {
		t.Errorf("%d lookups, %d reprints", fake.Requests(glsfake.OpFind), fake.Requests(glsfake.OpReprint))
	}
	if !strings.Contains(k.logs.String(), `"tracking_number":"`+k.orphan+`"`) {
		t.Errorf("the restarted server logged no adoption of %s:\n%s", k.orphan, k.logs.String())
	}
	if d := cmp.Diff([]string{"shipd purchase.label_adopted " + k.id + " " + k.orphan}, k.audit(t)); d != "" {
		t.Errorf("audit log (-want +got):\n%s", d)
	}
}
