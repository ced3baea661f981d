package fedex

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// A label PDF larger than any label is refused before its base64 is decoded.
func TestParseShipResponseRefusesAnOversizedPDF(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		size int
		ok   bool
	}{{carriers.MaxLabelBytes, true}, {carriers.MaxLabelBytes + 3, false}} {
		pdf := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte{'x'}, c.size-9)...)
		body := `{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794953535000","packageDocuments":[` +
			`{"contentType":"LABEL","docType":"PDF","encodedLabel":"` + base64.StdEncoding.EncodeToString(pdf) + `"}]}]}]}}`
		_, err := parseShipResponse([]byte(body))
		if c.ok && err != nil {
			t.Errorf("%d bytes: %v", c.size, err)
		}
		if !c.ok && (!errors.Is(err, carriers.ErrFailed) || !strings.Contains(err.Error(), "larger than any label")) {
			t.Errorf("%d bytes: %v, want ErrFailed: larger than any label", c.size, err)
		}
	}
}
