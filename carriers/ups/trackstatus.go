package ups

import (
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Tracking status mapping.
//
// A Track API activity's status (Tracking.yaml, schema Status) has three
// codes: type, a one- or two-letter status type; code, a two-letter scan
// code ("MP", "OR", "DP", "OT", "FS"...); and statusCode, a three-digit
// package status code. The package's currentStatus carries the same
// three-digit code in either "statusCode" or "code".
//
// The three-digit code is the precise one (out for delivery is type "I",
// in transit, with statusCode "021"), so it decides; an unknown three-digit
// code falls back to the type; anything else is StatusUnknown, never an error.
//
// Sources: the package status codes of the UPS Track API appendix
// (developer.ups.com/api/reference/tracking/appendix, "Status Codes"), as
// transcribed in public integrations and confirmed against real Track API
// answers (003 label created, 005 in transit, 021 out for delivery, 071
// processing at facility, 072 loaded on delivery vehicle, 011 delivered);
// the status types are those of the UPS Tracking developer guide
// (StatusType: D, I, M, MV, P, X, RS, DO, DD, W, NA, O).

// statusCodeTable maps the three-digit package status codes.
func statusCodeTable() map[string]string {
	return map[string]string{
		"000": carriers.StatusUnknown,            // Status Not Available
		"003": carriers.StatusPreTransit,         // Order Processed: Ready for UPS (label created)
		"005": carriers.StatusInTransit,          // In Transit
		"006": carriers.StatusOutForDelivery,     // On Vehicle for Delivery
		"007": carriers.StatusCancelled,          // Shipment Information Voided
		"010": carriers.StatusInTransit,          // In Transit: On Time
		"011": carriers.StatusDelivered,          // Delivered
		"012": carriers.StatusInTransit,          // Clearance in Progress
		"013": carriers.StatusFailure,            // Exception
		"014": carriers.StatusInTransit,          // Clearance Completed
		"016": carriers.StatusFailure,            // Held in Warehouse
		"017": carriers.StatusAvailableForPickup, // Held for Customer Pickup
		"018": carriers.StatusInTransit,          // Delivery Change Requested: Hold for Pickup
		"019": carriers.StatusInTransit,          // Held for Future Delivery
		"020": carriers.StatusInTransit,          // Held for Future Delivery Requested
		"021": carriers.StatusOutForDelivery,     // On Vehicle for Delivery Today
		"022": carriers.StatusFailure,            // First Attempt Made
		"023": carriers.StatusFailure,            // Second Attempt Made
		"024": carriers.StatusFailure,            // Final Attempt Made
		"025": carriers.StatusInTransit,          // Transferred to Local Post Office for Delivery
		"026": carriers.StatusDelivered,          // Delivered by Local Post Office
		"027": carriers.StatusInTransit,          // Delivery Address Change Requested
		"028": carriers.StatusInTransit,          // Delivery Address Changed
		"029": carriers.StatusFailure,            // Exception: Action Required
		"030": carriers.StatusFailure,            // Local Post Office Exception
		"032": carriers.StatusInTransit,          // Adverse Weather May Cause Delay
		"033": carriers.StatusReturnToSender,     // Return to Sender Requested
		"034": carriers.StatusReturnToSender,     // Returned to Sender
		"035": carriers.StatusReturnToSender,     // Returning to Sender
		"036": carriers.StatusReturnToSender,     // Returning to Sender: In Transit
		"037": carriers.StatusReturnToSender,     // Returning to Sender: On Vehicle for Delivery
		"039": carriers.StatusInTransit,          // In Transit by Post Office
		"040": carriers.StatusAvailableForPickup, // Delivered to UPS Access Point Awaiting Customer Pickup
		"041": carriers.StatusInTransit,          // Service Upgrade Requested
		"042": carriers.StatusInTransit,          // Service Upgraded
		"044": carriers.StatusPreTransit,         // In Transit to UPS (not yet in UPS's hands)
		"045": carriers.StatusPreTransit,         // Order Processed: In Transit to UPS
		"046": carriers.StatusInTransit,          // Delay
		"047": carriers.StatusInTransit,          // Delay
		"048": carriers.StatusInTransit,          // Delay
		"049": carriers.StatusFailure,            // Delay: Action Required
		"050": carriers.StatusFailure,            // Address Information Required
		"051": carriers.StatusInTransit,          // Delay: Emergency Situation or Severe Weather
		"052": carriers.StatusInTransit,          // Delay: Severe Weather
		"053": carriers.StatusInTransit,          // Delay: Severe Weather, Recovery in Progress
		"054": carriers.StatusInTransit,          // Delivery Change Requested
		"055": carriers.StatusInTransit,          // Rescheduled Delivery
		"056": carriers.StatusInTransit,          // Service Upgrade Requested
		"057": carriers.StatusInTransit,          // In Transit to a UPS Access Point
		"058": carriers.StatusFailure,            // Clearance Information Required
		"059": carriers.StatusFailure,            // Damage Reported
		"060": carriers.StatusFailure,            // Delivery Attempted
		"061": carriers.StatusFailure,            // Delivery Attempted: Adult Signature Required
		"062": carriers.StatusFailure,            // Delivery Attempted: Funds Required
		"064": carriers.StatusFailure,            // Delivery Refused
		"065": carriers.StatusPreTransit,         // Pickup Attempted (UPS does not have it yet)
		"066": carriers.StatusFailure,            // Post Office Delivery Attempted
		"067": carriers.StatusReturnToSender,     // Returned to Sender by Post Office
		"068": carriers.StatusFailure,            // Sent to Lost and Found
		"069": carriers.StatusFailure,            // Package Not Claimed
		"071": carriers.StatusInTransit,          // Processing at UPS Facility
		"072": carriers.StatusInTransit,          // Loaded on Delivery Vehicle
		// 038 Picked Up, 043 Voided Pickup and 063 Delivery Change
		// Completed are left to the status type: "Picked Up" is UPS taking
		// the package (type P) or the customer collecting it (type D).
	}
}

// statusTypeTable maps the activity status types.
func statusTypeTable() map[string]string {
	return map[string]string{
		"M":  carriers.StatusPreTransit,     // Billing Information Received (label created)
		"MV": carriers.StatusCancelled,      // Billing Information Voided
		"P":  carriers.StatusInTransit,      // Pickup
		"I":  carriers.StatusInTransit,      // In Transit
		"O":  carriers.StatusOutForDelivery, // Out for Delivery
		"D":  carriers.StatusDelivered,      // Delivered
		"X":  carriers.StatusFailure,        // Exception
		"RS": carriers.StatusReturnToSender, // Returned to Shipper
		"DO": carriers.StatusInTransit,      // Delivered Origin CFS (freight only)
		"DD": carriers.StatusInTransit,      // Delivered Destination CFS (freight only)
		"W":  carriers.StatusInTransit,      // Warehousing (freight only)
		"NA": carriers.StatusUnknown,        // Not Available
	}
}

// trackingStatus maps one UPS status to the tracker vocabulary, and returns
// the UPS code it was decided by (kept in TrackingEvent.CarrierCode).
func trackingStatus(st upsStatus) (status, carrierCode string) {
	codes := statusCodeTable()
	for _, c := range []string{st.StatusCode, st.Code} {
		c = strings.TrimSpace(c)
		if s, ok := codes[c]; ok {
			return s, c
		}
	}
	typ := strings.ToUpper(strings.TrimSpace(st.Type))
	if s, ok := statusTypeTable()[typ]; ok {
		return s, firstNonEmpty(strings.TrimSpace(st.StatusCode), typ)
	}
	return carriers.StatusUnknown, firstNonEmpty(strings.TrimSpace(st.StatusCode), strings.TrimSpace(st.Code), typ)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
