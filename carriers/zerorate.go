package carriers

import (
	"log/slog"
	"strings"
)

// DropZeroRates leaves out the rates a carrier priced at 0: none of the
// live carriers (UPS, FedEx, USPS) documents a free service among those
// shipd sells, so a price of 0 is a malformed answer for that service (a
// missing charge the carrier's JSON wrote as 0, a negotiated rate not set
// up), and quoting it would let a label be bought at a price nobody will
// honour. Each dropped service is logged; when every rate of the answer
// was 0, the answer is unusable and the error says so (ErrFailed), so the
// quote shows the carrier's failure instead of an empty list.
func DropZeroRates(log *slog.Logger, carrier string, rates []Rate) ([]Rate, error) {
	kept := rates[:0:0]
	var dropped []string
	for _, r := range rates {
		if r.CarrierRateCents == 0 {
			dropped = append(dropped, r.Service)
			continue
		}
		kept = append(kept, r)
	}
	if len(dropped) == 0 {
		return rates, nil
	}
	if log != nil {
		log.Warn("carrier quoted services at 0; left out of the quote", "carrier", carrier, "services", dropped)
	}
	if len(kept) == 0 {
		return nil, &Error{Carrier: carrier, Operation: "rate", Kind: ErrFailed,
			Message: "malformed answer: every service was priced at 0 (" + Excerpt(strings.Join(dropped, ", ")) + ")"}
	}
	return kept, nil
}
