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

// Unmet returns the requirements of table that a purchase of service for s
// would break, in the table's order; nil when there are none.
func Unmet(table []Requirement, service string, s Shipment) []Requirement {
	var out []Requirement
	for _, r := range table {
		if r.applies(strings.TrimSpace(service), s) && !r.Met(s) {
			out = append(out, r)
		}
	}
	return out
}

// CheckRequirements is the adapters' defence: an *Error of kind ErrRejected
// that names the first requirement of carrier's table a purchase of service
// for s breaks, nil when it breaks none.
func CheckRequirements(carrier string, table []Requirement, service string, s Shipment) error {
	unmet := Unmet(table, service, s)
	if len(unmet) == 0 {
		return nil
	}
	return &Error{Carrier: carrier, Operation: "buy", Kind: ErrRejected,
		Message: fmt.Sprintf("%s (%s)", unmet[0].Rule, unmet[0].Field)}
}

// The sides of a shipment a requirement reads, and the predicates the
// connectors' tables are made of. The tables hold for the live carriers and
// for the sandbox carriers of the same names alike: test mode refuses what
// the live carrier would.

// From is the sender's address.
func From(s Shipment) Address { return s.From }

// To is the recipient's address.
func To(s Shipment) Address { return s.To }

// International reports whether s crosses a border.
func International(s Shipment) bool { return IsInternational(s.From, s.To) }

// HasName reports whether the side's address has a person's name.
func HasName(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool { return strings.TrimSpace(side(s).Name) != "" }
}

// HasNameOrCompany reports whether the side's address has a name or a company.
func HasNameOrCompany(side func(Shipment) Address) func(Shipment) bool {
	return func(s Shipment) bool {
		a := side(s)
		return strings.TrimSpace(a.Name) != "" || strings.TrimSpace(a.Company) != ""
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
