package sandbox_test

import (
	"bytes"
	"compress/zlib"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// carrierNames are the US carriers these tests were written for; the
// European carriers have tests of their own (europe_test.go).
var carrierNames = []string{sandbox.CarrierUSPS, sandbox.CarrierUPS, sandbox.CarrierFedEx}

var fixedNow = func() time.Time { return time.Date(2026, 7, 1, 15, 4, 5, 0, time.UTC) }

// newCarriers are the sandbox's US carriers.
func newCarriers() []carriers.Carrier {
	return usCarriers(sandbox.New(sandbox.Config{ScanInterval: 5 * time.Millisecond, Now: fixedNow}))
}

// usCarriers keeps the carriers of carrierNames, in order.
func usCarriers(cs []carriers.Carrier) []carriers.Carrier {
	var out []carriers.Carrier
	for _, c := range cs {
		if slices.Contains(carrierNames, c.Name()) {
			out = append(out, c)
		}
	}
	return out
}

func carrierNamed(t *testing.T, cs []carriers.Carrier, name string) carriers.Carrier {
	t.Helper()
	for _, c := range cs {
		if c.Name() == name {
			return c
		}
	}
	t.Fatalf("no sandbox carrier named %q", name)
	return nil
}

func sf() carriers.Address {
	return carriers.Address{Name: "Ada Lovelace", Phone: "415 555 0100", Street1: "1 Market St", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"}
}

func nyc() carriers.Address {
	return carriers.Address{Name: "Grace Hopper", Phone: "212 555 0100", Street1: "350 Fifth Ave", City: "New York", State: "NY", Zip: "10118", Country: "US"}
}

func london() carriers.Address {
	return carriers.Address{Name: "Alan Turing", Phone: "+44 20 7946 0000", Street1: "10 Downing St", City: "London", Zip: "SW1A 2AA", Country: "GB"}
}

func domestic() carriers.Shipment {
	return carriers.Shipment{From: sf(), To: nyc(), Parcel: carriers.Parcel{WeightOz: 24}}
}

func customs() *carriers.Customs {
	return &carriers.Customs{
		ContentsType:      carriers.ContentsMerchandise,
		NonDeliveryOption: carriers.NonDeliveryReturn,
		Items:             []carriers.CustomsItem{{Description: "T-shirt", Quantity: 2, ValueCents: 2500, WeightOz: 12, OriginCountry: "US"}},
	}
}

func withRecipient(s carriers.Shipment, name string) carriers.Shipment {
	s.To.Name = name
	return s
}

// rateByService indexes rates by service name for comparisons across inputs.
func rateByService(rs []carriers.Rate) map[string]carriers.Rate {
	m := make(map[string]carriers.Rate, len(rs))
	for _, r := range rs {
		m[r.Service] = r
	}
	return m
}

// pdfText returns the PDF with every Flate stream inflated, so tests can look
// for text that fpdf writes into compressed content streams.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	var out bytes.Buffer
	out.Write(pdf)
	rest := pdf
	for {
		i := bytes.Index(rest, []byte("stream\n"))
		if i < 0 {
			break
		}
		rest = rest[i+len("stream\n"):]
		j := bytes.Index(rest, []byte("endstream"))
		if j < 0 {
			break
		}
		if r, err := zlib.NewReader(bytes.NewReader(rest[:j])); err == nil {
			b, _ := io.ReadAll(r)
			out.Write(b)
		}
		rest = rest[j:]
	}
	return out.String()
}
