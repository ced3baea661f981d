package uspsfake

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// suffixes abbreviates the common street suffixes the way Publication 28
// does, enough for standardisation to be visible in tests.
var suffixes = map[string]string{
	"STREET": "ST", "AVENUE": "AVE", "ROAD": "RD", "DRIVE": "DR", "BOULEVARD": "BLVD", "LANE": "LN",
	"COURT": "CT", "PLACE": "PL", "SUITE": "STE", "APARTMENT": "APT", "NORTHWEST": "NW", "NORTHEAST": "NE",
	"SOUTHWEST": "SW", "SOUTHEAST": "SE",
}

func standardize(s string) string {
	words := strings.Fields(strings.ToUpper(strings.NewReplacer(".", "", ",", " ").Replace(s)))
	for i, w := range words {
		if abbr, ok := suffixes[w]; ok {
			words[i] = abbr
		}
	}
	return strings.Join(words, " ")
}

// plus4For is a stable ZIP+4 add-on for a street (never 0000).
func plus4For(street string) string {
	h := fnv.New32a()
	h.Write([]byte(standardize(street)))
	return fmt.Sprintf("%04d", h.Sum32()%9999+1)
}

// address is GET /addresses/v3/address (Addresses 3.0): "Must specify a
// street address, a state, and either a city or a ZIP Code."
func (s *Server) address(w http.ResponseWriter, r *http.Request, _ []byte) {
	const api = "v3"
	q := r.URL.Query()
	street, secondary := q.Get("streetAddress"), q.Get("secondaryAddress")
	city, state, zip, plus4 := q.Get("city"), q.Get("state"), q.Get("ZIPCode"), q.Get("ZIPPlus4")
	docError := func(status int, message string) {
		fakekit.WriteJSON(w, status, map[string]any{"apiVersion": api, "error": map[string]any{"code": fmt.Sprint(status), "message": message, "errors": []any{}}})
	}
	switch {
	case !validState(state):
		docError(http.StatusBadRequest, "The state code in the request is missing or invalid.")
		return
	case city == "" && zip == "":
		docError(http.StatusBadRequest, "The city and state are missing or together unverifiable.")
		return
	case zip != "" && !zip5Pattern.MatchString(zip), plus4 != "" && !zipPlus4Pattern.MatchString(plus4):
		var p problems
		p.add("ZIPCode", "ZIPCode must be 5 digits and ZIPPlus4 4 digits")
		p.write(w, "/addresses/v3")
		return
	case strings.TrimSpace(street) == "":
		docError(http.StatusBadRequest, "The address information in the request is insufficient to match.")
		return
	}
	std := standardize(street)
	number, _, _ := strings.Cut(std, " ")
	switch {
	case number == "" || number[0] < '0' || number[0] > '9':
		docError(http.StatusNotFound, "There is no match for the address requested.")
		return
	case strings.Contains(std, "MULTIPLE"):
		docError(http.StatusNotFound, "More than one address was found matching the requested address.")
		return
	}
	stdSecondary := standardize(secondary)
	dpv := "Y"
	var corrections, matches []any
	switch {
	case strings.TrimLeft(number, "0") == "":
		dpv = "N"
	case strings.Contains(std, "TOWER") && stdSecondary == "":
		dpv = "D"
		corrections = append(corrections, map[string]any{"code": "32", "text": "Default address: The address you entered was found but more information is needed (such as an apartment, suite, or box number) to match to a specific address."})
	case strings.Contains(stdSecondary, "999"):
		dpv = "S"
	default:
		matches = append(matches, map[string]any{"code": "31", "text": "Single Response - exact match"})
	}
	if zip == "" {
		h := fnv.New32a()
		h.Write([]byte(strings.ToUpper(city) + "," + state))
		zip = fmt.Sprintf("%05d", h.Sum32()%89999+10000)
	}
	if city == "" {
		city = "ZIPVILLE"
	}
	business := "N"
	if q.Get("firm") != "" {
		business = "Y"
	}
	var zipPlus4 any = plus4For(std)
	if dpv == "N" {
		zipPlus4 = nil
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{
		"firm": strings.ToUpper(q.Get("firm")),
		"address": map[string]any{
			"streetAddress": std, "streetAddressAbbreviation": nil, "secondaryAddress": stdSecondary,
			"city": standardize(city), "cityAbbreviation": nil, "state": state,
			"ZIPCode": zip, "ZIPPlus4": zipPlus4, "urbanization": "",
		},
		"additionalInfo": map[string]any{
			"deliveryPoint": "20", "carrierRoute": "C036", "DPVConfirmation": dpv, "DPVCMRA": "N",
			"business": business, "centralDeliveryPoint": "N", "vacant": "N",
		},
		"corrections": orEmpty(corrections),
		"matches":     orEmpty(matches),
		"warnings":    []any{},
	})
}

func orEmpty(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}
