package sandbox

import "strings"

// Trigger values a user types into a test-mode shipment to force an outcome.
// They are plain words rather than magic codes so they are easy to remember
// and to spot in a dashboard.
const (
	TriggerNoRatesZip         = "00000"
	TriggerFailPurchase       = "Fail Purchase"
	TriggerCarrierUnavailable = "Carrier Unavailable"
	TriggerTrackingException  = "Tracking Exception"
	TriggerReturnToSender     = "Return To Sender"
	TriggerCarrierError       = "Carrier Error"
	TriggerCarriersDown       = "Carriers Down"
	// TriggerCarriersUnreachable: the quote fails as on a server whose
	// network reaches no carrier (no DNS, no egress): not a passing state.
	TriggerCarriersUnreachable = "Carriers Unreachable"
	TriggerSlowCarrier         = "Slow Carrier"
	TriggerVoidRejected        = "Void Rejected"
	// A standalone tracker's number (POST /trackers) ending in these digits
	// ends in failure or return_to_sender: digits, so that the number keeps
	// its carrier's form (USPS and FedEx numbers are all digits).
	TriggerNumberException = "999"
	TriggerNumberReturn    = "888"
)

// UnavailableFailures is how many Buy calls per reference fail with
// ErrUnavailable under TriggerCarrierUnavailable before one succeeds. Two is
// enough to prove the caller retries more than once.
const UnavailableFailures = 2

// Trigger documents one sandbox trigger. Field is the API request field path.
type Trigger struct {
	Field, Value, Effect string
}

// Triggers returns the sandbox trigger table, the single source for the
// README and the tests.
func Triggers() []Trigger {
	return []Trigger{
		{
			Field:  "toAddress.zip",
			Value:  TriggerNoRatesZip,
			Effect: "Quoting returns no rates (an empty list, not an error).",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerFailPurchase,
			Effect: "The purchase fails permanently: the carrier rejects it.",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerCarrierUnavailable,
			Effect: "The first 2 purchase attempts fail as carrier temporarily unavailable; the 3rd succeeds.",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerTrackingException,
			Effect: "Tracking ends in a failure (delivery exception) instead of delivered.",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerReturnToSender,
			Effect: "Tracking ends in return_to_sender instead of delivered.",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerCarrierError,
			Effect: "Every carrier fails to quote (the API answers 502 carrier_error).",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerCarriersDown,
			Effect: "Every carrier is temporarily unavailable for quotes (the API answers 503 carrier_unavailable).",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerCarriersUnreachable,
			Effect: "Every carrier's host is unreachable from the server, as without DNS or egress (the API answers 502 carrier_unreachable, without Retry-After).",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerSlowCarrier,
			Effect: "The purchase and the void each take Config.SlowDelay (3 s by default), so paying and void_requested can be observed.",
		},
		{
			Field:  "trackingNumber (POST /trackers), last digits",
			Value:  TriggerNumberException,
			Effect: "The standalone tracker's scans end in failure (delivery exception) instead of delivered.",
		},
		{
			Field:  "trackingNumber (POST /trackers), last digits",
			Value:  TriggerNumberReturn,
			Effect: "The standalone tracker's scans end in return_to_sender instead of delivered.",
		},
		{
			Field:  "toAddress.name",
			Value:  TriggerVoidRejected,
			Effect: "The carrier refuses the label's void, as a live carrier does outside its void window: the label is purchased again and shipment.void_rejected is recorded.",
		},
		{
			Field:  "fromAddress.name (the origin of POST /manifests)",
			Value:  TriggerManifestRejected,
			Effect: "USPS and FedEx refuse the manifest: it fails (manifest.failed) and its labels are free again.",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerPickupRejected,
			Effect: "The carrier refuses the pickup (the API answers 422 carrier_rejected).",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerPickupUnavailable,
			Effect: "The carrier is temporarily unavailable for pickups (503 carrier_unavailable).",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerPickupError,
			Effect: "The carrier fails to answer the pickup (502 carrier_error).",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerCancelRejected,
			Effect: "The pickup is scheduled, but the carrier refuses its cancellation (422 carrier_rejected).",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerCancelUnavailable,
			Effect: "The pickup is scheduled, but its cancellation finds the carrier unavailable (503 carrier_unavailable).",
		},
		{
			Field:  "instructions (POST /pickups)",
			Value:  TriggerCancelError,
			Effect: "The pickup is scheduled, but the carrier fails to answer its cancellation (502 carrier_error).",
		},
	}
}

// matches compares what a user typed with a trigger value. Case and
// whitespace are ignored because users type these by hand and a stray space
// or capital should not silently turn a trigger off.
func matches(typed, trigger string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(typed), " "), trigger)
}

// IsNoRatesZip reports whether zip is the no-rates trigger, which is no ZIP
// code in use: the shipping flow lets it through its address check in test
// mode only, for this trigger. ZIP+4 counts too ("00000-1234"), since that
// is still the trigger ZIP.
func IsNoRatesZip(zip string) bool { return noRatesZip(zip) }

func noRatesZip(zip string) bool {
	base, _, _ := strings.Cut(strings.TrimSpace(zip), "-")
	return matches(base, TriggerNoRatesZip)
}
