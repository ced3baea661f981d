package dhlparcelde

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/dhlparcelde/dhlparceldefake"
)

func TestNewRefusesAnUnusableConfig(t *testing.T) {
	t.Parallel()
	good := Config{APIKey: "k", Username: "u", Password: "p", BillingNumber: "33333333330102"}
	for _, tc := range []struct {
		name string
		tune func(*Config)
		want string
	}{
		{"no API key", func(c *Config) { c.APIKey = " " }, "APIKey required"},
		{"nothing", func(c *Config) { *c = Config{} }, "APIKey, Username, Password, BillingNumber required"},
		{"a short billing number", func(c *Config) { c.BillingNumber = "3333333333010" }, "got 13 characters"},
		{"letters in the EKP", func(c *Config) { c.BillingNumber = "33333A3333010X" }, "14-character DHL billing number"},
		{"a base URL with a path", func(c *Config) { c.BaseURL = "https://api-eu.dhl.com/parcel/de/shipping/v2" }, "scheme and host"},
		{"a base URL of another scheme", func(c *Config) { c.BaseURL = "ftp://api-eu.dhl.com" }, "scheme and host"},
	} {
		cfg := good
		tc.tune(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrConfig saying %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), cfg.BillingNumber) && cfg.BillingNumber != "" {
			t.Errorf("%s: the error shows the billing number", tc.name)
		}
	}
	c, err := New(good)
	if err != nil || c.cfg.BaseURL != ProductionURL || c.billingNumber(services[2]) != "33333333335402" {
		t.Fatalf("a good config: %v, base %q", err, c.cfg.BaseURL)
	}
	if c.Capabilities().Has(carriers.CapPickups) {
		t.Error("pickups without the API secret")
	}
}

// The descriptor builds a live connector through a catalog and a carrier
// account's Factory, its billing number checked at the door; the identity
// is the user, the account the billing number.
func TestDescriptor(t *testing.T) {
	t.Parallel()
	d := Descriptor()
	if !d.Live() || !d.RatesFromSheet || d.IdentityField != "username" || d.AccountField != "billingNumber" {
		t.Fatalf("descriptor %+v", d)
	}
	var flags []string
	for _, f := range d.Credentials {
		flags = append(flags, d.Env(f.Flag))
	}
	want := []string{"SHIPD_DHLPARCELDE_API_KEY", "SHIPD_DHLPARCELDE_USERNAME", "SHIPD_DHLPARCELDE_PASSWORD", "SHIPD_DHLPARCELDE_BILLING_NUMBER", "SHIPD_DHLPARCELDE_API_SECRET"}
	if diff := cmp.Diff(want, flags); diff != "" {
		t.Errorf("variables (-want +got):\n%s", diff)
	}
	billing, _ := d.Field("billingNumber")
	for v, ok := range map[string]bool{"33333333330102": true, "333333333362aa": true, "3333333333010": false, "33333333a30102": false, "3333333333x102": false} {
		if err := billing.Problem(v); (err == nil) != ok {
			t.Errorf("billing number %q: %v", v, err)
		}
	}
	if f, _ := d.Field("apiKey"); !f.Secret {
		t.Error("the API key is not secret")
	}
	cat, err := carriers.NewCatalog(d)
	if err != nil {
		t.Fatal(err)
	}
	fake := dhlparceldefake.New(t)
	fake.SetNow(testNow)
	factory := cat.Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{ID: {Production: fake.URL(), Test: fake.URL()}}})
	client, err := factory(carriers.NewCredentials(d, carriers.EnvironmentProduction, map[string]string{
		"apiKey": dhlparceldefake.APIKey, "username": dhlparceldefake.Username, "password": dhlparceldefake.Password,
		"billingNumber": dhlparceldefake.BillingNumber}))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.CheckCredentials(context.Background()); err != nil {
		t.Fatalf("the account's credentials: %v", err)
	}
	// The account has no rate sheet: its quote says so.
	if _, err := client.Rates(context.Background(), domesticShipment()); !errors.Is(err, carriers.ErrRejected) || !strings.Contains(err.Error(), "rate-sheet") {
		t.Errorf("an account without a rate sheet quotes: %v", err)
	}
}

func TestSplitStreet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, street, house string }{
		{"Hauptstr. 5", "Hauptstr.", "5"},
		{"Kurt-Schumacher-Str. 20a", "Kurt-Schumacher-Str.", "20a"},
		{"Am Markt 1-3", "Am Markt", "1-3"},
		{"Mariahilfer Straße 12 a", "Mariahilfer Straße", "12a"},
		{"Kaiserstraße 5/7", "Kaiserstraße", "5/7"},
		{"5 rue de Rivoli", "rue de Rivoli", "5"},
		{"10, Downing Street", "Downing Street", "10"},
		{"Straße des 17. Juni 135", "Straße des 17. Juni", "135"},
		{"Postfach", "Postfach", ""},
		{"  Heidestr.   17  ", "Heidestr.", "17"},
		{"12345678901 Long Road", "12345678901 Long Road", ""},
	} {
		street, house := splitStreet(tc.line)
		if street != tc.street || house != tc.house {
			t.Errorf("%q: %q + %q, want %q + %q", tc.line, street, house, tc.street, tc.house)
		}
	}
}

func TestCountriesAndDates(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"DE": "DEU", "ch": "CHE", "GB": "GBR", "": "USA", "XX": "", "EU": ""} {
		if got := iso3(in); got != want {
			t.Errorf("iso3(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 3, 11, 22, 59, 0, 0, time.UTC), "2026-03-11"},  // 23:59 CET
		{time.Date(2026, 3, 11, 23, 0, 0, 0, time.UTC), "2026-03-12"},   // midnight CET
		{time.Date(2026, 7, 1, 21, 59, 0, 0, time.UTC), "2026-07-01"},   // 23:59 CEST
		{time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), "2026-07-02"},    // midnight CEST
		{time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), "2026-03-29"},   // 01:59 CET, the change of time
		{time.Date(2026, 10, 24, 22, 30, 0, 0, time.UTC), "2026-10-25"}, // 00:30 CEST
	} {
		if got := berlinDate(tc.at); got != tc.want {
			t.Errorf("berlinDate(%s) = %s, want %s", tc.at, got, tc.want)
		}
	}
	// A ship date taken in UTC late in the evening is yesterday in
	// Germany: the order asks for today, never the past.
	c := &Carrier{cfg: Config{Now: func() time.Time { return time.Date(2026, 3, 11, 23, 30, 0, 0, time.UTC) }}}
	s := domesticShipment()
	s.ShipDate = time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)
	if got := c.shipDate(s); got != "2026-03-12" {
		t.Errorf("ship date %s, want 2026-03-12", got)
	}
	s.ShipDate = time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)
	if got := c.shipDate(s); got != "2026-03-16" {
		t.Errorf("a later ship date %s, want it kept", got)
	}
}
