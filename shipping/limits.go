package shipping

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The bounds of an address's fields, in characters. openapi.yaml's
// AddressInput states the same (TestAddressLimitsMatchContract), so a door
// without the contract's schema (the settings pages) holds to what the API
// does when it calls AddressLengthIssues.
const (
	MaxAddressNameLength    = 100
	MaxAddressCompanyLength = 100
	MaxAddressStreetLength  = 100
	MaxAddressCityLength    = 60
	MaxAddressStateLength   = 60
	MaxAddressZipLength     = 20
	MaxAddressPhoneLength   = 40
	MaxAddressEmailLength   = 254
)

// AddressFieldLimits lists an address's bounded fields (the contract's
// names) with their bounds.
func AddressFieldLimits() map[string]int {
	return map[string]int{
		"name": MaxAddressNameLength, "company": MaxAddressCompanyLength, "street1": MaxAddressStreetLength,
		"street2": MaxAddressStreetLength, "city": MaxAddressCityLength, "state": MaxAddressStateLength,
		"zip": MaxAddressZipLength, "phone": MaxAddressPhoneLength, "email": MaxAddressEmailLength,
	}
}

// AddressLengthIssues and AddressRequiredIssues check what the contract's
// schema says of an address (the API's door checks it before the domain),
// for the doors that have no schema: the required fields are given, and no
// field is longer than its bound. prefix names the address ("address.").
func AddressLengthIssues(prefix string, a Address) []Issue {
	var issues []Issue
	limits := AddressFieldLimits()
	for _, f := range []struct {
		name  string
		value string
	}{{"name", deref(a.Name)}, {"company", deref(a.Company)}, {"street1", a.Street1}, {"street2", deref(a.Street2)},
		{"city", a.City}, {"state", deref(a.State)}, {"zip", a.Zip}, {"phone", deref(a.Phone)}, {"email", deref(a.Email)}} {
		if n := utf8.RuneCountInString(f.value); n > limits[f.name] {
			issues = append(issues, Issue{Path: prefix + f.name, Message: fmt.Sprintf("must be at most %d characters", limits[f.name])})
		}
	}
	return issues
}

// AddressRequiredIssues: what a purchase needs of an address
// (PurchaseAddressFields: street1 and city) and zip are required (country
// is the caller's to give).
func AddressRequiredIssues(prefix string, a Address) []Issue {
	var issues []Issue
	for _, name := range append(PurchaseAddressFields(), "zip") {
		value := a.Zip
		if name != "zip" {
			value = carrierAddressField(CarrierAddress(a), name)
		}
		if strings.TrimSpace(value) == "" {
			issues = append(issues, Issue{Path: prefix + name, Message: "is required", Missing: true})
		}
	}
	return issues
}
