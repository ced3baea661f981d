package dhlexpress

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/verifier"
)

// addressValidatePath is GET /address-validate (exp-api-address-validate):
// whether DHL Express picks up or delivers at a postal code and city.
const addressValidatePath = "/address-validate"

var _ verifier.Verifier = (*Carrier)(nil)

// Verify asks DHL Express whether it delivers to the address's postal code
// and city, in any country. DHL's answer is the service areas that match:
// one of the postal code and city given is a warning that the street was
// not checked (DHL has no street data), with the city and postal code
// written as DHL writes them; none is an address DHL Express cannot
// deliver to. Live, USPS and UPS are asked first (verifier.Chain): they
// verify US addresses to the street; DHL Express answers the rest.
func (c *Carrier) Verify(ctx context.Context, a verifier.Address) (verifier.Result, error) {
	country := strings.ToUpper(strings.TrimSpace(a.Country))
	out := a
	out.Country = country
	if len(country) != 2 || strings.Trim(country, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return verifier.Result{Status: verifier.StatusError, Address: out, Messages: []verifier.Message{{
			Code: verifier.CodeInvalidCountry, Field: "country", Message: fmt.Sprintf("%q is not a two-letter ISO 3166-1 country code", a.Country)}}}, nil
	}
	var problems []verifier.Message
	if strings.TrimSpace(a.Street1) == "" {
		problems = append(problems, verifier.Message{Code: verifier.CodeMissingStreet, Field: "street1", Message: "street1 is required"})
	}
	if strings.TrimSpace(a.City) == "" {
		problems = append(problems, verifier.Message{Code: verifier.CodeMissingCity, Field: "city", Message: "city is required"})
	}
	if len(problems) > 0 {
		return verifier.Result{Status: verifier.StatusError, Address: out, Messages: problems}, nil
	}
	q := url.Values{"type": {"delivery"}, "countryCode": {country}, "cityName": {truncate(a.City, maxLine)},
		"strictValidation": {"false"}}
	if zip := strings.TrimSpace(a.Zip); zip != "" {
		q.Set("postalCode", truncate(zip, maxPostal))
	}
	body, err := c.do(ctx, request{op: opVerify, method: http.MethodGet, path: addressValidatePath, query: q})
	if notFound(err) {
		return notServed(out), nil
	}
	if err != nil {
		return verifier.Result{}, verifyError(c.scrub(err))
	}
	areas, err := parseAddressValidate(body)
	if err != nil {
		return verifier.Result{}, verifyError(err)
	}
	return verdict(out, areas), nil
}

// verifyError wraps a carrier error in the verifier sentinel the API layer
// classifies by, keeping DHL's code and message in the text.
func verifyError(err error) error {
	if errors.Is(err, carriers.ErrUnavailable) {
		return fmt.Errorf("%w: %w", verifier.ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", verifier.ErrFailed, err)
}

// serviceArea is one address of an /address-validate answer.
type serviceArea struct {
	CountryCode string `json:"countryCode"`
	PostalCode  string `json:"postalCode"`
	CityName    string `json:"cityName"`
}

func parseAddressValidate(body []byte) ([]serviceArea, error) {
	var r struct {
		Address *[]serviceArea `json:"address"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, malformed(opVerify, "the address validation answer does not parse: %v", err)
	}
	if r.Address == nil {
		// No service area matched: DHL answers its warnings only.
		return nil, nil
	}
	return *r.Address, nil
}

// verdict picks the service area of the address: the one of its postal
// code and city, else of its postal code (DHL's city is the right one),
// else of its city when it has no postal code.
func verdict(a verifier.Address, areas []serviceArea) verifier.Result {
	zip, city := compact(a.Zip), strings.TrimSpace(a.City)
	var exact, byZip *serviceArea
	for i := range areas {
		ar := &areas[i]
		if cc := strings.TrimSpace(ar.CountryCode); cc != "" && !strings.EqualFold(cc, a.Country) {
			continue
		}
		zipMatch := zip != "" && compact(ar.PostalCode) == zip
		cityMatch := strings.EqualFold(strings.TrimSpace(ar.CityName), city)
		switch {
		case (zipMatch || zip == "") && cityMatch && exact == nil:
			exact = ar
		case zipMatch && byZip == nil:
			byZip = ar
		}
	}
	best := exact
	if best == nil {
		best = byZip
	}
	if best == nil {
		return notServed(a)
	}
	res := verifier.Result{Status: verifier.StatusWarning, Deliverable: true, Address: a}
	if c := strings.TrimSpace(best.CityName); c != "" && c != strings.TrimSpace(a.City) {
		res.Address.City = c
		res.Messages = append(res.Messages, verifier.Message{Code: verifier.CodeCityStandardized, Field: "city",
			Message: fmt.Sprintf("city written as DHL Express writes it: %s", carriers.Excerpt(c))})
	}
	if z := strings.TrimSpace(best.PostalCode); z != "" && z != strings.TrimSpace(a.Zip) {
		res.Address.Zip = z
		res.Messages = append(res.Messages, verifier.Message{Code: verifier.CodeZipStandardized, Field: "zip",
			Message: fmt.Sprintf("postal code written as DHL Express writes it: %s", carriers.Excerpt(z))})
	}
	res.Messages = append(res.Messages, verifier.Message{Code: verifier.CodeStreetNotVerified, Field: "street1",
		Message: "DHL Express delivers to this postal code and city; it has no data on the street and number, which were not checked"})
	return res
}

// notServed is an address whose postal code and city DHL Express does not
// know as a delivery area.
func notServed(a verifier.Address) verifier.Result {
	return verifier.Result{Status: verifier.StatusError, Address: a, Messages: []verifier.Message{{
		Code: verifier.CodeAddressNotFound, Field: "zip",
		Message: "DHL Express knows no delivery area of this postal code and city"}}}
}

// compact is a postal code without spaces, upper case, for comparing.
func compact(zip string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(zip), " ", ""))
}

// credentialsCheckQuery is the address CheckCredentials asks about:
// DHL's own head office (Bonn), which is always a service area.
func credentialsCheckQuery() url.Values {
	return url.Values{"type": {"pickup"}, "countryCode": {"DE"}, "postalCode": {"53113"}, "cityName": {"Bonn"}}
}

// CheckCredentials proves the username and password: MyDHL has no token,
// so the cheapest authenticated call is asked (an address validation).
// DHL's 401 is a refusal of the credentials (ErrFailed with the status);
// any answer of DHL's otherwise, even one about the address, proves them.
// The account number is proved at the first quote, which DHL refuses for
// an account the credentials may not use ("The account number is not
// found or invalid").
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.do(ctx, request{op: opToken, method: http.MethodGet, path: addressValidatePath, query: credentialsCheckQuery()})
	if err != nil && errors.Is(err, carriers.ErrRejected) {
		return nil
	}
	return c.scrub(err)
}
