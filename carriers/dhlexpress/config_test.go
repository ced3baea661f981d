package dhlexpress

import (
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// New refuses what it cannot use, without repeating the credentials.
func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	good := Config{Username: "user", Password: "secret-password", AccountNumber: "951234567"}
	for name, mod := range map[string]func(*Config){
		"no username":         func(c *Config) { c.Username = " " },
		"no password":         func(c *Config) { c.Password = "" },
		"account of 8 digits": func(c *Config) { c.AccountNumber = "95123456" },
		"account with letter": func(c *Config) { c.AccountNumber = "95123456X" },
		"base URL no scheme":  func(c *Config) { c.BaseURL = "express.api.dhl.com/mydhlapi" },
		"base URL with query": func(c *Config) { c.BaseURL = "https://express.api.dhl.com/mydhlapi?x=1" },
	} {
		cfg := good
		mod(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, ErrInvalidConfig) || strings.Contains(err.Error(), "secret-password") || strings.Contains(err.Error(), "95123456") {
			t.Errorf("%s: %v", name, err)
		}
	}
	c, err := New(good)
	if err != nil || c.baseURL != ProductionURL {
		t.Errorf("default base URL %v, %v", c, err)
	}
	c, err = New(Config{Username: "u", Password: "p", AccountNumber: "951234567", BaseURL: TestURL + "/"})
	if err != nil || c.baseURL != TestURL {
		t.Errorf("test base URL %v, %v", c, err)
	}
}

// The descriptor: the credentials of the issue (username, password, a
// 9-digit account number checked at the door), the API roots, no origin
// restriction, the label sizes DHL draws, verification after USPS and
// UPS, and a catalog that takes it.
func TestDescriptor(t *testing.T) {
	t.Parallel()
	d := Descriptor()
	if _, err := carriers.NewCatalog(d); err != nil {
		t.Fatal(err)
	}
	if d.Env("username") != "SHIPD_DHLEXPRESS_USERNAME" || d.Env("password") != "SHIPD_DHLEXPRESS_PASSWORD" ||
		d.Env("account-number") != "SHIPD_DHLEXPRESS_ACCOUNT_NUMBER" || d.Env("base-url") != "SHIPD_DHLEXPRESS_BASE_URL" {
		t.Error("environment variables")
	}
	account, _ := d.Field("accountNumber")
	for v, ok := range map[string]bool{"951234567": true, "95123456": false, "9512345678": false, "95123456a": false} {
		if (account.Problem(v) == nil) != ok {
			t.Errorf("account number %q: %v", v, account.Problem(v))
		}
	}
	if p, _ := d.Field("clientSecret"); !p.Secret || p.Flag != "password" {
		t.Error("the password is not secret")
	}
	if d.Origins != nil || d.URLs.Production != "https://express.api.dhl.com/mydhlapi" || d.URLs.Test != "https://express.api.dhl.com/mydhlapi/test" ||
		!d.Live() || d.VerifierRank <= 2 || !d.Capabilities.Has(carriers.CapAddressValidation|carriers.CapLandedCost|carriers.CapPaperless) {
		t.Errorf("descriptor %+v", d)
	}
	if !d.Serves(carriers.Shipment{From: carriers.Address{Country: "JP"}}) {
		t.Error("DHL Express does not serve a shipper in Japan")
	}
}

// The requirements: the document's lengths where the contract allows
// longer, and a contact name and phone on both sides.
func TestRequirements(t *testing.T) {
	t.Parallel()
	s := domestic()
	if un := carriers.Unmet(requirements(), "DomesticExpress", s); len(un) != 0 {
		t.Fatalf("a good shipment breaks %+v", un)
	}
	s.From.City = strings.Repeat("x", 46)
	s.To.Zip = "1234567890123"
	s.To.Email = strings.Repeat("e", 60) + "@example.com"
	s.To.Phone = ""
	var fields []string
	for _, r := range carriers.Unmet(requirements(), "DomesticExpress", s) {
		fields = append(fields, r.Field)
	}
	if strings.Join(fields, ",") != "toAddress.phone,fromAddress.city,toAddress.zip,toAddress.email" {
		t.Errorf("unmet %v", fields)
	}
}
