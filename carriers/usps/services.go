package usps

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// service is one USPS mail class that shipd sells.
//
// Source: the mailClass enums of the USPS Shipping Options 3.0 OpenAPI
// document (DomesticMailClass, InternationalMailClass), the rateIndicator
// enums of Domestic Labels 3.0 and International Labels 3.0, and the extra
// service code list of Domestic Labels 3.0. Names and categories are those
// the sandbox uses for the same services (carriers/sandbox/pricing.go), so a
// carrier/service pair chosen in test mode means the same in live mode.
// typicalDays is USPS's published delivery range, upper end, used when an
// answer carries no commitment (international mail never does).
//
// Media Mail, Library Mail and Bound Printed Matter are left out on purpose:
// they are restricted to certain contents, so offering them as the cheapest
// rate for any parcel would sell labels USPS may surcharge. Parcel Select and
// the USPS Connect products need destination entry or an enrolled ZIP Code.
type service struct {
	name          string // carriers.Rate.Service
	mailClass     string // USPS mailClass
	category      string
	international bool
	// rateIndicator is the single-piece rate indicator the label is bought
	// with; a quote with another indicator (flat rate boxes, cubic) would
	// price packaging shipd does not use, so such quotes are skipped.
	rateIndicator string
	// signatureCode is the extra service code for a signature at delivery:
	// 921 Signature Confirmation, or 981 Signature Requested, the one
	// Priority Mail Express takes. 0: USPS offers none (international).
	signatureCode int
	typicalDays   int
	// returnMailClass is the mail class of the service's return label
	// (Domestic Labels 3.0 /return-label, BaseReturnsPackageDescription):
	// paid on use by the merchant's EPS account. "": no return service
	// (international mail has none).
	returnMailClass string
}

// services is the service-code table.
var services = []service{
	{name: "GroundAdvantage", mailClass: "USPS_GROUND_ADVANTAGE", category: carriers.CategoryEconomy, rateIndicator: "SP", signatureCode: 921, typicalDays: 5,
		returnMailClass: "USPS_GROUND_ADVANTAGE_RETURN_SERVICE"},
	{name: "Priority", mailClass: "PRIORITY_MAIL", category: carriers.CategoryStandard, rateIndicator: "SP", signatureCode: 921, typicalDays: 3,
		returnMailClass: "PRIORITY_MAIL_RETURN_SERVICE"},
	{name: "PriorityExpress", mailClass: "PRIORITY_MAIL_EXPRESS", category: carriers.CategoryExpress, rateIndicator: "PA", signatureCode: 981, typicalDays: 2,
		returnMailClass: "PRIORITY_MAIL_EXPRESS_RETURN_SERVICE"},
	{name: "FirstClassPackageInternational", mailClass: "FIRST-CLASS_PACKAGE_INTERNATIONAL_SERVICE", category: carriers.CategoryEconomy, international: true, rateIndicator: "SP", typicalDays: 12},
	{name: "PriorityMailInternational", mailClass: "PRIORITY_MAIL_INTERNATIONAL", category: carriers.CategoryStandard, international: true, rateIndicator: "SP", typicalDays: 8},
	{name: "PriorityMailExpressInternational", mailClass: "PRIORITY_MAIL_EXPRESS_INTERNATIONAL", category: carriers.CategoryExpress, international: true, rateIndicator: "PA", typicalDays: 4},
}

// serviceByMailClass finds the service USPS calls mailClass, or whose
// return label it calls so when returns is set.
func serviceByMailClass(mailClass string, returns bool) (service, bool) {
	for _, s := range services {
		if (!returns && s.mailClass == mailClass) || (returns && s.returnMailClass != "" && s.returnMailClass == mailClass) {
			return s, true
		}
	}
	return service{}, false
}

// ReturnService: the domestic services, each sold as its USPS return
// service (Domestic Labels 3.0 /return-label), which USPS bills to the
// merchant's account when the label is first scanned. USPS makes no
// international return label.
func (c *Carrier) ReturnService(name string) bool {
	svc, ok := serviceByName(name)
	return ok && svc.returnMailClass != ""
}

// serviceByName finds a service by its shipd name; clients type names back
// from quotes, so case is ignored.
func serviceByName(name string) (service, bool) {
	name = strings.TrimSpace(name)
	for _, s := range services {
		if strings.EqualFold(s.name, name) {
			return s, true
		}
	}
	return service{}, false
}

// signatureCodes are the extra service codes a domestic rate request asks to
// be priced when the shipment needs a signature; USPS prices each for the
// mail classes it applies to.
func signatureCodes() []int {
	var codes []int
	for _, s := range services {
		if s.signatureCode != 0 && !containsInt(codes, s.signatureCode) {
			codes = append(codes, s.signatureCode)
		}
	}
	return codes
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// domesticCountries are the ISO codes USPS serves as domestic mail: the US
// and its territories and the freely associated states, which have US ZIP
// Codes and state codes of their own.
var domesticCountries = map[string]bool{
	"US": true, "PR": true, "VI": true, "GU": true, "AS": true, "MP": true,
	"UM": true, "FM": true, "MH": true, "PW": true,
}

// isDomestic reports whether USPS treats a shipment to this address as
// domestic mail.
func isDomestic(a carriers.Address) bool {
	return domesticCountries[carriers.NormalizeCountry(a.Country)]
}
