package ups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// UPS's NoCandidatesIndicator is verifier.CodeAddressNotFound (not
// deliverable); its AmbiguousAddressIndicator is verifier.CodeAddressAmbiguous
// (a warning: the first candidate is returned).
const (
	CodeAddressNotFound  = verifier.CodeAddressNotFound
	CodeAddressAmbiguous = verifier.CodeAddressAmbiguous
)

// xavRequestOption is the Address Validation requestoption "3 - Address
// Validation and Address Classification": the classification tells a
// residential address from a commercial one.
const xavRequestOption = "3"

// Verify checks a US address against UPS Street Level Address Validation
// (POST /addressvalidation/{version}/{requestoption}), which covers the US
// and Puerto Rico only. Other countries are not sent to UPS.
func (c *Carrier) Verify(ctx context.Context, a verifier.Address) (verifier.Result, error) {
	if err := ctx.Err(); err != nil {
		return verifier.Result{}, err
	}
	if country := carriers.NormalizeCountry(a.Country); country != "US" {
		out := a
		out.Country = country
		out.Residential = cloneBool(a.Residential)
		return verifier.Result{
			Status: verifier.StatusWarning, Deliverable: true, Address: out,
			Messages: []verifier.Message{{
				Code: verifier.CodeNotVerifiedInternational, Field: "country",
				Message: fmt.Sprintf("UPS address validation covers US addresses only; the %s address was not checked", country),
			}},
		}, nil
	}
	ans, err := c.do(ctx, apiRequest{
		op:     opVerify,
		method: http.MethodPost,
		path:   "/api/addressvalidation/" + validationVersion + "/" + xavRequestOption,
		body:   xavRequest(a),
	})
	if err != nil {
		return verifier.Result{}, verifyError(err)
	}
	if !ans.ok() {
		return verifier.Result{}, verifyError(c.failure(opVerify, ans))
	}
	res, perr := parseXAVResponse(ans.body)
	if perr != nil {
		return verifier.Result{}, verifyError(malformed(opVerify, ans.status, "%v", perr))
	}
	return verdict(a, res), nil
}

// verifyError wraps a carrier error in the verifier sentinel the API layer
// classifies by, keeping the carrier's code and message in the text.
func verifyError(err error) error {
	if errors.Is(err, carriers.ErrUnavailable) {
		return fmt.Errorf("%w: %w", verifier.ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", verifier.ErrFailed, err)
}

// Address Validation request (AddressValidation.yaml XAVRequestWrapper).
type xavEnvelope struct {
	XAVRequest struct {
		AddressKeyFormat xavAddress `json:"AddressKeyFormat"`
	} `json:"XAVRequest"`
}

type xavAddress struct {
	ConsigneeName       string            `json:"ConsigneeName,omitempty"`
	AttentionName       string            `json:"AttentionName,omitempty"`
	AddressLine         oneOrMany[string] `json:"AddressLine,omitempty"`
	PoliticalDivision2  string            `json:"PoliticalDivision2,omitempty"` // city
	PoliticalDivision1  string            `json:"PoliticalDivision1,omitempty"` // state
	PostcodePrimaryLow  string            `json:"PostcodePrimaryLow,omitempty"`
	PostcodeExtendedLow string            `json:"PostcodeExtendedLow,omitempty"`
	CountryCode         string            `json:"CountryCode"`
}

func xavRequest(a verifier.Address) xavEnvelope {
	var env xavEnvelope
	k := &env.XAVRequest.AddressKeyFormat
	k.ConsigneeName = strings.TrimSpace(a.Company)
	if k.ConsigneeName == "" {
		k.ConsigneeName = strings.TrimSpace(a.Name)
	} else {
		k.AttentionName = strings.TrimSpace(a.Name)
	}
	for _, l := range []string{a.Street1, a.Street2} {
		if l = strings.TrimSpace(l); l != "" {
			k.AddressLine = append(k.AddressLine, l)
		}
	}
	k.PoliticalDivision2 = strings.TrimSpace(a.City)
	k.PoliticalDivision1 = strings.ToUpper(strings.TrimSpace(a.State))
	zip5, plus4 := splitZIP(a.Zip)
	k.PostcodePrimaryLow, k.PostcodeExtendedLow = zip5, plus4
	k.CountryCode = "US"
	return env
}

// splitZIP splits 12345-6789, 123456789 or 12345; anything else goes whole
// as the primary code for UPS to judge.
func splitZIP(z string) (zip5, plus4 string) {
	z = strings.TrimSpace(z)
	switch {
	case len(z) == 10 && z[5] == '-' && isDigits(z[:5]) && isDigits(z[6:]):
		return z[:5], z[6:]
	case len(z) == 9 && isDigits(z):
		return z[:5], z[5:]
	}
	return z, ""
}

// Address Validation response (AddressValidation.yaml XAVResponseWrapper).
type xavAnswer struct {
	XAVResponse *struct {
		Response                  responseStatus          `json:"Response"`
		ValidAddressIndicator     json.RawMessage         `json:"ValidAddressIndicator"`
		AmbiguousAddressIndicator json.RawMessage         `json:"AmbiguousAddressIndicator"`
		NoCandidatesIndicator     json.RawMessage         `json:"NoCandidatesIndicator"`
		Candidate                 oneOrMany[xavCandidate] `json:"Candidate"`
	} `json:"XAVResponse"`
}

type xavCandidate struct {
	AddressClassification *codeDesc  `json:"AddressClassification"`
	AddressKeyFormat      xavAddress `json:"AddressKeyFormat"`
}

// xavResult is what UPS concluded.
type xavResult struct {
	match     string // "valid", "ambiguous" or "none"
	candidate *xavCandidate
}

func parseXAVResponse(body []byte) (xavResult, error) {
	var a xavAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return xavResult{}, fmt.Errorf("address validation answer is not the documented JSON: %w", err)
	}
	x := a.XAVResponse
	if x == nil {
		return xavResult{}, fmt.Errorf("address validation answer has no XAVResponse")
	}
	var first *xavCandidate
	if len(x.Candidate) > 0 {
		first = &x.Candidate[0]
	}
	switch {
	case present(x.NoCandidatesIndicator):
		return xavResult{match: "none"}, nil
	case present(x.ValidAddressIndicator):
		if first == nil {
			return xavResult{}, fmt.Errorf("ValidAddressIndicator without a Candidate")
		}
		return xavResult{match: "valid", candidate: first}, nil
	case present(x.AmbiguousAddressIndicator):
		if first == nil {
			return xavResult{match: "none"}, nil
		}
		return xavResult{match: "ambiguous", candidate: first}, nil
	}
	return xavResult{}, fmt.Errorf("address validation answer has none of ValidAddressIndicator, AmbiguousAddressIndicator, NoCandidatesIndicator")
}

// verdict turns UPS's conclusion into a verifier result: the candidate's
// standardised address, with one message per field UPS changed.
func verdict(in verifier.Address, r xavResult) verifier.Result {
	if r.match == "none" {
		out := in
		out.Residential = cloneBool(in.Residential)
		return verifier.Result{
			Status: verifier.StatusError, Deliverable: false, Address: out,
			Messages: []verifier.Message{{Code: CodeAddressNotFound, Field: "street1",
				Message: "UPS found no address matching this one"}},
		}
	}
	k := r.candidate.AddressKeyFormat
	out := verifier.Address{
		Name: strings.TrimSpace(in.Name), Company: strings.TrimSpace(in.Company),
		Phone: strings.TrimSpace(in.Phone), Email: strings.TrimSpace(in.Email),
		City:    strings.TrimSpace(k.PoliticalDivision2),
		State:   strings.TrimSpace(k.PoliticalDivision1),
		Country: strings.ToUpper(strings.TrimSpace(firstNonEmpty(k.CountryCode, "US"))),
	}
	if len(k.AddressLine) > 0 {
		out.Street1 = strings.TrimSpace(k.AddressLine[0])
	}
	if len(k.AddressLine) > 1 {
		out.Street2 = strings.TrimSpace(strings.Join(k.AddressLine[1:], " "))
	}
	out.Zip = strings.TrimSpace(k.PostcodePrimaryLow)
	if ext := strings.TrimSpace(k.PostcodeExtendedLow); ext != "" && out.Zip != "" {
		out.Zip += "-" + ext
	}
	out.Residential = cloneBool(in.Residential)
	if cl := r.candidate.AddressClassification; cl != nil {
		switch cl.Code {
		case "1":
			out.Residential = boolPtr(false)
		case "2":
			out.Residential = boolPtr(true)
		}
	}
	// Whatever UPS could not standardise is echoed as given.
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&out.Street1, in.Street1}, {&out.City, in.City}, {&out.State, in.State}, {&out.Zip, in.Zip},
	} {
		if *f.dst == "" {
			*f.dst = strings.TrimSpace(f.src)
		}
	}

	res := verifier.Result{Status: verifier.StatusVerified, Deliverable: true, Address: out, Messages: []verifier.Message{}}
	changed := func(code, field, from, to string) {
		if to != "" && from != to {
			res.Messages = append(res.Messages, verifier.Message{Code: code, Field: field,
				Message: fmt.Sprintf("%s standardized: %q -> %q", field, from, to)})
		}
	}
	changed(verifier.CodeStreetStandardized, "street1", in.Street1, out.Street1)
	changed(verifier.CodeStreetStandardized, "street2", in.Street2, out.Street2)
	changed(verifier.CodeCityStandardized, "city", in.City, out.City)
	changed(verifier.CodeStateStandardized, "state", in.State, out.State)
	inZip5, inPlus4 := splitZIP(in.Zip)
	outZip5, outPlus4 := splitZIP(out.Zip)
	switch {
	case inZip5 != outZip5 || (inPlus4 != "" && inPlus4 != outPlus4):
		changed(verifier.CodeZipStandardized, "zip", in.Zip, out.Zip)
	case inPlus4 == "" && outPlus4 != "":
		res.Messages = append(res.Messages, verifier.Message{Code: verifier.CodeZip4Added, Field: "zip",
			Message: fmt.Sprintf("ZIP+4 added: %s", out.Zip)})
	case in.Zip != out.Zip:
		changed(verifier.CodeZipStandardized, "zip", in.Zip, out.Zip)
	}
	changed(verifier.CodeCountryStandardized, "country", in.Country, out.Country)
	if r.match == "ambiguous" {
		res.Status = verifier.StatusWarning
		res.Messages = append(res.Messages, verifier.Message{Code: CodeAddressAmbiguous, Field: "street1",
			Message: "UPS found more than one matching address; the first is shown, check it"})
	}
	return res
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}

func boolPtr(b bool) *bool { return &b }
