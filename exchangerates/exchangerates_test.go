package exchangerates_test

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/exchangerates"
)

func table(t *testing.T) *exchangerates.Table {
	t.Helper()
	f, err := os.Open("testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tbl, err := exchangerates.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestParseTheECBFile(t *testing.T) {
	t.Parallel()
	tbl := table(t)
	if got := tbl.Date.Format(time.DateOnly); got != "2026-11-27" {
		t.Errorf("date %s", got)
	}
	want := []string{"CHF", "CZK", "DKK", "EUR", "GBP", "JPY", "PLN", "SEK", "USD"}
	if diff := cmp.Diff(want, tbl.Currencies()); diff != "" {
		t.Errorf("currencies (-want +got):\n%s", diff)
	}
}

// Rates are the ECB's against the euro, and crosses through it; amounts
// round half away from zero to the minor unit of their currency.
func TestConvert(t *testing.T) {
	t.Parallel()
	tbl := table(t)
	for _, c := range []struct {
		from, to string
		cents    int64
		want     int64
		rate     string
	}{
		{"EUR", "USD", 1000, 1051, "1.0512"},         // 10.512 → 10.51
		{"EUR", "USD", 5000, 5256, "1.0512"},         // 52.56
		{"USD", "EUR", 1051, 1000, "0.9512937595"},   // 10.51 / 1.0512 = 9.99809 → 10.00
		{"EUR", "JPY", 1234, 1990, "161.23"},         // 12.34 € = 1989.58 ¥ → 1990 (no minor unit)
		{"JPY", "EUR", 1990, 1234, "0.0062023197"},   // 1990 / 161.23 = 12.3426 → 12.34
		{"GBP", "USD", 10000, 12647, "1.2646775746"}, // 100 £ through the euro
		{"EUR", "EUR", 999, 999, "1"},                // the same currency
		{"EUR", "USD", -1000, -1051, "1.0512"},       // a credit rounds away from zero too
		{"EUR", "DKK", 2, 15, "7.4592"},              // 0.149184 → 0.15
		{"EUR", "CHF", 50, 47, "0.9381"},             // 0.46905 → 0.47 (half away from zero)
		{"EUR", "PLN", 100, 430, "4.2965"},           // 4.2965 → 4.30
	} {
		r, err := tbl.Rate(c.from, c.to)
		if err != nil {
			t.Errorf("%s→%s: %v", c.from, c.to, err)
			continue
		}
		if got := exchangerates.Convert(c.cents, c.from, c.to, r); got != c.want || exchangerates.Format(r) != c.rate {
			t.Errorf("%d %s→%s = %d at %s, want %d at %s", c.cents, c.from, c.to, got, exchangerates.Format(r), c.want, c.rate)
		}
	}
	if _, err := tbl.Rate("EUR", "NOK"); !errors.Is(err, exchangerates.ErrNoRate) {
		t.Errorf("a currency the file does not have: %v, want ErrNoRate", err)
	}
}

// Exactly half a minor unit rounds away from zero, both signs.
func TestRoundsHalfAwayFromZero(t *testing.T) {
	t.Parallel()
	half := big.NewRat(1, 2)
	for in, want := range map[int64]int64{1: 1, 3: 2, -1: -1, -3: -2, 2: 1} {
		if got := exchangerates.Convert(in, "EUR", "USD", half); got != want {
			t.Errorf("%d × 0.5 = %d, want %d", in, got, want)
		}
	}
}

func TestParseRefusesWhatIsNotTheECBFile(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not XML":        "rates",
		"no day":         `<Envelope><Cube></Cube></Envelope>`,
		"no date":        `<Envelope><Cube><Cube><Cube currency="USD" rate="1.05"/></Cube></Cube></Envelope>`,
		"bad currency":   `<Envelope><Cube><Cube time="2026-11-27"><Cube currency="usd" rate="1.05"/></Cube></Cube></Envelope>`,
		"negative rate":  `<Envelope><Cube><Cube time="2026-11-27"><Cube currency="USD" rate="-1.05"/></Cube></Cube></Envelope>`,
		"exponent rate":  `<Envelope><Cube><Cube time="2026-11-27"><Cube currency="USD" rate="1e999999"/></Cube></Cube></Envelope>`,
		"zero rate":      `<Envelope><Cube><Cube time="2026-11-27"><Cube currency="USD" rate="0"/></Cube></Cube></Envelope>`,
		"no rates":       `<Envelope><Cube><Cube time="2026-11-27"></Cube></Cube></Envelope>`,
		"a huge decimal": `<Envelope><Cube><Cube time="2026-11-27"><Cube currency="USD" rate="` + strings.Repeat("9", 50) + `"/></Cube></Cube></Envelope>`,
	} {
		if _, err := exchangerates.Parse(strings.NewReader(doc)); !errors.Is(err, exchangerates.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	seed, err := os.ReadFile("testdata/eurofxref-daily.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`<Envelope><Cube><Cube time="2026-11-27"><Cube currency="USD" rate="1.0"/></Cube></Cube></Envelope>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		tbl, err := exchangerates.Parse(strings.NewReader(string(doc)))
		if err != nil {
			return
		}
		for _, c := range tbl.Currencies() {
			r, err := tbl.Rate(exchangerates.EUR, c)
			if err != nil || r.Sign() <= 0 {
				t.Fatalf("%s: %v %v", c, r, err)
			}
			_ = exchangerates.Convert(1<<40, exchangerates.EUR, c, r)
		}
	})
}

// The file is read again when it changes, and a file that no longer reads
// keeps the last rates; rates older than a week are stale.
func TestFileIsReadAgainWhenItChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "rates.xml")
	seed, err := os.ReadFile("testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, seed, 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	f, err := exchangerates.OpenFile(path, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := f.Rate("EUR", "USD"); err != nil || r.String() != "1.0512" {
		t.Fatalf("first rate %v %v", r, err)
	}
	newer := strings.ReplaceAll(strings.ReplaceAll(string(seed), "1.0512", "1.0600"), "2026-11-27", "2026-11-28")
	if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, _ := f.Rate("EUR", "USD"); r.String() != "1.0512" {
		t.Errorf("read again within %s: %s", exchangerates.CheckEvery, r)
	}
	now = now.Add(exchangerates.CheckEvery)
	if r, _ := f.Rate("EUR", "USD"); r.String() != "1.06" || !r.Date.Equal(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("after the change: %s of %s, want 1.06 of 2026-11-28", r, r.Date)
	}
	if err := os.WriteFile(path, []byte("broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	now = now.Add(exchangerates.CheckEvery)
	if r, _ := f.Rate("EUR", "USD"); r.String() != "1.06" {
		t.Errorf("a broken file replaced the rates: %s", r)
	}
	if f.Stale() != "" {
		t.Errorf("rates of yesterday are stale: %s", f.Stale())
	}
	now = now.Add(8 * 24 * time.Hour)
	if !strings.Contains(f.Stale(), "2026-11-28") {
		t.Errorf("rates of more than a week ago are not stale: %q", f.Stale())
	}
	var none *exchangerates.File
	if _, err := none.Rate("EUR", "USD"); !errors.Is(err, exchangerates.ErrNoRate) {
		t.Errorf("no file: %v, want ErrNoRate", err)
	}
	if r, err := none.Rate("EUR", "EUR"); err != nil || r.Convert(123) != 123 {
		t.Errorf("no file, one currency: %v %v", r, err)
	}
}

// An account's currency is a known ISO 4217 code: a typo of three letters
// is no currency.
func TestIsCurrency(t *testing.T) {
	for code, want := range map[string]bool{"EUR": true, "USD": true, "JPY": true, "ARS": true, "CHF": true,
		"EUE": false, "XYZ": false, "XXX": false, "XTS": false, "eur": false, "EU": false, "EURO": false} {
		if got := exchangerates.IsCurrency(code); got != want {
			t.Errorf("IsCurrency(%q) = %v, want %v", code, got, want)
		}
	}
}
