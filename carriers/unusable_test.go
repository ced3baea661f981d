package carriers_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
)

// What a purchase's error says was sold: the label an unusable answer
// named; something, unnamed, behind a 2xx answer that could not be read;
// nothing behind a refusal, an outage or a shutdown.
func TestSoldUnusable(t *testing.T) {
	t.Parallel()
	malformed := &carriers.Error{Carrier: "FedEx", Operation: carriers.OpBuy, HTTPStatus: http.StatusOK, Kind: carriers.ErrFailed, Message: "unusable answer"}
	sold := carriers.Label{TrackingNumber: "794600000001", Pieces: []string{"794600000001", "794600000002"}, Document: []byte("%PDF")}
	for _, tt := range []struct {
		name     string
		err      error
		want     carriers.Label
		wantSold bool
	}{
		{"an unusable label, its document dropped", carriers.Unusable(sold, malformed),
			carriers.Label{TrackingNumber: "794600000001", Pieces: []string{"794600000001", "794600000002"}}, true},
		{"wrapped by a decorator", fmt.Errorf("fedex: %w", carriers.Unusable(sold, malformed)),
			carriers.Label{TrackingNumber: "794600000001", Pieces: []string{"794600000001", "794600000002"}}, true},
		{"a 2xx answer that could not be read", malformed, carriers.Label{}, true},
		{"no tracking number: unnamed", carriers.Unusable(carriers.Label{}, malformed), carriers.Label{}, true},
		{"a shutdown is not unusable", carriers.Unusable(sold, fmt.Errorf("label memory: %w", context.Canceled)), carriers.Label{}, false},
		{"a refusal", &carriers.Error{Operation: carriers.OpBuy, HTTPStatus: http.StatusBadRequest, Kind: carriers.ErrRejected}, carriers.Label{}, false},
		{"a 5xx", &carriers.Error{Operation: carriers.OpBuy, HTTPStatus: http.StatusInternalServerError, Kind: carriers.ErrFailed}, carriers.Label{}, false},
		{"a cut-off 2xx answer is an outage", &carriers.Error{Operation: carriers.OpBuy, HTTPStatus: http.StatusOK, Kind: carriers.ErrUnavailable}, carriers.Label{}, false},
		{"a void's malformed answer", &carriers.Error{Operation: carriers.OpVoid, HTTPStatus: http.StatusOK, Kind: carriers.ErrFailed}, carriers.Label{}, false},
		{"no error", carriers.Unusable(sold, nil), carriers.Label{}, false},
	} {
		got, ok := carriers.SoldUnusable(tt.err)
		if ok != tt.wantSold {
			t.Errorf("%s: sold %v, want %v", tt.name, ok, tt.wantSold)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if err := carriers.Unusable(sold, malformed); !errors.Is(err, carriers.ErrFailed) || err.Error() != malformed.Error() {
		t.Errorf("Unusable changed the error: %v", err)
	}
}
