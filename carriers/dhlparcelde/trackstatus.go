package dhlparcelde

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// statusOf maps an event of the unified tracking API to shipd's tracker
// vocabulary. The API's statusCode says five things (pre-transit,
// transit, delivered, failure, unknown); its status and description, in
// the language asked (English), say more, and DHL Paket's wording of
// those is read for what the codes fold into transit or delivered: out for
// delivery ("loaded onto the delivery vehicle"), waiting at a Packstation
// or a retail outlet ("ready for pick-up", "delivered to the retail
// outlet"), and on its way back ("returned to the sender").
func statusOf(e trackEvent) string {
	text := strings.ToLower(e.Status + " " + e.Desc)
	code := strings.ToLower(strings.TrimSpace(e.StatusCode))
	switch {
	case strings.Contains(text, "return") && (strings.Contains(text, "sender") || strings.Contains(text, "shipper")):
		return carriers.StatusReturnToSender
	case code == "delivered" && (strings.Contains(text, "packstation") || strings.Contains(text, "retail") ||
		strings.Contains(text, "parcel shop") || strings.Contains(text, "post office")):
		return carriers.StatusAvailableForPickup
	case strings.Contains(text, "ready for pick") || strings.Contains(text, "available for pick") ||
		strings.Contains(text, "can be picked up") || strings.Contains(text, "ready for collection"):
		return carriers.StatusAvailableForPickup
	case code == "delivered":
		return carriers.StatusDelivered
	case code == "transit" && (strings.Contains(text, "delivery vehicle") || strings.Contains(text, "out for delivery")):
		return carriers.StatusOutForDelivery
	case code == "transit":
		return carriers.StatusInTransit
	case code == "pre-transit":
		return carriers.StatusPreTransit
	case code == "failure":
		return carriers.StatusFailure
	}
	return carriers.StatusUnknown
}
