package upsfake

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// scan is one tracking activity the fake reports.
type scan struct {
	typ, code, statusCode, description string
	at                                 time.Time
	where                              addr
}

// trackZone is the UTC offset of every scan (the fake's shipments stay in
// one time zone), sent as gmtOffset like UPS does.
var trackZone = time.FixedZone("-05:00", -5*3600)

// scans is what UPS knows of a shipment after its n-th Track call: a label
// created, then a pickup and departure, out for delivery, delivered. Each
// call shows one more step, so a poller sees the package move.
func (sh *shipment) scans(n int) []scan {
	t0 := sh.SoldAt
	list := []scan{{typ: "M", code: "MP", statusCode: "003",
		description: "Shipper created a label, UPS has not received the package yet.",
		at:          t0, where: addr{country: sh.from.country}}}
	if sh.State == fakekit.Voided {
		return append(list, scan{typ: "MV", code: "MV", statusCode: "007",
			description: "Shipment information voided", at: t0.Add(time.Hour), where: addr{country: sh.from.country}})
	}
	steps := []scan{
		{typ: "I", code: "OR", statusCode: "005", description: "Origin Scan", at: t0.Add(6 * time.Hour), where: sh.from},
		{typ: "I", code: "DP", statusCode: "005", description: "Departed from Facility", at: t0.Add(9 * time.Hour), where: sh.from},
		{typ: "I", code: "AR", statusCode: "005", description: "Arrived at Facility", at: t0.Add(30 * time.Hour), where: sh.to},
		{typ: "I", code: "OT", statusCode: "021", description: "Out For Delivery Today", at: t0.Add(33 * time.Hour), where: sh.to},
		{typ: "D", code: "FS", statusCode: "011", description: "DELIVERED", at: t0.Add(38 * time.Hour), where: sh.to},
	}
	// Call 1: the label only; 2: + origin scan and departure; 3: +
	// arrival and out for delivery; 4 and later: + delivered.
	var shown int
	switch {
	case n <= 1:
		shown = 0
	case n == 2:
		shown = 2
	case n == 3:
		shown = 4
	default:
		shown = len(steps)
	}
	return append(list, steps[:shown]...)
}

var inquiry = regexp.MustCompile(`^[0-9A-Za-z]{7,34}$`)

// track is GET /api/track/v1/details/{inquiryNumber}.
func (s *Server) track(w http.ResponseWriter, r *http.Request, _ []byte) {
	// transId and transactionSrc are required by the Track API only.
	if r.Header.Get("transId") == "" || r.Header.Get("transactionSrc") == "" {
		writeErrors(w, http.StatusBadRequest, apiError{"20007", "Missing Required field, transId and transactionSrc headers."})
		return
	}
	tn := r.PathValue("inquiryNumber")
	if !inquiry.MatchString(tn) {
		writeErrors(w, http.StatusBadRequest, apiError{"TV1002", "Invalid inquiry number"})
		return
	}
	var packages []any
	found := s.sales.With(strings.ToUpper(tn), func(sh *shipment) {
		sh.trackCalls++
		packages = sh.trackPackages(sh.scans(sh.trackCalls))
	})
	if !found {
		// What UPS answers for a number it has no scan for yet.
		fakekit.WriteJSON(w, http.StatusOK, map[string]any{"trackResponse": map[string]any{"shipment": []any{map[string]any{
			"inquiryNumber": tn,
			"warnings":      []apiError{{Code: "TW0001", Message: "Tracking Information Not Found"}},
		}}}})
		return
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"trackResponse": map[string]any{"shipment": []any{map[string]any{
		"inquiryNumber": strings.ToUpper(tn),
		"package":       packages,
	}}}})
}

// trackPackages are the packages of a Track answer that shows list: the
// shipment's, then, for a multi-piece shipment, the others'.
func (sh *shipment) trackPackages(list []scan) []any {
	sched := sh.SoldAt.Add(48 * time.Hour)
	// UPS lists the newest activity first.
	sort.SliceStable(list, func(i, j int) bool { return list[i].at.After(list[j].at) })
	acts := make([]any, 0, len(list))
	for _, sc := range list {
		local := sc.at.In(trackZone)
		gmt := sc.at.UTC()
		address := map[string]string{"countryCode": sc.where.country, "country": sc.where.country}
		if sc.where.city != "" {
			address["city"] = strings.ToUpper(sc.where.city)
		}
		if sc.where.state != "" {
			address["stateProvince"] = sc.where.state
		}
		acts = append(acts, map[string]any{
			"location":  map[string]any{"address": address, "slic": "9451"},
			"status":    map[string]string{"type": sc.typ, "description": sc.description, "code": sc.code, "statusCode": sc.statusCode},
			"date":      local.Format("20060102"),
			"time":      local.Format("150405"),
			"gmtDate":   gmt.Format("20060102"),
			"gmtOffset": "-05:00",
			"gmtTime":   gmt.Format("15:04:05"),
		})
	}
	latest := list[0]
	pkg := map[string]any{
		"trackingNumber": sh.TrackingNumber,
		"activity":       acts,
		// Real answers carry the three-digit status code in "code" here.
		"currentStatus": map[string]string{"description": latest.description, "code": latest.statusCode},
		"service":       map[string]string{"code": "518", "levelCode": sh.service.code, "description": sh.service.description},
		"packageCount":  1,
	}
	if latest.statusCode == "011" {
		pkg["deliveryDate"] = []map[string]string{{"type": "DEL", "date": latest.at.In(trackZone).Format("20060102")}}
		pkg["deliveryTime"] = map[string]string{"type": "DEL", "endTime": latest.at.In(trackZone).Format("150405")}
	} else if sh.State != fakekit.Voided {
		pkg["deliveryDate"] = []map[string]string{{"type": "SDD", "date": sched.In(trackZone).Format("20060102")}}
		pkg["deliveryTime"] = map[string]string{"type": "CMT", "endTime": "200000"}
	}
	packages := []any{pkg}
	if len(sh.Pieces) > 1 {
		pkg["packageCount"] = len(sh.Pieces)
		packages = append(packages, sh.pieceScans(list)...)
	}
	return packages
}

// pieceScans are the other packages of a multi-piece shipment, answered
// with the master's: each gets its own origin scan a minute apart after the
// master's, once the master has one (shown, newest first, is the master's).
func (sh *shipment) pieceScans(shown []scan) []any {
	var origin *scan
	for i := range shown {
		if shown[i].code == "OR" {
			origin = &shown[i]
		}
	}
	var out []any
	for i, tn := range sh.Pieces[1:] {
		p := map[string]any{"trackingNumber": tn, "packageCount": len(sh.Pieces), "activity": []any{}}
		if origin != nil {
			at := origin.at.Add(time.Duration(i+1) * time.Minute)
			p["activity"] = []any{map[string]any{
				"location": map[string]any{"address": map[string]string{"city": strings.ToUpper(origin.where.city), "stateProvince": origin.where.state, "countryCode": origin.where.country, "country": origin.where.country}},
				"status":   map[string]string{"type": "I", "description": "Origin Scan", "code": "OR", "statusCode": "005"},
				"date":     at.In(trackZone).Format("20060102"), "time": at.In(trackZone).Format("150405"),
				"gmtDate": at.UTC().Format("20060102"), "gmtOffset": "-05:00", "gmtTime": at.UTC().Format("15:04:05"),
			}}
			p["currentStatus"] = map[string]string{"description": "Origin Scan", "code": "005"}
		}
		out = append(out, p)
	}
	return out
}

// verify is POST /api/addressvalidation/{version}/{requestoption}: Street
// Level Address Validation for US and Puerto Rico addresses. The outcome is
// decided by the input: an address line containing NOWHERE has no
// candidate, one containing AMBIGUOUS has two; any other address is valid
// and comes back upper-cased with standard abbreviations and a ZIP+4
// derived from the address.
func (s *Server) verify(w http.ResponseWriter, r *http.Request, body []byte) {
	c := &checker{account: accountOf(r)}
	if v := r.PathValue("version"); v != "v2" {
		c.invalid("version", fmt.Sprintf("%q is not v2", v))
	}
	option := r.PathValue("requestoption")
	if option != "1" && option != "2" && option != "3" {
		c.invalid("requestoption", fmt.Sprintf("%q is not 1, 2 or 3", option))
	}
	m, err := decode(body)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, apiError{codeNotWellFormed, "The request is not well formed: " + err.Error()})
		return
	}
	base := "XAVRequest.AddressKeyFormat"
	k := c.object(m, "", base)
	country := c.str(k, base, "CountryCode", 2)
	if country != "" && country != "US" && country != "PR" {
		c.fail("264002", "Country Code is invalid or missing.")
	}
	lines := c.stringArray(k, base, "AddressLine", 3, 100)
	city, _ := c.optStr(k, base, "PoliticalDivision2", 30)
	state, _ := c.optStr(k, base, "PoliticalDivision1", 30)
	zip, _ := c.optStr(k, base, "PostcodePrimaryLow", 10)
	c.optStr(k, base, "PostcodeExtendedLow", 10)
	c.optStr(k, base, "ConsigneeName", 40)
	c.optStr(k, base, "AttentionName", 40)
	if !c.ok() {
		writeErrors(w, http.StatusBadRequest, c.errs...)
		return
	}
	joined := strings.ToUpper(strings.Join(lines, " "))
	resp := map[string]any{"Response": success()}
	classify := option != "1"
	candidate := func(lines []string, zip string) map[string]any {
		std := make([]string, len(lines))
		for i, l := range lines {
			std[i] = standardize(l)
		}
		cand := map[string]any{"AddressKeyFormat": map[string]any{
			"AddressLine":         std,
			"PoliticalDivision2":  strings.ToUpper(strings.TrimSpace(city)),
			"PoliticalDivision1":  strings.ToUpper(strings.TrimSpace(state)),
			"PostcodePrimaryLow":  zip,
			"PostcodeExtendedLow": plus4(strings.Join(std, " "), zip),
			"Region":              fmt.Sprintf("%s %s %s", strings.ToUpper(city), strings.ToUpper(state), zip),
			"CountryCode":         country,
		}}
		if classify {
			cand["AddressClassification"] = classification(strings.Join(std, " "))
		}
		return cand
	}
	switch {
	case strings.Contains(joined, "NOWHERE"):
		resp["NoCandidatesIndicator"] = ""
	case strings.Contains(joined, "AMBIGUOUS"):
		resp["AmbiguousAddressIndicator"] = ""
		resp["Candidate"] = []any{candidate(lines, zip), candidate(append([]string{"1" + lines[0]}, lines[1:]...), zip)}
	default:
		resp["ValidAddressIndicator"] = ""
		cand := candidate(lines, zip)
		resp["Candidate"] = []any{cand}
		if classify {
			resp["AddressClassification"] = cand["AddressClassification"]
		}
	}
	fakekit.WriteJSON(w, http.StatusOK, map[string]any{"XAVResponse": resp})
}

// standardize upper-cases a line and abbreviates the usual street words.
func standardize(line string) string {
	abbrev := map[string]string{"STREET": "ST", "AVENUE": "AVE", "ROAD": "RD", "BOULEVARD": "BLVD",
		"DRIVE": "DR", "LANE": "LN", "SUITE": "STE", "APARTMENT": "APT", "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W"}
	words := strings.Fields(strings.NewReplacer(".", "", ",", " ").Replace(strings.ToUpper(line)))
	for i, w := range words {
		if a, ok := abbrev[w]; ok {
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

// plus4 derives a stable, never-zero ZIP+4 add-on from the address.
func plus4(lines, zip string) string {
	h := fnv.New32a()
	h.Write([]byte(lines + "|" + zip))
	return fmt.Sprintf("%04d", h.Sum32()%9999+1)
}

// classification calls an address with a unit residential.
func classification(lines string) map[string]string {
	for _, w := range strings.Fields(lines) {
		if w == "APT" || w == "UNIT" || w == "#" {
			return map[string]string{"Code": "2", "Description": "Residential"}
		}
	}
	return map[string]string{"Code": "1", "Description": "Commercial"}
}
