package fedex

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
)

// A close FedEx refuses for having nothing to close is the close's
// refusal, unless the call is resumed (an earlier one may have closed the
// labels): then the documents of the close that took the first label are
// reprinted. A resumed close whose labels no close took stays refused.
func TestResumedCloseReprints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := fedexfake.New(t)
	c, err := New(Config{ClientID: fedexfake.ClientID, ClientSecret: fedexfake.ClientSecret, AccountNumber: fedexfake.AccountNumber,
		BaseURL: fake.URL(), Now: time.Now}) // the fake closes what it sold on its own date, time.Now's
	if err != nil {
		t.Fatal(err)
	}
	l, err := c.Buy(ctx, buyRequest("shp_0123456789abcdef01234571", domestic(), "Ground"))
	if err != nil {
		t.Fatal(err)
	}
	req := carriers.ManifestRequest{Reference: "man_1", From: sanFrancisco(), ShipDate: time.Now(),
		Labels: []carriers.ManifestLabel{{TrackingNumber: l.TrackingNumber}}}
	first, err := c.Manifest(ctx, req)
	if err != nil || first.Recovered {
		t.Fatalf("the close: %+v, %v", first, err)
	}
	if _, err := c.Manifest(ctx, req); !errors.Is(err, carriers.ErrRejected) || !nothingToClose(err) {
		t.Fatalf("a second close, not resumed: %v, want FedEx's refusal", err)
	}
	req.Resumed = true
	again, err := c.Manifest(ctx, req)
	if err != nil || !again.Recovered || !strings.Contains(string(again.PDF), l.TrackingNumber) {
		t.Fatalf("the resumed close: recovered %v, %v; want the reprint listing %s", again.Recovered, err, l.TrackingNumber)
	}

	never := req
	never.Labels = []carriers.ManifestLabel{{TrackingNumber: "794699999999"}}
	if _, err := c.Manifest(ctx, never); !nothingToClose(err) {
		t.Errorf("a resumed close of labels no close took: %v, want the close's refusal", err)
	}
}
