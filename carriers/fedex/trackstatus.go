package fedex

import "github.com/shipd-dev/shipd/carriers"

// trackingStatuses maps FedEx tracking status codes (latestStatusDetail.code
// and scanEvents[].eventType of the Track API) onto shipd's tracker
// vocabulary.
//
// Source: FedEx API reference, "Tracking Status Codes"
// (https://developer.fedex.com/api/en-us/guides/api-reference.html), with
// "Status Code and Statuses for Webhook Tracking Events" from the same page
// for OW, HP and AO. Codes FedEx lists twice with two meanings (EA, SP, CA
// and RC are also used for "Export Approved", "Split Status", "Carrier" and
// "Recipient" in the possession/regulatory columns) are mapped by their
// movement meaning, the one tracking statuses carry.
//
// Delays (DD, DY, CD) keep the parcel in transit: it is still moving. Pickup
// activity before FedEx has the parcel (EP, AP, DS, DR, PD) is pre-transit.
// An exception (DE, SE) is a failure until a later scan says otherwise.
// Codes not in the table are StatusUnknown, never an error.
var trackingStatuses = map[string]string{
	// Label created, FedEx does not have the parcel yet.
	"OC": carriers.StatusPreTransit, // Order Created (shipment information sent to FedEx)
	"EP": carriers.StatusPreTransit, // Enroute to Pickup
	"AP": carriers.StatusPreTransit, // At Pickup
	"DS": carriers.StatusPreTransit, // Vehicle Dispatched
	"DR": carriers.StatusPreTransit, // Vehicle furnished but not used
	"PD": carriers.StatusPreTransit, // Pickup Delay
	"RP": carriers.StatusPreTransit, // Return label link emailed to return sender
	"RG": carriers.StatusPreTransit, // Return label link expiring soon

	// Moving through the network.
	"PU": carriers.StatusInTransit, // Picked Up
	"PX": carriers.StatusInTransit, // Picked up (see Details)
	"AA": carriers.StatusInTransit, // At Airport
	"AC": carriers.StatusInTransit, // At Canada Post facility
	"AF": carriers.StatusInTransit, // At local FedEx Facility
	"AO": carriers.StatusInTransit, // Shipment arriving On-time
	"AR": carriers.StatusInTransit, // Arrived at FedEx location
	"AX": carriers.StatusInTransit, // At USPS facility
	"CH": carriers.StatusInTransit, // Location Changed
	"DD": carriers.StatusInTransit, // Delivery Delay
	"DP": carriers.StatusInTransit, // Departed
	"DY": carriers.StatusInTransit, // Delay
	"EA": carriers.StatusInTransit, // Enroute to Airport / Export Approved
	"EO": carriers.StatusInTransit, // Enroute to Origin Airport
	"FD": carriers.StatusInTransit, // At FedEx Destination
	"IT": carriers.StatusInTransit, // In Transit
	"IX": carriers.StatusInTransit, // In transit (see Details)
	"LO": carriers.StatusInTransit, // Left Origin
	"OF": carriers.StatusInTransit, // At FedEx origin facility
	"OW": carriers.StatusInTransit, // On the way
	"OX": carriers.StatusInTransit, // Shipment information sent to USPS
	"PF": carriers.StatusInTransit, // Plane in Flight
	"PL": carriers.StatusInTransit, // Plane Landed
	"PM": carriers.StatusInTransit, // In Progress
	"SF": carriers.StatusInTransit, // At Sort Facility
	"SP": carriers.StatusInTransit, // Split Status
	"TR": carriers.StatusInTransit, // Transfer
	"CC": carriers.StatusInTransit, // Cleared Customs
	"CD": carriers.StatusInTransit, // Clearance Delay
	"CP": carriers.StatusInTransit, // Clearance in Progress
	"RR": carriers.StatusInTransit, // CDO requested (delivery option)
	"RM": carriers.StatusInTransit, // CDO Modified
	"RC": carriers.StatusInTransit, // CDO Cancelled

	// Last mile.
	"OD": carriers.StatusOutForDelivery, // Out for Delivery
	"ED": carriers.StatusOutForDelivery, // Enroute to Delivery
	"AD": carriers.StatusOutForDelivery, // At Delivery

	"DL": carriers.StatusDelivered, // Delivered

	"HL": carriers.StatusAvailableForPickup, // Hold at Location
	"HP": carriers.StatusAvailableForPickup, // Ready for Recipient Pickup

	"RS": carriers.StatusReturnToSender, // Return to Shipper

	"DE": carriers.StatusFailure, // Delivery Exception
	"SE": carriers.StatusFailure, // Shipment Exception

	"CA": carriers.StatusCancelled, // Shipment Cancelled
	"LP": carriers.StatusCancelled, // Return label link cancelled by shipment originator
	"RD": carriers.StatusCancelled, // Return label link expired
}

// trackerStatus maps a FedEx status code, falling back to a second code
// (FedEx's derived code) when the first is not in the table.
func trackerStatus(code, derived string) string {
	if s, ok := trackingStatuses[code]; ok {
		return s
	}
	if s, ok := trackingStatuses[derived]; ok {
		return s
	}
	return carriers.StatusUnknown
}
