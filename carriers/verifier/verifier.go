// Package verifier verifies and standardises postal addresses for
// POST /addresses/verify and for label purchase.
//
// A Verifier never reports an undeliverable address as a Go error: problems
// with the address itself come back as a Result with Status "error" and
// stable message codes, so the API can answer 201 with the findings. Go
// errors are reserved for the verifier itself failing, and wrap one of the
// sentinel errors below so the API layer can pick the documented error code
// with errors.Is.
package verifier

import (
	"context"
	"errors"
)

// Address is the address being verified. Field names mirror the API's JSON
// fields (street1, street2, city, state, zip, country, ...).
type Address struct {
	Name        string
	Company     string
	Street1     string
	Street2     string
	City        string
	State       string
	Zip         string
	Country     string
	Phone       string
	Email       string
	Residential *bool
}

// Message reports one change made to the address or one problem found in it.
// Code is stable and meant for programs; Message is for people and may be
// reworded at any time.
type Message struct {
	Code string
	// Field is the JSON name of the field concerned: street1, street2,
	// city, state, zip or country.
	Field   string
	Message string
}

// Result is the outcome of verifying one address.
type Result struct {
	// Status is StatusVerified, StatusWarning or StatusError.
	Status      string
	Deliverable bool
	// Address is the standardised address; fields that could not be
	// standardised are echoed as given.
	Address Address
	// Messages holds one entry per change or problem, never nil.
	Messages []Message
}

// Verifier verifies and standardises addresses. Implementations must be safe
// for concurrent use.
type Verifier interface {
	Verify(ctx context.Context, a Address) (Result, error)
}

// Result statuses.
const (
	// StatusVerified: deliverable; any changes were formatting only.
	StatusVerified = "verified"
	// StatusWarning: deliverable, but something was inferred, moved or
	// could not be confirmed, so the caller should show it to a person.
	StatusWarning = "warning"
	// StatusError: not deliverable as given.
	StatusError = "error"
)

// Message codes. They are part of the API contract: never rename one.
const (
	// Formatting changes (status stays verified).
	CodeStreetStandardized  = "street_standardized"
	CodeCityStandardized    = "city_standardized"
	CodeZipStandardized     = "zip_standardized"
	CodeCountryStandardized = "country_standardized"
	CodeZip4Added           = "zip4_added"
	// CodeStateStandardized is a formatting change when only the case or
	// punctuation of a state code changed, and a warning when a state name
	// was converted to its code.
	CodeStateStandardized = "state_standardized"

	// Warnings (deliverable).
	CodeUnitMoved                = "unit_moved"
	CodeNotVerifiedInternational = "not_verified_international"
	// CodeStreetNotVerified: the carrier confirmed that it serves the
	// postal code and city, and has no data on the street and number (DHL
	// Express's address validation).
	CodeStreetNotVerified = "street_not_verified"

	// Problems (not deliverable).
	CodeInvalidCountry      = "invalid_country"
	CodeInvalidState        = "invalid_state"
	CodeInvalidZip          = "invalid_zip"
	CodeZipStateMismatch    = "zip_state_mismatch"
	CodeMissingStreet       = "missing_street"
	CodeMissingStreetNumber = "missing_street_number"
	CodeMissingCity         = "missing_city"
	// CodeAddressNotFound: the carrier's database has no address matching the input.
	CodeAddressNotFound = "address_not_found"

	// CodeAddressAmbiguous (a warning): several addresses could be meant;
	// the most likely is returned.
	CodeAddressAmbiguous = "address_ambiguous"
)

// Sentinel errors. Each maps to one documented API error code.
var (
	// ErrUnavailable: the upstream verifier is unreachable or overloaded;
	// the API answers 503 verifier_unavailable and the client may retry.
	ErrUnavailable = errors.New("verifier: address verifier unavailable")
	// ErrFailed: the verifier answered but failed; the API answers 502
	// verifier_error.
	ErrFailed = errors.New("verifier: address verification failed")
	// ErrNotConfigured: no verifier is configured for the mode (for example
	// live credentials are missing); the API answers 500
	// verifier_not_configured because retrying cannot help.
	ErrNotConfigured = errors.New("verifier: address verifier not configured")
)
