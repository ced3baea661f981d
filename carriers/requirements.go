package carriers

import (
	"fmt"
	"strings"
)

// Requirement is one field a carrier needs to sell a label that the API's
// schema leaves optional. The table below is the one definition: the
// shipping flow leaves out of a quote (and refuses to buy) every rate whose
// requirements the shipment does not meet, before anything is stored or
// charged, and each live adapter checks the same table before it calls its
// carrier, as a defence for a purchase that reaches it anyway.
type Requirement struct {
	// Field is the API path of the field (fromAddress.phone).
	Field string
	// Rule says what the carrier asks for, as a sentence for the caller.
	Rule string
	// Services limits the rule to these services; empty means every service.
	Services []string
	// When limits the rule to some shipments; nil means every shipment.
	When func(Shipment) bool
	// Met reports whether the shipment satisfies the rule.
	Met func(Shipment) bool
}

// applies reports whether the rule binds a purchase of service for s.
func (r Requirement) applies(service string, s Shipment) bool {
	if len(r.Services) > 0 && !containsFold(r.Services, service) {
		return false
	}
	return r.When == nil || r.When(s)
}

// Unmet returns the requirements of carrier (its name, any case) that a
// purchase of service for s would break, in the table's order; nil when
// there are none or the carrier has no table.
func Unmet(carrier, service string, s Shipment) []Requirement {
	var out []Requirement
	for _, r := range requirements[strings.ToUpper(strings.TrimSpace(carrier))] {
		if r.applies(strings.TrimSpace(service), s) && !r.Met(s) {
			out = append(out, r)
		}
	}
	return out
}

// CheckRequirements is the adapters' defence: an *Error of kind ErrRejected
// that names the first requirement of carrier a purchase of service for s
// breaks, nil when it breaks none.
func CheckRequirements(carrier, service string, s Shipment) error {
	unmet := Unmet(carrier, service, s)
	if len(unmet) == 0 {
		return nil
	}
	return &Error{Carrier: carrier, Operation: "buy", Kind: ErrRejected,
		Message: fmt.Sprintf("%s (%s)", unmet[0].Rule, unmet[0].Field)}
}

// Requirements returns carrier's whole table (a copy), for documentation and tests.
func Requirements(carrier string) []Requirement {
	return append([]Requirement(nil), requirements[strings.ToUpper(strings.TrimSpace(carrier))]...)
}

// The tables, keyed by the upper-cased carrier name. They hold for the live
// carriers and for the sandbox carriers of the same names alike: test mode
// refuses what the live carrier would. Sources: the carriers' API references
// (UPS Shipping.yaml: Shipper/ShipTo Name always, AttentionName and
// Phone.Number for an international shipment and for Next Day Air Early;
// FedEx Ship API: a contact with personName or companyName and a phoneNumber,
// 10 digits for the US and Canada, for shipper and recipient; USPS Labels
// API: "The First and Last Name or Firm Name are always required").
var requirements = map[string][]Requirement{
	"UPS": {
		{Field: "fromAddress.name", Rule: "UPS requires the sender's name or company", Met: nameOrCompany(from)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's name or company", Met: nameOrCompany(to)},
		{Field: "fromAddress.name", Rule: "UPS requires the sender's contact name (name, not only company) on an international shipment", When: international, Met: name(from)},
		{Field: "fromAddress.phone", Rule: "UPS requires the sender's phone number (at most 15 digits) on an international shipment", When: international, Met: upsPhone(from)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's contact name (name, not only company) on an international shipment", When: international, Met: name(to)},
		{Field: "toAddress.phone", Rule: "UPS requires the recipient's phone number (at most 15 digits) on an international shipment", When: international, Met: upsPhone(to)},
		{Field: "toAddress.name", Rule: "UPS requires the recipient's contact name (name, not only company) for Next Day Air Early", Services: []string{"NextDayAirEarly"}, Met: name(to)},
		{Field: "toAddress.phone", Rule: "UPS requires the recipient's phone number (at most 15 digits) for Next Day Air Early", Services: []string{"NextDayAirEarly"}, Met: upsPhone(to)},
	},
	"FEDEX": {
		{Field: "fromAddress.name", Rule: "FedEx requires the sender's name or company", Met: nameOrCompany(from)},
		{Field: "fromAddress.phone", Rule: "FedEx requires the sender's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere", Met: fedexPhone(from)},
		{Field: "toAddress.name", Rule: "FedEx requires the recipient's name or company", Met: nameOrCompany(to)},
		{Field: "toAddress.phone", Rule: "FedEx requires the recipient's phone number: 10 digits (or 11 starting with 1) in the US and Canada, 10 to 15 elsewhere", Met: fedexPhone(to)},
	},
	"USPS": {
		{Field: "fromAddress.name", Rule: "USPS requires the sender's name or company", Met: nameOrCompany(from)},
		{Field: "toAddress.name", Rule: "USPS requires the recipient's name or company", Met: nameOrCompany(to)},
	},
}

func from(s Shipment) Address { return s.From }
func to(s Shipment) Address   { return s.To }

func international(s Shipment) bool { return IsInternational(s.From, s.To) }

func name(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool { return strings.TrimSpace(side(s).Name) != "" }
}

func nameOrCompany(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool {
		a := side(s)
		return strings.TrimSpace(a.Name) != "" || strings.TrimSpace(a.Company) != ""
	}
}

// fedexPhone is FedEx's rule for a contact's phone number, counted in
// digits (the adapter sends only the digits).
func fedexPhone(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool {
		a := side(s)
		d := PhoneDigits(a.Phone)
		switch NormalizeCountry(a.Country) {
		case "US", "CA":
			return len(d) == 10 || len(d) == 11 && d[0] == '1'
		default:
			return len(d) >= 10 && len(d) <= 15
		}
	}
}

// upsPhone is UPS's Phone.Number: 1 to 15 digits, a US number without its
// leading 1 (the adapter drops it).
func upsPhone(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool {
		a := side(s)
		d := PhoneDigits(a.Phone)
		if NormalizeCountry(a.Country) == "US" && len(d) == 11 && d[0] == '1' {
			d = d[1:]
		}
		return len(d) >= 1 && len(d) <= 15
	}
}

// PhoneDigits is a phone number's digits, without the spaces, dashes,
// parentheses and plus sign people write.
func PhoneDigits(phone string) string {
	var b strings.Builder
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
