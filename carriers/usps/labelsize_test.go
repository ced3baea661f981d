package usps

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// A label PDF larger than any label is refused, base64 or raw, before it
// is decoded or stored; one of the largest size allowed passes.
func TestParseLabelRefusesAnOversizedPDF(t *testing.T) {
	t.Parallel()
	pdf := func(n int) []byte { return append([]byte("%PDF-1.7 "), bytes.Repeat([]byte{'x'}, n-9)...) }
	for _, c := range []struct {
		name  string
		image string
		ok    bool
	}{
		{"base64 at the limit", base64.StdEncoding.EncodeToString(pdf(carriers.MaxLabelBytes)), true},
		{"base64 over the limit", base64.StdEncoding.EncodeToString(pdf(carriers.MaxLabelBytes + 3)), false},
		{"raw over the limit", string(pdf(carriers.MaxLabelBytes + 1)), false},
	} {
		_, err := parseLabel("application/json", []byte(`{"trackingNumber":"9400100000000000000000","labelImage":"`+c.image+`"}`))
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if !c.ok && (!errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "larger than any label")) {
			t.Errorf("%s: %v, want ErrFailed: larger than any label", c.name, err)
		}
	}
}
