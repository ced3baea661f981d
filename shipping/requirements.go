package shipping

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// blockedRate is a rate the shipment cannot be bought at: it breaks the
// carrier's requirements (carriers/requirements.go), which the carrier would
// only report once the purchase had started.
type blockedRate struct {
	rate  Rate
	unmet []carriers.Requirement
}

// err is the 422 missing_field of a blocked rate: the first field the
// carrier needs, with its rule; the other fields it needs follow in the
// message.
func (b blockedRate) err() error {
	first := b.unmet[0]
	msg := fmt.Sprintf("is required to buy %s %s: %s", b.rate.Carrier, b.rate.Service, first.Rule)
	seen := map[string]bool{first.Field: true}
	for _, r := range b.unmet[1:] {
		if !seen[r.Field] {
			seen[r.Field] = true
			msg += fmt.Sprintf("; %s is required too: %s", r.Field, r.Rule)
		}
	}
	return &InputError{Issues: []Issue{{Path: first.Field, Message: msg, Missing: true}}}
}

// PurchaseAddressFields are the fields of an address that a label's
// purchase needs and a quote does not: a rate depends on where a parcel
// goes (the country, the postal code, a US state), a label on the street
// it is delivered to. The contract's AddressInput (creates, batches)
// requires them and its QuoteAddressInput does not
// (TestPurchaseFieldsMatchContract): the one list both the quote's
// missingFields and the doors without a schema are made from.
func PurchaseAddressFields() []string { return []string{"street1", "city"} }

// purchaseRequirements are PurchaseAddressFields of both addresses as
// requirements every carrier has, beside each carrier's own
// (carriers/requirements.go): a quote reports them in missingFields, and a
// purchase breaking them is refused with missing_field, as the carriers'.
// Through the API the schema refuses such a create first; the domain holds
// the rule for every door.
func purchaseRequirements() []carriers.Requirement {
	sides := []struct {
		path, who string
		of        func(carriers.Shipment) carriers.Address
	}{{"fromAddress", "sender", carriers.From}, {"toAddress", "recipient", carriers.To}}
	var out []carriers.Requirement
	for _, side := range sides {
		for _, field := range PurchaseAddressFields() {
			out = append(out, carriers.Requirement{
				Field: side.path + "." + field,
				Rule:  fmt.Sprintf("a label needs the %s's %s, which a quote does without", side.who, addressFieldWords(field)),
				Met: func(s carriers.Shipment) bool {
					return strings.TrimSpace(carrierAddressField(side.of(s), field)) != ""
				},
			})
		}
	}
	return out
}

// addressFieldWords says a field of PurchaseAddressFields in words.
func addressFieldWords(name string) string {
	if name == "street1" {
		return "street address"
	}
	return name
}

// carrierAddressField is the field of a named in the contract's words.
func carrierAddressField(a carriers.Address, name string) string {
	switch name {
	case "street1":
		return a.Street1
	case "city":
		return a.City
	}
	return ""
}

// withMissingFields sets every rate's MissingFields: the requirements s
// breaks for it, the ones every label has first, then the carrier's
// (catalog), each field once, [] when it breaks none. The rates a purchase
// cannot buy move from Rates to blocked (cheapest first), so that a create
// buys only what it can, and a quote still offers them (Offered) with what
// they need: a checkout page quotes before it knows the street or the
// phone numbers (issue 43). It applies in test mode too: the sandbox
// refuses what the live carriers refuse, so that an integration that works
// in test mode works live (VARIANTS.md, "Carrier requirements").
func (q Quote) withMissingFields(catalog *carriers.Catalog, s carriers.Shipment) Quote {
	every := carriers.Unmet(purchaseRequirements(), "", s)
	buyable := make([]Rate, 0, len(q.Rates))
	for _, r := range q.Rates {
		unmet := append(slices.Clip(every), catalog.Unmet(r.Carrier, r.Service, s)...)
		r.MissingFields = fieldsOf(unmet)
		if len(unmet) == 0 {
			buyable = append(buyable, r)
			continue
		}
		q.blocked = append(q.blocked, blockedRate{rate: r, unmet: unmet})
	}
	q.Rates = buyable
	sort.SliceStable(q.blocked, func(i, j int) bool {
		return q.blocked[i].rate.CustomerPriceCents < q.blocked[j].rate.CustomerPriceCents
	})
	return q
}

// fieldsOf are the requirements' fields, each once, in order; [] for none.
func fieldsOf(unmet []carriers.Requirement) []string {
	out := make([]string, 0, len(unmet))
	for _, r := range unmet {
		if !slices.Contains(out, r.Field) {
			out = append(out, r.Field)
		}
	}
	return out
}

// Offered is what a quote answers: every rate, those a purchase can buy and
// those it cannot yet (their MissingFields say why), cheapest first.
func (q Quote) Offered() Quote {
	if len(q.blocked) == 0 {
		return q
	}
	all := make([]Rate, 0, len(q.Rates)+len(q.blocked))
	all = append(all, q.Rates...)
	for _, b := range q.blocked {
		all = append(all, b.rate)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].CustomerPriceCents < all[j].CustomerPriceCents })
	q.Rates, q.blocked = all, nil
	return q
}

// pick selects the rate a create buys among the buyable rates. A selection
// that only a blocked rate matches (carrier FedEx when FedEx needs a phone
// number) gets that rate's missing_field rather than no_matching_service;
// a shipment no carrier can sell to gets the cheapest blocked rate's.
func (q Quote) pick(sel Selection) (Rate, error) {
	r, err := selectRate(q.Rates, sel)
	var none *NoMatchingServiceError
	if !errors.As(err, &none) || len(q.blocked) == 0 {
		return r, err
	}
	for _, b := range q.blocked {
		if _, berr := selectRate([]Rate{b.rate}, sel); berr == nil {
			return Rate{}, b.err()
		}
	}
	if len(q.Rates) == 0 {
		return Rate{}, q.blocked[0].err()
	}
	return r, err
}
