package gls

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Tracking status mapping.
//
// A parcel's status is one of the twelve ParcelDTO.status values Track
// And Trace V1 documents (ecitrackandtrace.yaml); each maps to shipd's
// vocabulary below. An event has a code instead ("INTIAL.PREADVICE",
// "DELIVD.PARCELSHOP": a kind, a dot, a detail), whose list is GLS's
// Events Codes API rather than the document: eventStatus reads the kinds
// the document's examples show and calls the rest in transit. The newest
// event takes the parcel's status.

// parcelStatuses maps ParcelDTO.status.
var parcelStatuses = map[string]string{
	"PLANNEDPICKUP": carriers.StatusPreTransit,         // planned to be picked up
	"INPICKUP":      carriers.StatusPreTransit,         // a driver will pick it up
	"NOTPICKEDUP":   carriers.StatusPreTransit,         // not picked up: still with the shipper
	"PREADVICE":     carriers.StatusPreTransit,         // GLS has the data, not the parcel
	"INTRANSIT":     carriers.StatusInTransit,          // on its way to the final depot
	"INWAREHOUSE":   carriers.StatusInTransit,          // in a warehouse
	"INDELIVERY":    carriers.StatusOutForDelivery,     // with a driver for delivery
	"DELIVEREDPS":   carriers.StatusAvailableForPickup, // delivered to a parcel shop, for the consignee to collect
	"DELIVERED":     carriers.StatusDelivered,
	"NOTDELIVERED":  carriers.StatusFailure,
	"CANCELED":      carriers.StatusCancelled,
	// FINAL ("parcel history closed") says nothing of how it ended: the
	// newest event does (update).
	"FINAL": carriers.StatusUnknown,
}

// parcelStatus maps a parcel's status; an unknown one is StatusUnknown.
func parcelStatus(s string) string {
	if st, ok := parcelStatuses[strings.ToUpper(strings.TrimSpace(s))]; ok {
		return st
	}
	return carriers.StatusUnknown
}

// eventStatus maps an event's code by its kind: INTIAL (GLS's spelling)
// is the parcel's data or its handing over, DELIVD its delivery (to a
// parcel shop: for the consignee to collect); anything else is on its way.
func eventStatus(code string) string {
	kind, detail, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(code)), ".")
	switch kind {
	case "INTIAL", "INITIAL":
		if detail == "PREADVICE" || detail == "E48_DATA" {
			return carriers.StatusPreTransit
		}
		return carriers.StatusInTransit
	case "DELIVD":
		if detail == "PARCELSHOP" {
			return carriers.StatusAvailableForPickup
		}
		return carriers.StatusDelivered
	}
	return carriers.StatusInTransit
}
