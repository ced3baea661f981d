package verifier

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Sandbox trigger values. Putting one of them in street1 (any case,
// surrounding spaces ignored) makes the sandbox fail the way a real verifier
// can, so integrations can test their error handling in test mode.
const (
	// TriggerVerifierDown makes Verify return an error wrapping
	// ErrUnavailable (API: 503 verifier_unavailable).
	TriggerVerifierDown = "Verifier Down"
	// TriggerVerifierError makes Verify return an error wrapping ErrFailed
	// (API: 502 verifier_error).
	TriggerVerifierError = "Verifier Error"
)

// Trigger documents one sandbox trigger.
type Trigger struct {
	// Field is the JSON address field the value goes in.
	Field string
	// Value is matched case-insensitively after trimming.
	Value string
	// Effect is the API error code the trigger produces.
	Effect string
}

// Triggers lists the sandbox triggers, for documentation and for tests of
// the layers above.
func Triggers() []Trigger {
	return []Trigger{
		{Field: "street1", Value: TriggerVerifierDown, Effect: "verifier_unavailable"},
		{Field: "street1", Value: TriggerVerifierError, Effect: "verifier_error"},
	}
}

// Sandbox is the verifier behind test mode. It applies USPS Publication 28
// formatting and real state and ZIP-prefix tables, so integrations see
// realistic standardisation and realistic failures, and it answers the same
// way every time for the same input. It knows no delivery points: an address
// that is well-formed and consistent is taken to exist.
//
// The zero value is ready to use and safe for concurrent use.
type Sandbox struct{}

var _ Verifier = (*Sandbox)(nil)

// NewSandbox returns the deterministic test-mode verifier.
func NewSandbox() *Sandbox { return &Sandbox{} }

// Verify standardises a. Problems with the address are reported in the
// Result; the error is non-nil only for a trigger or a done context.
func (*Sandbox) Verify(ctx context.Context, a Address) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	trigger := strings.Join(strings.Fields(a.Street1), " ")
	switch {
	case strings.EqualFold(trigger, TriggerVerifierDown):
		return Result{}, fmt.Errorf("%w (sandbox trigger %q)", ErrUnavailable, TriggerVerifierDown)
	case strings.EqualFold(trigger, TriggerVerifierError):
		return Result{}, fmt.Errorf("%w (sandbox trigger %q)", ErrFailed, TriggerVerifierError)
	}

	country := strings.ToUpper(strings.TrimSpace(a.Country))
	switch {
	case !isCountryCode(country):
		// Without a country we cannot tell which rules apply, so nothing
		// is standardised.
		var f findings
		f.add(sevError, CodeInvalidCountry, "country",
			fmt.Sprintf("%q is not a two-letter ISO 3166-1 country code", a.Country))
		a.Residential = cloneBool(a.Residential)
		return f.result(a), nil
	case country == "US":
		return verifyUS(a), nil
	default:
		return verifyInternational(a, country), nil
	}
}

func verifyUS(a Address) Result {
	var f findings
	out := Address{
		// Pub 28 recommends upper case for every line of the label,
		// including name and company.
		Name:        strings.ToUpper(collapseSpace(a.Name)),
		Company:     strings.ToUpper(collapseSpace(a.Company)),
		Phone:       strings.TrimSpace(a.Phone),
		Email:       strings.TrimSpace(a.Email),
		Country:     "US",
		Residential: cloneBool(a.Residential),
	}
	state := cleanUS(a.State)
	code, fromName := usStateCode(state)

	s1 := parseStreet1(a.Street1, militaryStates[code])
	out.Street1 = s1.full
	f.changed(CodeStreetStandardized, "street1", a.Street1, s1.full)
	switch s1.problem {
	case CodeMissingStreet:
		f.add(sevError, CodeMissingStreet, "street1", "street1 has no street name")
	case CodeMissingStreetNumber:
		f.add(sevError, CodeMissingStreetNumber, "street1",
			"street1 does not start with a house number or PO box number")
	}
	out.Street2 = standardizeStreet2(a.Street2)
	f.changed(CodeStreetStandardized, "street2", a.Street2, out.Street2)
	// Carriers print street2 on its own line and USPS matching treats the
	// secondary unit separately, so a unit typed at the end of street1 is
	// moved there, but never over something the customer wrote in street2.
	if s1.unit != "" && out.Street2 == "" {
		out.Street1, out.Street2 = s1.line, s1.unit
		f.add(sevWarning, CodeUnitMoved, "street2",
			fmt.Sprintf("unit %q moved from street1 to street2", s1.unit))
	}

	out.City = cleanUS(a.City)
	f.changed(CodeCityStandardized, "city", a.City, out.City)
	if out.City == "" {
		f.add(sevError, CodeMissingCity, "city", "city is required")
	}

	out.State = state
	switch {
	case state == "":
		f.add(sevError, CodeInvalidState, "state", "state is required for a US address")
	case code == "":
		f.add(sevError, CodeInvalidState, "state",
			fmt.Sprintf("%q is not a US state, territory or military state", a.State))
	case fromName:
		// Unlike re-casing a code, reading a name is an interpretation
		// (was "Washington" the state or a city typed in the wrong field?),
		// so it is a warning a person should see.
		out.State = code
		f.add(sevWarning, CodeStateStandardized, "state",
			fmt.Sprintf("state name %q converted to %q", a.State, code))
	default:
		f.changed(CodeStateStandardized, "state", a.State, code)
	}

	zip5, plus4, ok := parseZIP(a.Zip)
	out.Zip = strings.TrimSpace(a.Zip)
	switch {
	case !ok && out.Zip == "":
		f.add(sevError, CodeInvalidZip, "zip", "zip is required for a US address")
	case !ok:
		f.add(sevError, CodeInvalidZip, "zip",
			fmt.Sprintf("%q is not a ZIP code; use 12345 or 12345-6789", a.Zip))
	default:
		out.Zip = zip5
		if plus4 != "" {
			out.Zip += "-" + plus4
		}
		f.changed(CodeZipStandardized, "zip", a.Zip, out.Zip)
		prefix, _ := strconv.Atoi(zip5[:3])
		switch {
		case !prefixAssigned(prefix):
			f.add(sevError, CodeInvalidZip, "zip",
				fmt.Sprintf("ZIP code %s is not in an assigned USPS range", zip5))
		case code != "" && !zipInState(prefix, code):
			f.add(sevError, CodeZipStateMismatch, "zip",
				fmt.Sprintf("ZIP code %s is not in %s", zip5, code))
		}
	}
	if ok && plus4 == "" && !f.hasError() {
		out.Zip = zip5 + "-" + sandboxPlus4(out.Street1, out.Street2, zip5)
		f.add(sevFormat, CodeZip4Added, "zip", fmt.Sprintf("ZIP+4 added: %s", out.Zip))
	}

	f.changed(CodeCountryStandardized, "country", a.Country, out.Country)
	return f.result(out)
}

// verifyInternational only tidies whitespace: without foreign address data
// the sandbox cannot honestly claim more, and says so in a warning.
func verifyInternational(a Address, country string) Result {
	var f findings
	out := Address{
		Name:        collapseSpace(a.Name),
		Company:     collapseSpace(a.Company),
		Street1:     collapseSpace(a.Street1),
		Street2:     collapseSpace(a.Street2),
		City:        collapseSpace(a.City),
		State:       collapseSpace(a.State),
		Zip:         collapseSpace(a.Zip),
		Country:     country,
		Phone:       strings.TrimSpace(a.Phone),
		Email:       strings.TrimSpace(a.Email),
		Residential: cloneBool(a.Residential),
	}
	f.changed(CodeStreetStandardized, "street1", a.Street1, out.Street1)
	if out.Street1 == "" {
		f.add(sevError, CodeMissingStreet, "street1", "street1 is required")
	}
	f.changed(CodeStreetStandardized, "street2", a.Street2, out.Street2)
	f.changed(CodeCityStandardized, "city", a.City, out.City)
	f.changed(CodeStateStandardized, "state", a.State, out.State)
	f.changed(CodeZipStandardized, "zip", a.Zip, out.Zip)
	f.changed(CodeCountryStandardized, "country", a.Country, out.Country)
	f.add(sevWarning, CodeNotVerifiedInternational, "country",
		fmt.Sprintf("the sandbox cannot confirm deliverability in %s; the address was only tidied", country))
	return f.result(out)
}

// sandboxPlus4 fabricates a ZIP+4 add-on. The sandbox has no ZIP+4 file, so
// this is a sandbox fabrication, not a real add-on: it is a hash of the
// standardised street lines and ZIP so that the same address always gets
// the same +4 (stable fixtures, idempotent re-verification) and a unit
// typed in street1 or street2 gets the same one. It never yields 0000, which
// USPS does not assign to delivery points.
func sandboxPlus4(street1, street2, zip5 string) string {
	h := fnv.New32a()
	h.Write([]byte(street1 + "\n" + street2 + "\n" + zip5))
	return fmt.Sprintf("%04d", h.Sum32()%9999+1)
}

// parseZIP accepts 12345, 12345-6789 and 123456789.
func parseZIP(raw string) (zip5, plus4 string, ok bool) {
	s := strings.TrimSpace(raw)
	switch {
	case len(s) == 5 && isDigits(s):
		return s, "", true
	case len(s) == 9 && isDigits(s):
		return s[:5], s[5:], true
	case len(s) == 10 && s[5] == '-' && isDigits(s[:5]) && isDigits(s[6:]):
		return s[:5], s[6:], true
	}
	return "", "", false
}

// usStateCode resolves a cleaned state field to its code; fromName reports
// that a full name was converted.
func usStateCode(state string) (code string, fromName bool) {
	if carriers.IsUSState(state) {
		return state, false
	}
	if code, ok := stateNames[state]; ok {
		return code, true
	}
	return "", false
}

func zipInState(prefix int, state string) bool {
	for _, r := range zipPrefixes[state] {
		if r.lo <= prefix && prefix <= r.hi {
			return true
		}
	}
	return false
}

func prefixAssigned(prefix int) bool {
	for state := range zipPrefixes {
		if zipInState(prefix, state) {
			return true
		}
	}
	return false
}

func isCountryCode(s string) bool {
	return len(s) == 2 && 'A' <= s[0] && s[0] <= 'Z' && 'A' <= s[1] && s[1] <= 'Z'
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// cloneBool keeps the Result from aliasing the caller's Residential flag.
func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

type severity int

const (
	sevFormat severity = iota
	sevWarning
	sevError
)

// findings collects messages with the severity that decides the status.
// Severity is kept beside the message rather than derived from its code
// because state_standardized is formatting for "ca" but an inference for
// "California".
type findings []finding

type finding struct {
	msg Message
	sev severity
}

func (f *findings) add(sev severity, code, field, text string) {
	*f = append(*f, finding{Message{Code: code, Field: field, Message: text}, sev})
}

// changed records a formatting change from the customer's value to the
// standardised one. An empty result is a missing field, reported on its own.
func (f *findings) changed(code, field, from, to string) {
	if to != "" && from != to {
		f.add(sevFormat, code, field, fmt.Sprintf("%s standardized: %q -> %q", field, from, to))
	}
}

func (f findings) hasError() bool {
	for _, x := range f {
		if x.sev == sevError {
			return true
		}
	}
	return false
}

func (f findings) result(a Address) Result {
	r := Result{Status: StatusVerified, Deliverable: true, Address: a, Messages: make([]Message, 0, len(f))}
	worst := sevFormat
	for _, x := range f {
		r.Messages = append(r.Messages, x.msg)
		worst = max(worst, x.sev)
	}
	switch worst {
	case sevWarning:
		r.Status = StatusWarning
	case sevError:
		r.Status, r.Deliverable = StatusError, false
	}
	return r
}
