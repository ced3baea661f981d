package dhlexpress

import "github.com/shipd-dev/shipd/carriers"

// trackingStatuses maps DHL Express's checkpoint codes (events[].typeCode
// of the tracking answers) onto shipd's tracker vocabulary.
//
// Source: DHL's list of DHL Express checkpoint codes, as karrio vendors it
// (modules/connectors/mydhl/vendors/status_1.csv, its "express" rows:
// codes and DHL's descriptions; the mapping below is shipd's own).
//
// Delays and clearance keep the parcel in transit: it is still moving or
// will. A failed attempt that DHL retries (not home, closed on arrival,
// missed delivery cycle, bad address until corrected) is in transit too;
// a refusal, a destruction or a stop is a failure until a later checkpoint
// says otherwise. Codes not in the table are StatusUnknown, never an
// error.
var trackingStatuses = map[string]string{
	"SA": carriers.StatusPreTransit, // Shipment acceptance

	"PU": carriers.StatusInTransit, // Shipment pick up
	"PL": carriers.StatusInTransit, // Processed at location
	"DF": carriers.StatusInTransit, // Depart facility
	"AF": carriers.StatusInTransit, // Arrived facility
	"AR": carriers.StatusInTransit, // Arrival in delivery facility
	"FD": carriers.StatusInTransit, // Forward destination
	"TR": carriers.StatusInTransit, // Record of transfer
	"SM": carriers.StatusInTransit, // Scheduled for movement
	"SC": carriers.StatusInTransit, // Service changed
	"MS": carriers.StatusInTransit, // Mis-sort
	"MC": carriers.StatusInTransit, // Miscode
	"CR": carriers.StatusInTransit, // Clearance release
	"BR": carriers.StatusInTransit, // Broker release
	"BN": carriers.StatusInTransit, // Customer broker notified
	"IC": carriers.StatusInTransit, // In clearance processing
	"CD": carriers.StatusInTransit, // Controllable clearance delay
	"UD": carriers.StatusInTransit, // Uncontrollable clearance delay
	"OH": carriers.StatusInTransit, // On hold
	"HP": carriers.StatusInTransit, // Held for payment
	"PY": carriers.StatusInTransit, // Payment
	"RR": carriers.StatusInTransit, // Response received
	"AD": carriers.StatusInTransit, // Agreed delivery
	"CM": carriers.StatusInTransit, // Customer moved
	"BA": carriers.StatusInTransit, // Bad address
	"NH": carriers.StatusInTransit, // Not home
	"CA": carriers.StatusInTransit, // Closed on arrival
	"MD": carriers.StatusInTransit, // Missed delivery cycle
	"ND": carriers.StatusInTransit, // Not delivered
	"PD": carriers.StatusInTransit, // Partial delivery: pieces still to come

	"WC": carriers.StatusOutForDelivery, // With delivering courier

	"OK": carriers.StatusDelivered, // Delivery
	"DD": carriers.StatusDelivered, // Delivered damaged

	"CC": carriers.StatusAvailableForPickup, // Awaiting consignee collection

	"RT": carriers.StatusReturnToSender, // Returned to consignor

	"RD": carriers.StatusFailure, // Refused delivery
	"DS": carriers.StatusFailure, // Destroyed / disposal
	"SS": carriers.StatusFailure, // Shipment stopped
	"TP": carriers.StatusFailure, // Forwarded to 3rd party, no delivery details
	"CS": carriers.StatusFailure, // Closed shipment
}

// trackerStatus maps a checkpoint code.
func trackerStatus(code string) string {
	if s, ok := trackingStatuses[code]; ok {
		return s
	}
	return carriers.StatusUnknown
}
