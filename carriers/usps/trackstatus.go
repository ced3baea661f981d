package usps

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// eventStatuses maps USPS scan event codes (TrackingEvent.eventCode) onto
// the tracker vocabulary.
//
// Source: the Tracking 3.0 OpenAPI document (tracking/v3r2) points eventCode
// at USPS Publication 199, Appendix G ("USPS Domestic Tracking Scan Events"
// and "Scan Event Codes - International Mail"); the codes and meanings below
// are that list. A code not listed maps to carriers.StatusUnknown.
var eventStatuses = map[string]string{
	// Electronic information only: the label exists, USPS has no parcel.
	"GX": carriers.StatusPreTransit, // Shipping Label Created, USPS Awaiting Item
	"MA": carriers.StatusPreTransit, // Manifest Acknowledgement (Pre-Shipment Info Sent to USPS)

	"03": carriers.StatusInTransit, // Acceptance (accepted or picked up by carrier)
	"OA": carriers.StatusInTransit, // Accepted at USPS Origin Facility
	"PA": carriers.StatusInTransit, // Passive Acceptance (shipment acceptance)
	"TM": carriers.StatusInTransit, // Truck Manifest (shipment acceptance)
	"10": carriers.StatusInTransit, // Processed (through facility)
	"PC": carriers.StatusInTransit, // Sorting / Processing Complete
	"SF": carriers.StatusInTransit, // Departed Post Office
	"EF": carriers.StatusInTransit, // Departed Sort Facility
	"07": carriers.StatusInTransit, // Arrival at Unit
	"06": carriers.StatusInTransit, // Forwarded
	"08": carriers.StatusInTransit, // Missent (re-routed)
	"15": carriers.StatusInTransit, // Mis-shipped (re-routed)
	"19": carriers.StatusInTransit, // DC eVS Arrive
	"41": carriers.StatusInTransit, // Received at Opening Unit
	"42": carriers.StatusInTransit, // USPS Handoff to Shipping Partner
	"71": carriers.StatusInTransit, // Rescheduled to Next Delivery Day
	"80": carriers.StatusInTransit, // Picked Up by Shipping Partner
	"81": carriers.StatusInTransit, // Arrived Shipping Partner Facility
	"82": carriers.StatusInTransit, // Departed Shipping Partner Facility

	"OF": carriers.StatusOutForDelivery, // Out for Delivery

	"01": carriers.StatusDelivered, // Delivered
	"17": carriers.StatusDelivered, // Picked Up By Agent
	"43": carriers.StatusDelivered, // Picked Up (at the Post Office)

	// The parcel waits at a Post Office or locker for the recipient.
	"02": carriers.StatusAvailableForPickup, // Attempted / Notice Left
	"52": carriers.StatusAvailableForPickup, // Notice Left
	"14": carriers.StatusAvailableForPickup, // Arrival at Pickup Point
	"16": carriers.StatusAvailableForPickup, // Available for Pickup

	// Delivery could not be made; a person may need to act.
	"30": carriers.StatusFailure, // Delivery Attempted - No Access to Delivery Location
	"51": carriers.StatusFailure, // Business Closed
	"53": carriers.StatusFailure, // Receptacle Blocked
	"54": carriers.StatusFailure, // Receptacle Full / Item Oversized
	"55": carriers.StatusFailure, // No Secure Location Available
	"56": carriers.StatusFailure, // No Authorized Recipient Available
	"11": carriers.StatusFailure, // Dead Letter (undeliverable and unreturnable)

	"04": carriers.StatusReturnToSender, // Refused
	"05": carriers.StatusReturnToSender, // Undeliverable as Addressed
	"09": carriers.StatusReturnToSender, // Return to Sender
	"21": carriers.StatusReturnToSender, // No Such Number
	"22": carriers.StatusReturnToSender, // Insufficient Address
	"23": carriers.StatusReturnToSender, // Moved, Left No Address
	"24": carriers.StatusReturnToSender, // Forward Expired
	"25": carriers.StatusReturnToSender, // Addressee Unknown
	"26": carriers.StatusReturnToSender, // Vacant
	"27": carriers.StatusReturnToSender, // Unclaimed
	"28": carriers.StatusReturnToSender, // Deceased
	"29": carriers.StatusReturnToSender, // Other (return to sender)
	"31": carriers.StatusReturnToSender, // Not Picked Up (returned)
	"44": carriers.StatusReturnToSender, // Customer Recall
}

// categoryStatuses maps TrackingDetail.statusCategory, the summary USPS
// shows on its tracking page, for when the newest scan's code is not in
// eventStatuses. Keys are compared upper case without punctuation.
var categoryStatuses = map[string]string{
	"PRE SHIPMENT":         carriers.StatusPreTransit,
	"PRE TRANSIT":          carriers.StatusPreTransit,
	"LABEL CREATED":        carriers.StatusPreTransit,
	"ACCEPTED":             carriers.StatusInTransit,
	"IN TRANSIT":           carriers.StatusInTransit,
	"OUT FOR DELIVERY":     carriers.StatusOutForDelivery,
	"DELIVERED":            carriers.StatusDelivered,
	"AVAILABLE FOR PICKUP": carriers.StatusAvailableForPickup,
	"DELIVERY ATTEMPT":     carriers.StatusFailure,
	"ALERT":                carriers.StatusFailure,
	"RETURN TO SENDER":     carriers.StatusReturnToSender,
}

// eventStatus maps one scan event code.
func eventStatus(code string) string {
	if s, ok := eventStatuses[strings.ToUpper(strings.TrimSpace(code))]; ok {
		return s
	}
	return carriers.StatusUnknown
}

// categoryStatus maps a status category.
func categoryStatus(category string) string {
	key := strings.Join(strings.FieldsFunc(strings.ToUpper(category), func(r rune) bool {
		return !(r >= 'A' && r <= 'Z')
	}), " ")
	if s, ok := categoryStatuses[key]; ok {
		return s
	}
	return carriers.StatusUnknown
}
