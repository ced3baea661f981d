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

// withoutUnbuyable moves the rates whose carrier requirements s breaks from
// Rates to blocked, keeping the order, and reports each such carrier in
// Failures (kind rejected, code missing_field), so that a quote only offers
// what a create can buy and says why the others are missing. It applies in
// test mode too: the sandbox refuses what the live carriers refuse, so that
// an integration that works in test mode works live (VARIANTS.md, "Carrier
// requirements").
func (q Quote) withoutUnbuyable(catalog *carriers.Catalog, s carriers.Shipment) Quote {
	buyable := make([]Rate, 0, len(q.Rates))
	blockedBy := map[string][]blockedRate{} // by carrier
	var order []string
	for _, r := range q.Rates {
		unmet := catalog.Unmet(r.Carrier, r.Service, s)
		if len(unmet) == 0 {
			buyable = append(buyable, r)
			continue
		}
		b := blockedRate{rate: r, unmet: unmet}
		q.blocked = append(q.blocked, b)
		if _, ok := blockedBy[r.Carrier]; !ok {
			order = append(order, r.Carrier)
		}
		blockedBy[r.Carrier] = append(blockedBy[r.Carrier], b)
	}
	for _, carrier := range order {
		q.Failures = append(q.Failures, requirementFailure(carrier, blockedBy[carrier], buyable))
	}
	q.Rates = buyable
	sort.SliceStable(q.blocked, func(i, j int) bool {
		return q.blocked[i].rate.CustomerPriceCents < q.blocked[j].rate.CustomerPriceCents
	})
	return q
}

// requirementFailure is a carrier's entry in carrierErrors for its blocked
// rates: every rule they break, and the services when some of the carrier's
// services remain buyable.
func requirementFailure(carrier string, blocked []blockedRate, buyable []Rate) CarrierFailure {
	var rules, services []string
	for _, b := range blocked {
		services = append(services, b.rate.Service)
		for _, r := range b.unmet {
			if rule := fmt.Sprintf("%s (%s)", r.Rule, r.Field); !slices.Contains(rules, rule) {
				rules = append(rules, rule)
			}
		}
	}
	prefix := carrier
	for _, r := range buyable {
		if r.Carrier == carrier {
			prefix = carrier + " " + strings.Join(services, ", ")
			break
		}
	}
	return CarrierFailure{Carrier: carrier, Kind: FailureRejected, Code: "missing_field",
		Message: prefix + " cannot be bought for this shipment: " + strings.Join(rules, "; ")}
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
