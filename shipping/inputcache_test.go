package shipping

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodedInputsAreTheStoredRequests(t *testing.T) {
	t.Parallel()
	raw := func(street string) string {
		return `{"fromAddress":{"street1":"` + street + `","city":"Austin","zip":"78701","country":"US"},` +
			`"toAddress":{"street1":"1 Main St","city":"Boston","zip":"02108","country":"US"},"parcel":{"weightOz":12}}`
	}
	var c decodedInputs
	for range 2 { // the second round is answered from memory
		for _, street := range []string{"1 Congress Ave", "2 Congress Ave"} {
			want, err := DecodeInput(raw(street))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.decode(raw(street))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", street, d)
			}
		}
	}
	bad := strings.Replace(raw("3 Congress Ave"), `"weightOz":12`, `"weightOz":12,"extra":1`, 1)
	for range 2 {
		if _, err := c.decode(bad); !errors.Is(err, errInputUndecodable) {
			t.Fatalf("undecodable request: %v", err)
		}
	}
	if len(c.byRaw) != 2 {
		t.Errorf("%d requests kept, want the 2 that decode", len(c.byRaw))
	}
}
