package usps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

const addressPath = "/addresses/v3/address"

// usStates are the state codes Addresses 3.0 accepts (its State pattern):
// the states, DC, the territories and freely associated states, and the
// military AA, AE and AP.
var usStates = map[string]bool{
	"AA": true, "AE": true, "AL": true, "AK": true, "AP": true, "AS": true, "AZ": true, "AR": true,
	"CA": true, "CO": true, "CT": true, "DE": true, "DC": true, "FM": true, "FL": true, "GA": true,
	"GU": true, "HI": true, "ID": true, "IL": true, "IN": true, "IA": true, "KS": true, "KY": true,
	"LA": true, "ME": true, "MH": true, "MD": true, "MA": true, "MI": true, "MN": true, "MS": true,
	"MO": true, "MP": true, "MT": true, "NE": true, "NV": true, "NH": true, "NJ": true, "NM": true,
	"NY": true, "NC": true, "ND": true, "OH": true, "OK": true, "OR": true, "PW": true, "PA": true,
	"PR": true, "RI": true, "SC": true, "SD": true, "TN": true, "TX": true, "UT": true, "VT": true,
	"VI": true, "VA": true, "WA": true, "WV": true, "WI": true, "WY": true,
}

// Verify standardises a US address with Addresses 3.0 (GET
// /addresses/v3/address). USPS has no data on foreign addresses, so those
// are only tidied and come back with a not_verified_international warning,
// without a call. Problems with the address are reported in the Result;
// the error is for USPS failing, and wraps verifier.ErrUnavailable or
// verifier.ErrFailed (and the *carriers.Error with USPS's answer).
func (c *Carrier) Verify(ctx context.Context, a verifier.Address) (verifier.Result, error) {
	country := strings.ToUpper(strings.TrimSpace(a.Country))
	var f findings
	switch {
	case len(country) != 2 || !isUpperLetters(country):
		f.add(sevError, verifier.CodeInvalidCountry, "country", fmt.Sprintf("%q is not a two-letter ISO 3166-1 country code", a.Country))
		return f.result(echo(a, strings.TrimSpace(a.Country)), false), nil
	case !domesticCountries[country]:
		f.add(sevWarning, verifier.CodeNotVerifiedInternational, "country",
			fmt.Sprintf("USPS verifies US addresses only; the address in %s was not checked", country))
		return f.result(echo(a, country), true), nil
	}

	state := strings.ToUpper(strings.TrimSpace(a.State))
	if state == "" && country != "US" {
		state = country
	}
	zip, plus4 := splitZIP(a.Zip)
	if strings.TrimSpace(a.Street1) == "" {
		f.add(sevError, verifier.CodeMissingStreet, "street1", "street1 is required")
	}
	if !usStates[state] {
		f.add(sevError, verifier.CodeInvalidState, "state", fmt.Sprintf("%q is not a US state, territory or military state code", a.State))
	}
	zipOK := len(zip) == 5 && isDigits(zip)
	if zip != "" && !zipOK {
		f.add(sevError, verifier.CodeInvalidZip, "zip", fmt.Sprintf("%q is not a ZIP code; use 12345 or 12345-6789", a.Zip))
	}
	if strings.TrimSpace(a.City) == "" && !zipOK {
		f.add(sevError, verifier.CodeMissingCity, "city", "city is required without a ZIP code")
	}
	if f.sev == sevError {
		// USPS would refuse the request; say what is wrong without
		// asking.
		return f.result(echo(a, country), false), nil
	}

	q := url.Values{"streetAddress": {strings.TrimSpace(a.Street1)}, "state": {state}}
	setIf(q, "secondaryAddress", a.Street2)
	setIf(q, "city", a.City)
	setIf(q, "firm", a.Company)
	if zipOK {
		q.Set("ZIPCode", zip)
		setIf(q, "ZIPPlus4", plus4)
	}
	ans, err := c.send(ctx, request{op: opVerify, method: http.MethodGet, path: addressPath, query: q})
	if err != nil {
		return verifier.Result{}, verifierError(err)
	}
	switch {
	case ans.ok():
		res, err := parseAddress(ans.body, a)
		if err != nil {
			return verifier.Result{}, verifierError(err)
		}
		return res, nil
	case ans.status == http.StatusBadRequest || ans.status == http.StatusNotFound:
		return addressProblem(ans.body, a, country), nil
	default:
		return verifier.Result{}, verifierError(statusError(opVerify, ans, c.now()))
	}
}

func setIf(q url.Values, key, value string) {
	if v := strings.TrimSpace(value); v != "" {
		q.Set(key, v)
	}
}

func isUpperLetters(s string) bool {
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// verifierError wraps a carrier failure in the verifier sentinel the API
// maps to 503 verifier_unavailable or 502 verifier_error.
func verifierError(err error) error {
	if errors.Is(err, carriers.ErrUnavailable) {
		return fmt.Errorf("%w: %w", verifier.ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", verifier.ErrFailed, err)
}

// echo is the address as given, tidied, for results USPS did not
// standardise.
func echo(a verifier.Address, country string) verifier.Address {
	out := a
	out.Street1, out.Street2 = collapse(a.Street1), collapse(a.Street2)
	out.City, out.State, out.Zip = collapse(a.City), collapse(a.State), collapse(a.Zip)
	out.Name, out.Company = collapse(a.Name), collapse(a.Company)
	out.Phone, out.Email = strings.TrimSpace(a.Phone), strings.TrimSpace(a.Email)
	out.Country = country
	out.Residential = cloneBool(a.Residential)
	return out
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

// addressProblem reads a 400 or 404: USPS could not match the address. The
// message says which part; the code is the closest of verifier's.
func addressProblem(body []byte, a verifier.Address, country string) verifier.Result {
	_, msg := parseErrorBody(body)
	if msg == "" {
		msg = "USPS found no address matching this one"
	}
	lower := strings.ToLower(msg)
	code, field := verifier.CodeMissingStreetNumber, "street1"
	switch {
	case strings.Contains(lower, "state"):
		code, field = verifier.CodeInvalidState, "state"
	case strings.Contains(lower, "city"):
		code, field = verifier.CodeMissingCity, "city"
	case strings.Contains(lower, "zip"):
		code, field = verifier.CodeInvalidZip, "zip"
	}
	var f findings
	f.add(sevError, code, field, "USPS: "+msg)
	return f.result(echo(a, country), false)
}

type addressAnswer struct {
	Firm    string `json:"firm"`
	Address struct {
		StreetAddress    string `json:"streetAddress"`
		SecondaryAddress string `json:"secondaryAddress"`
		City             string `json:"city"`
		State            string `json:"state"`
		ZIPCode          string `json:"ZIPCode"`
		ZIPPlus4         string `json:"ZIPPlus4"`
	} `json:"address"`
	// Addresses 3.0 names these additionalInfo, corrections and matches;
	// earlier answers (and USPS's README example) prefix them with
	// "address". Both are read.
	AdditionalInfo        *additionalInfo `json:"additionalInfo"`
	AddressAdditionalInfo *additionalInfo `json:"addressAdditionalInfo"`
	Corrections           []codeText      `json:"corrections"`
	AddressCorrections    []codeText      `json:"addressCorrections"`
}

type additionalInfo struct {
	DPVConfirmation string `json:"DPVConfirmation"`
	Business        string `json:"business"`
}

type codeText struct {
	Code flexString `json:"code"`
	Text string     `json:"text"`
}

// parseAddress turns a standardised address into a Result: formatting
// changes are messages, the DPV confirmation decides the status.
//
//   - Y: primary and secondary numbers confirmed: verified.
//   - D: the building is confirmed but its apartment or suite number is
//     missing (correction 32 says the same): warning.
//   - S: the secondary number given was not confirmed: warning.
//   - N: not a delivery point: error, not deliverable.
//
// Correction 22 (several addresses match, none by default) is an error.
func parseAddress(body []byte, in verifier.Address) (verifier.Result, error) {
	var ans addressAnswer
	if err := decodeJSON(body, &ans); err != nil {
		return verifier.Result{}, failed(opVerify, http.StatusOK, "the address answer does not parse: %v", err)
	}
	std := ans.Address
	if std.StreetAddress == "" || std.City == "" || std.State == "" || std.ZIPCode == "" {
		return verifier.Result{}, failed(opVerify, http.StatusOK, "the address answer lacks the street, city, state or ZIP Code")
	}
	info := ans.AdditionalInfo
	if info == nil {
		info = ans.AddressAdditionalInfo
	}
	corrections := append(ans.Corrections, ans.AddressCorrections...)

	out := verifier.Address{
		Name: collapse(in.Name), Company: collapse(orDefault(ans.Firm, in.Company)),
		Street1: std.StreetAddress, Street2: std.SecondaryAddress,
		City: std.City, State: std.State, Zip: std.ZIPCode,
		Country: "US", Phone: strings.TrimSpace(in.Phone), Email: strings.TrimSpace(in.Email),
		Residential: cloneBool(in.Residential),
	}
	if c := strings.ToUpper(strings.TrimSpace(in.Country)); c != "US" && domesticCountries[c] {
		out.Country = c
	}
	if std.ZIPPlus4 != "" {
		out.Zip += "-" + std.ZIPPlus4
	}
	if out.Residential == nil && info != nil && (info.Business == "Y" || info.Business == "N") {
		residential := info.Business == "N"
		out.Residential = &residential
	}

	var f findings
	f.changed(verifier.CodeStreetStandardized, "street1", in.Street1, out.Street1)
	f.changed(verifier.CodeStreetStandardized, "street2", in.Street2, out.Street2)
	if strings.TrimSpace(in.Street2) != "" && out.Street2 == "" {
		// USPS moves a directional or unit it reads as part of the
		// primary line ("3120 M St" + "NW").
		f.add(sevFormat, verifier.CodeStreetStandardized, "street2",
			fmt.Sprintf("street2 %q merged into street1 %q", in.Street2, out.Street1))
	}
	f.changed(verifier.CodeCityStandardized, "city", in.City, out.City)
	f.changed(verifier.CodeStateStandardized, "state", in.State, out.State)
	inZip, inPlus4 := splitZIP(in.Zip)
	f.changed(verifier.CodeZipStandardized, "zip", inZip, std.ZIPCode)
	if std.ZIPPlus4 != "" && std.ZIPPlus4 != inPlus4 {
		f.add(sevFormat, verifier.CodeZip4Added, "zip", "ZIP+4 added: "+out.Zip)
	}
	f.changed(verifier.CodeCountryStandardized, "country", in.Country, out.Country)

	dpv := ""
	if info != nil {
		dpv = strings.ToUpper(strings.TrimSpace(info.DPVConfirmation))
	}
	secondaryMissing := dpv == "D"
	for _, c := range corrections {
		switch string(c.Code) {
		case "32":
			secondaryMissing = true
		case "22":
			f.add(sevError, verifier.CodeMissingStreetNumber, "street1",
				"USPS: "+orDefault(c.Text, "several addresses match and none is the default; add more information"))
		}
	}
	switch {
	case dpv == "N":
		f.add(sevError, verifier.CodeMissingStreetNumber, "street1", "USPS cannot confirm this address as a delivery point")
	case dpv == "S":
		f.add(sevWarning, verifier.CodeMissingStreetNumber, "street2",
			fmt.Sprintf("USPS confirmed the building but not the apartment or suite %q", out.Street2))
	case secondaryMissing:
		f.add(sevWarning, verifier.CodeMissingStreetNumber, "street2",
			"USPS confirmed the building; an apartment, suite or unit number is needed for delivery")
	}
	return f.result(out, f.sev != sevError), nil
}

type severity int

const (
	sevFormat severity = iota
	sevWarning
	sevError
)

// findings collects messages with the severity that sets the status.
type findings struct {
	msgs []verifier.Message
	sev  severity
}

func (f *findings) add(sev severity, code, field, text string) {
	f.msgs = append(f.msgs, verifier.Message{Code: code, Field: field, Message: text})
	f.sev = max(f.sev, sev)
}

// changed records a formatting change; an empty standardised value is not a
// change but a missing field, reported by other checks.
func (f *findings) changed(code, field, from, to string) {
	if to != "" && from != to {
		f.add(sevFormat, code, field, fmt.Sprintf("%s standardized: %q -> %q", field, from, to))
	}
}

func (f *findings) result(a verifier.Address, deliverable bool) verifier.Result {
	status := verifier.StatusVerified
	switch {
	case len(f.msgs) == 0:
	case f.sev == sevWarning:
		status = verifier.StatusWarning
	case f.sev == sevError:
		status = verifier.StatusError
	}
	msgs := f.msgs
	if msgs == nil {
		msgs = []verifier.Message{}
	}
	return verifier.Result{Status: status, Deliverable: deliverable && f.sev != sevError, Address: a, Messages: msgs}
}
