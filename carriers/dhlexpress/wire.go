package dhlexpress

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/exchangerates"
)

// Wire types and conversions shared by the operations, with the MyDHL
// document's names (supermodelIoLogisticsExpress…).

// unitOfMeasurement: shipd sends metric (kilograms, centimetres), the
// units DHL Express tariffs are written in; a parcel given in grams and
// centimetres reaches DHL as given (carriers.MetricOf).
const unitOfMeasurement = "metric"

// account is supermodelIoLogisticsExpressAccount.
type account struct {
	TypeCode string `json:"typeCode"`
	Number   string `json:"number"`
}

func (c *Carrier) shipperAccount() []account {
	return []account{{TypeCode: "shipper", Number: c.account}}
}

// ratesAddress is supermodelIoLogisticsExpressAddressRatesRequest: where a
// rated shipment leaves from or goes to.
type ratesAddress struct {
	PostalCode   string `json:"postalCode"`
	CityName     string `json:"cityName"`
	CountryCode  string `json:"countryCode"`
	ProvinceCode string `json:"provinceCode,omitempty"`
	AddressLine1 string `json:"addressLine1,omitempty"`
	AddressLine2 string `json:"addressLine2,omitempty"`
}

func toRatesAddress(a carriers.Address) ratesAddress {
	return ratesAddress{
		PostalCode:   strings.TrimSpace(a.Zip),
		CityName:     strings.TrimSpace(a.City),
		CountryCode:  carriers.NormalizeCountry(a.Country),
		ProvinceCode: province(a.State),
		AddressLine1: strings.TrimSpace(a.Street1),
		AddressLine2: strings.TrimSpace(a.Street2),
	}
}

// province is the provinceCode of a state: at least 2 characters, or none.
func province(state string) string {
	s := strings.ToUpper(strings.TrimSpace(state))
	if utf8.RuneCountInString(s) < 2 {
		return ""
	}
	return s
}

// postalAddress and contactInformation are a party's in /shipments and
// /pickups.
type postalAddress struct {
	PostalCode   string `json:"postalCode"`
	CityName     string `json:"cityName"`
	CountryCode  string `json:"countryCode"`
	ProvinceCode string `json:"provinceCode,omitempty"`
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2,omitempty"`
}

type contactInformation struct {
	Email       string `json:"email,omitempty"`
	Phone       string `json:"phone"`
	CompanyName string `json:"companyName"`
	FullName    string `json:"fullName"`
}

// registrationNumber is a party's tax or customs number by kind (VAT, EOR,
// SDT …) and the country that issued it.
type registrationNumber struct {
	TypeCode          string `json:"typeCode"`
	Number            string `json:"number"`
	IssuerCountryCode string `json:"issuerCountryCode"`
}

// party is a shipperDetails or receiverDetails of /shipments.
type party struct {
	PostalAddress       postalAddress        `json:"postalAddress"`
	ContactInformation  contactInformation   `json:"contactInformation"`
	RegistrationNumbers []registrationNumber `json:"registrationNumbers,omitempty"`
	// TypeCode "private" marks a residential receiver; omitted otherwise.
	TypeCode string `json:"typeCode,omitempty"`
}

func toPostalAddress(a carriers.Address) postalAddress {
	return postalAddress{
		PostalCode:   strings.TrimSpace(a.Zip),
		CityName:     strings.TrimSpace(a.City),
		CountryCode:  carriers.NormalizeCountry(a.Country),
		ProvinceCode: province(a.State),
		AddressLine1: strings.TrimSpace(a.Street1),
		AddressLine2: strings.TrimSpace(a.Street2),
	}
}

// toContact is a party's contact. DHL requires a company name: a private
// person's is their own name, as DHL's documentation has it for consumers.
func toContact(a carriers.Address) contactInformation {
	name, company := strings.TrimSpace(a.Name), strings.TrimSpace(a.Company)
	if name == "" {
		name = company
	}
	if company == "" {
		company = name
	}
	return contactInformation{Email: strings.TrimSpace(a.Email), Phone: strings.TrimSpace(a.Phone), CompanyName: company, FullName: name}
}

func toParty(a carriers.Address) party {
	p := party{PostalAddress: toPostalAddress(a), ContactInformation: toContact(a)}
	if a.Residential {
		p.TypeCode = "private"
	}
	return p
}

// dimensions are a package's, in whole centimetres.
type dimensions struct {
	Length json.Number `json:"length"`
	Width  json.Number `json:"width"`
	Height json.Number `json:"height"`
}

// ratesPackage is supermodelIoLogisticsExpressPackageRR, and the part of
// a /shipments or /pickups package shipd fills.
type ratesPackage struct {
	Weight     json.Number `json:"weight"`
	Dimensions *dimensions `json:"dimensions,omitempty"`
}

// packagesOf is every piece of s, in kilograms and centimetres.
func packagesOf(s carriers.Shipment) []ratesPackage {
	var out []ratesPackage
	for _, p := range s.AllPieces() {
		m := carriers.MetricOf(p)
		pkg := ratesPackage{Weight: kilograms(m.WeightG)}
		if m.LengthCm > 0 && m.WidthCm > 0 && m.HeightCm > 0 {
			// All three or none: DHL's dimensions require each.
			pkg.Dimensions = &dimensions{Length: centimetres(m.LengthCm), Width: centimetres(m.WidthCm), Height: centimetres(m.HeightCm)}
		}
		out = append(out, pkg)
	}
	return out
}

// kilograms writes grams as kilograms to the gram (DHL's multipleOf
// 0.001), rounded up so that a parcel is never declared lighter than it
// is, and at least a gram. The rounding works on integer grams so that
// float noise cannot add one.
func kilograms(g float64) json.Number {
	grams := int64(math.Ceil(g - 1e-6))
	if grams < 1 {
		grams = 1
	}
	return json.Number(strconv.FormatInt(grams/1000, 10) + "." + pad(grams%1000, 3))
}

// centimetres rounds a dimension up to whole centimetres, at least 1:
// rounding down would understate the volume DHL charges.
func centimetres(cm float64) json.Number {
	n := int64(math.Ceil(cm - 1e-6))
	if n < 1 {
		n = 1
	}
	return json.Number(strconv.FormatInt(n, 10))
}

func pad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// money writes minor units of currency as a decimal number, with the
// currency's decimals (ISO 4217: 2 for EUR and USD, 0 for JPY).
func money(minor int64, currency string) json.Number {
	decimals := exchangerates.MinorUnits(currency)
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	if decimals == 0 {
		return json.Number(sign + strconv.FormatInt(minor, 10))
	}
	p := int64(math.Pow10(decimals))
	return json.Number(sign + strconv.FormatInt(minor/p, 10) + "." + pad(minor%p, decimals))
}

// unitPrice writes total/quantity minor units as a decimal to DHL's
// thousandth (lineItems' price is per unit, multipleOf 0.001), rounded
// half up; the line's exact total goes beside it
// (preCalculatedLineItemTotalValue).
func unitPrice(total int64, quantity int, currency string) json.Number {
	q := int64(max(quantity, 1))
	r := new(big.Rat).SetFrac(big.NewInt(total), big.NewInt(q))
	r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exchangerates.MinorUnits(currency))), nil)))
	s := r.FloatString(3)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return json.Number(s)
}

// shippingTime is a plannedShippingDateAndTime ("2026-03-02T14:00:00
// GMT+00:00", the document's form): the shipment's ship date, at the next
// whole hour of now when that is today (a time DHL takes as not past), at
// noon otherwise; in UTC, whose offset DHL is told.
func (c *Carrier) shippingTime(s carriers.Shipment) string {
	now := c.now().UTC()
	day := s.ShipDate
	if day.IsZero() || !carriers.Date(day).After(carriers.Date(now)) {
		t := now.Truncate(time.Hour).Add(time.Hour)
		if carriers.Date(t).After(carriers.Date(now)) {
			t = now.Add(time.Minute).Truncate(time.Minute)
		}
		return gmt(t)
	}
	return gmt(carriers.Date(day).Add(12 * time.Hour))
}

// gmt writes t in DHL's date-and-time form, with t's own offset.
func gmt(t time.Time) string {
	return t.Format("2006-01-02T15:04:05") + " GMT" + t.Format("-07:00")
}

// truncate cuts s to n characters: for DHL's free texts (a description),
// never an address.
func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}
