package dhlexpressfake

import (
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// NotServedPostalCode starts the postal codes the fake knows no service
// area of.
const NotServedPostalCode = "999"

// addressValidate answers GET /address-validate: a service area for any
// postal code but those starting with NotServedPostalCode, with the city
// written as DHL writes it (upper case).
func (s *Server) addressValidate(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	typ, country := q.Get("type"), q.Get("countryCode")
	if typ != "pickup" && typ != "delivery" || len(country) != 2 {
		badRequest(w, r, "", "Parameters not having correct format: type, countryCode")
		return
	}
	zip, city := strings.TrimSpace(q.Get("postalCode")), strings.ToUpper(strings.TrimSpace(q.Get("cityName")))
	if strings.HasPrefix(zip, NotServedPostalCode) || city == "" && zip == "" {
		fakekit.WriteJSON(w, http.StatusOK, map[string]any{"warnings": []string{"No service area found for the given address"}})
		return
	}
	area := map[string]any{"countryCode": country, "postalCode": zip, "cityName": city,
		"serviceArea": map[string]any{"code": "HUB", "description": city + "-" + country, "GMTOffset": "+01:00"}}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"address": []any{area}})
}
