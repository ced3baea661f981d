package carriers_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shipd-dev/shipd/carriers"
)

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := carriers.NewRedactor("s3cr3t", "s3cr3t-longer", "", "ab", "510087020", "510087020")
	for in, want := range map[string]string{
		"client_secret=s3cr3t-longer&x=1":        "client_secret=[redacted]&x=1",
		"secret s3cr3t, account 510087020":       "secret [redacted], account [redacted]",
		"ab stays: too short to be a credential": "ab stays: too short to be a credential",
		"":                                       "",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	tok := r.With("tok-123456")
	if got := tok.Redact("Bearer tok-123456 s3cr3t"); got != "Bearer [redacted] [redacted]" {
		t.Errorf("With: %q", got)
	}
	var none *carriers.Redactor
	if got := none.Redact("s3cr3t"); got != "s3cr3t" {
		t.Errorf("nil Redactor changed the text: %q", got)
	}
	ce := &carriers.Error{Carrier: "FedEx", Operation: "rate", Code: "510087020", Message: "account 510087020 secret s3cr3t"}
	_ = r.Err(fmt.Errorf("wrapped: %w", ce))
	if diff := cmp.Diff("FedEx rate: account [redacted] secret [redacted] ([redacted])", ce.Error()); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
}
