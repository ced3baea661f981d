package uspsfake

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// problems collects what is wrong with a request, answered together in one
// documented 400 error body.
type problems []problem

type problem struct{ parameter, detail string }

func (p *problems) add(parameter, format string, args ...any) {
	*p = append(*p, problem{parameter, fmt.Sprintf(format, args...)})
}

// write answers 400 with every problem; false when there is none.
func (p problems) write(w http.ResponseWriter, api string) bool {
	if len(p) == 0 {
		return false
	}
	subs := make([]any, 0, len(p))
	for _, x := range p {
		subs = append(subs, map[string]any{"status": "400", "code": "400000", "title": "Bad Request",
			"detail": x.detail, "source": map[string]any{"parameter": x.parameter}})
	}
	fakekit.WriteJSON(w, http.StatusBadRequest, map[string]any{
		"apiVersion": api,
		"error":      map[string]any{"code": "400", "message": "Bad Request", "errors": subs},
	})
	return true
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

func isJSON(r *http.Request) bool {
	return mediaType(r.Header.Get("Content-Type")) == "application/json"
}

// checkKeys reports the properties of a JSON object that its schema does not
// allow (additionalProperties: false).
func checkKeys(p *problems, raw json.RawMessage, where string, allowed ...string) {
	if len(raw) == 0 {
		return
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		p.add(where, "%s must be an object", where)
		return
	}
	var unknown []string
	for k := range obj {
		if !contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		p.add(where+"."+k, "%s is not a property of %s", k, where)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

var (
	zip5Pattern       = regexp.MustCompile(`^\d{5}$`)
	zipPlus4Pattern   = regexp.MustCompile(`^\d{4}$`)
	originZIPPattern  = regexp.MustCompile(`^\d{5}(?:[-\s]\d{4})?$`)
	phonePattern      = regexp.MustCompile(`^\+?[1-9][0-9]{7,14}$`)
	emailPattern      = regexp.MustCompile(`^[a-zA-Z0-9_+&*-]+(?:\.[a-zA-Z0-9_+&*-]+)*@(?:[a-zA-Z0-9-]+\.)+[a-zA-Z]{2,}$`)
	uuidPattern       = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	trackingPattern   = regexp.MustCompile(`^[A-Za-z0-9]{4,34}$`)
	countryPattern    = regexp.MustCompile(`^[A-Z]{2}$`)
	tariffPattern     = regexp.MustCompile(`^\.*(?:[A-Za-z\d]\.*){6,14}$`)
	statePatternCodes = strings.Fields("AA AE AL AK AP AS AZ AR CA CO CT DE DC FM FL GA GU HI ID IL IN IA KS KY LA ME MH MD MA MI MN MS MO MP MT NE NV NH NJ NM NY NC ND OH OK OR PW PA PR RI SC SD TN TX UT VT VI VA WA WV WI WY")
)

func validState(s string) bool { return contains(statePatternCodes, s) }

// checkMailingDate accepts today (the fake's clock, with a day of slack
// for time zones) up to maxAhead days ahead, as the documents allow.
func checkMailingDate(p *problems, param, v string, now time.Time, maxAhead int) {
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		if t, err2 := time.Parse(time.RFC3339, v); err2 == nil {
			d = t
		} else {
			p.add(param, "mailingDate %q is not a date (YYYY-MM-DD)", v)
			return
		}
	}
	today, _ := time.Parse(time.DateOnly, now.UTC().Format(time.DateOnly))
	if d.Before(today.AddDate(0, 0, -1)) || d.After(today.AddDate(0, 0, maxAhead)) {
		p.add(param, "mailingDate %s must be today or up to %d days ahead", v, maxAhead)
	}
}

// positive checks a required number > 0, up to max when max > 0.
func positive(p *problems, param string, v *float64, max float64) {
	switch {
	case v == nil:
		p.add(param, "%s is required", param)
	case *v <= 0:
		p.add(param, "%s must be greater than 0", param)
	case max > 0 && *v > max:
		p.add(param, "%s must be at most %g", param, max)
	}
}

func oneOf(p *problems, param, v string, required bool, allowed ...string) {
	switch {
	case v == "" && !required:
	case v == "":
		p.add(param, "%s is required", param)
	case !contains(allowed, v):
		p.add(param, "%s %q is not one of %s", param, v, strings.Join(allowed, ", "))
	}
}

func length(p *problems, param, v string, min, max int) {
	n := len([]rune(v))
	switch {
	case min > 0 && n == 0:
		p.add(param, "%s is required", param)
	case n < min || n > max:
		p.add(param, "%s must be %d to %d characters", param, min, max)
	}
}

// money is a USD amount as USPS writes it.
func money(cents int64) json.Number {
	return json.Number(strconv.FormatInt(cents/100, 10) + "." + fmt.Sprintf("%02d", cents%100))
}
