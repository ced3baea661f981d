package sandbox_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

func labelInput() sandbox.LabelInput {
	return sandbox.LabelInput{
		Carrier:        sandbox.CarrierUSPS,
		Service:        "PRIORITY MAIL",
		TrackingNumber: "9400SANDBOX123456789012",
		From:           sf(),
		To: carriers.Address{
			Name: "José Müller", Company: "Acme Widgets", Street1: "350 Fifth Ave", Street2: "Floor 42",
			City: "New York", State: "NY", Zip: "10118", Country: "US",
		},
		WeightOz:          37.25,
		Date:              fixedNow(),
		SignatureRequired: true,
		Reference:         "shp_123",
		TestMode:          true,
	}
}

func TestRenderLabel(t *testing.T) {
	t.Parallel()
	live := labelInput()
	live.TestMode = false
	intl := labelInput()
	intl.To = london()
	intl.CustomsContents = carriers.ContentsGift

	tests := []struct {
		name       string
		in         sandbox.LabelInput
		contains   []string
		notContain []string
	}{
		{"test mode", labelInput(), []string{"9400SANDBOX123456789012", "SAMPLE", "NOT FOR SHIPPING", "PRIORITY MAIL", "SHIP TO", "NEW YORK NY 10118", "2 LB 5.3 OZ", "2026-07-01", "SIGNATURE REQUIRED"}, nil},
		{"live mode", live, []string{"9400SANDBOX123456789012"}, []string{"SAMPLE"}},
		{"international", intl, []string{"LONDON SW1A 2AA", "GB", "CUSTOMS: GIFT"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdf, err := sandbox.RenderLabel(tt.in)
			if err != nil {
				t.Fatalf("RenderLabel: %v", err)
			}
			if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("output starts with %q, want %%PDF-", pdf[:min(8, len(pdf))])
			}
			text := pdfText(t, pdf)
			for _, s := range tt.contains {
				if !strings.Contains(text, s) {
					t.Errorf("label does not contain %q", s)
				}
			}
			for _, s := range tt.notContain {
				if strings.Contains(text, s) {
					t.Errorf("label contains %q", s)
				}
			}
			// A 4x6 inch page is 288x432 points.
			if !strings.Contains(text, "/MediaBox [0 0 288.00 432.00]") {
				t.Error("page is not 4x6 inches")
			}
			again, err := sandbox.RenderLabel(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(pdf, again) {
				t.Error("same input rendered different bytes")
			}
		})
	}
}

func TestRenderLabelErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]func(in *sandbox.LabelInput){
		"no tracking number":        func(in *sandbox.LabelInput) { in.TrackingNumber = " " },
		"tracking number not ASCII": func(in *sandbox.LabelInput) { in.TrackingNumber = "9400é" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in := labelInput()
			mutate(&in)
			if pdf, err := sandbox.RenderLabel(in); err == nil {
				t.Errorf("RenderLabel succeeded with %d bytes, want an error", len(pdf))
			}
		})
	}
}

func TestBuyReturnsLabelPDF(t *testing.T) {
	t.Parallel()
	for _, cn := range carrierNames {
		t.Run(cn, func(t *testing.T) {
			t.Parallel()
			c := carrierNamed(t, newCarriers(), cn)
			l, err := c.Buy(context.Background(), buyRequest(t, c, "shp_pdf", domestic()))
			if err != nil {
				t.Fatalf("Buy: %v", err)
			}
			if !bytes.HasPrefix(l.Document, []byte("%PDF-")) {
				t.Fatal("label is not a PDF")
			}
			text := pdfText(t, l.Document)
			// Sandbox labels are always samples, even for a request not
			// flagged as test mode, because they can never be shipped.
			for _, s := range []string{l.TrackingNumber, "NOT FOR SHIPPING", "GRACE HOPPER", "shp_pdf"} {
				if !strings.Contains(text, s) {
					t.Errorf("label does not contain %q", s)
				}
			}
		})
	}
}

// A label is rendered on every sandbox purchase: its cost is the sandbox's
// share of a purchase.
func BenchmarkRenderLabel(b *testing.B) {
	in := labelInput()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sandbox.RenderLabel(in); err != nil {
			b.Fatal(err)
		}
	}
}

// Labels rendered at once (purchase workers do) are each what rendering
// them alone gives; under -race, nothing is shared between them.
func TestRenderLabelsConcurrently(t *testing.T) {
	t.Parallel()
	names := []string{"José Müller", "Zoë Åström", "Łukasz Żółć – Ltd", "Ana Núñez", "François Cœur", "Jürgen Weiß", "Ærøskøbing €", "Plain Name"}
	inputs := make([]sandbox.LabelInput, len(names))
	want := make([][]byte, len(names))
	for i, n := range names {
		inputs[i] = labelInput()
		inputs[i].To.Name = n
		pdf, err := sandbox.RenderLabel(inputs[i])
		if err != nil {
			t.Fatal(err)
		}
		want[i] = pdf
	}
	got := make([][]byte, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i := range inputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got[i], errs[i] = sandbox.RenderLabel(inputs[i]); errs[i] != nil || !bytes.Equal(got[i], want[i]) {
					return
				}
			}
		}()
	}
	wg.Wait()
	for i := range names {
		if errs[i] != nil {
			t.Fatalf("%s: %v", names[i], errs[i])
		}
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s: rendered at once with others, the label differs from the one rendered alone", names[i])
		}
	}
}

func TestRenderReturnLabel(t *testing.T) {
	t.Parallel()
	ret := labelInput()
	ret.Return = true
	for _, tt := range []struct {
		name string
		in   sandbox.LabelInput
		want bool
	}{{"return", ret, true}, {"outbound", labelInput(), false}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdf, err := sandbox.RenderLabel(tt.in)
			if err != nil {
				t.Fatalf("RenderLabel: %v", err)
			}
			if got := strings.Contains(pdfText(t, pdf), "(RETURN)"); got != tt.want {
				t.Errorf("label shows RETURN: %v, want %v", got, tt.want)
			}
		})
	}
}
