package ui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
)

// nextMonday is the first Monday at least two days after now.
func nextMonday(now time.Time) time.Time {
	d := now.AddDate(0, 0, 2)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

// pickupForm is the form of a pickup on day in New York, at New York's
// offset that day (readyAt must carry the address's).
func pickupForm(day time.Time, mods ...func(url.Values)) url.Values {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(err)
	}
	offset := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, ny).Format("-07:00")
	f := url.Values{"carrier": {"UPS"}, "date": {day.Format(time.DateOnly)}, "ready": {"09:00"}, "close": {"17:00"}, "offset": {offset},
		"name": {"Ada Lovelace"}, "phone": {"212 555 0100"}, "street1": {"350 Fifth Avenue"}, "city": {"New York"}, "state": {"NY"},
		"zip": {"10118"}, "packages": {"3"}, "instructions": {"Side door"}, "key": {"form-1"}}
	for _, m := range mods {
		m(f)
	}
	return f
}

func TestPickupsPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	day := nextMonday(b.clock.Now())

	must(t, "empty list", br.get("/settings/pickups"), http.StatusOK, "No pickups in test mode",
		`<a href="/settings/pickups" aria-current="page">Pickups</a>`, "Schedule a pickup")

	// A Sunday is refused with the reason, the form kept as typed.
	sunday := pickupForm(day.AddDate(0, 0, -1), func(f url.Values) { f.Set("key", "form-sunday") })
	must(t, "a Sunday", br.post("/settings/pickups", sunday), http.StatusUnprocessableEntity, "is a Sunday", `value="350 Fifth Avenue"`)

	p := br.post("/settings/pickups", pickupForm(day))
	if p.status != http.StatusSeeOther || p.location() != "/settings/pickups?done=pickup-scheduled" {
		t.Fatalf("schedule: %d → %q\n%s", p.status, p.location(), p.body)
	}
	// The same form again (a double submit) schedules nothing more.
	if p := br.post("/settings/pickups", pickupForm(day)); p.status != http.StatusSeeOther {
		t.Fatalf("second submit: %d\n%s", p.status, p.body)
	}
	list := br.get("/settings/pickups?done=pickup-scheduled")
	must(t, "scheduled", list, http.StatusOK, "Pickup scheduled", "Scheduled", "UPS", day.Format("Mon 2 Jan 2006")+", 09:00–17:00 (UTC"+pickupForm(day).Get("offset")+")",
		"350 Fifth Avenue, New York, NY 10118")
	ids := regexp.MustCompile(`pck_[0-9a-f]+`).FindAllString(list.body, -1)
	if len(ids) == 0 || strings.Count(list.body, "<code>"+ids[0]+"</code>") != 1 || strings.Count(list.body, "/cancel") != 1 {
		t.Fatalf("want one pickup listed with a cancel button:\n%s", list.body)
	}
	status, api := b.api("GET", "/pickups/"+ids[0], b.token, nil)
	if status != http.StatusOK || api["status"] != "scheduled" || api["packageCount"] != float64(3) || api["instructions"] != "Side door" {
		t.Fatalf("the API sees %d %v", status, api)
	}

	c := br.post("/settings/pickups/"+ids[0]+"/cancel", nil)
	if c.status != http.StatusSeeOther || c.location() != "/settings/pickups?done=pickup-cancelled" {
		t.Fatalf("cancel: %d → %q\n%s", c.status, c.location(), c.body)
	}
	must(t, "cancelled", br.get("/settings/pickups?done=pickup-cancelled"), http.StatusOK, "Pickup cancelled with the carrier", "Cancelled")
	must(t, "cancelled again", br.post("/settings/pickups/"+ids[0]+"/cancel", nil), http.StatusConflict, "already cancelled")

	// A form from another site is refused (CSRF), as on every page.
	br.header = http.Header{"Sec-Fetch-Site": {"cross-site"}}
	must(t, "cross-site", br.post("/settings/pickups", pickupForm(day, func(f url.Values) { f.Set("key", "form-x") })), http.StatusForbidden)
}

// In live mode the carrier select offers each enabled carrier account, and
// a pickup chosen so is booked through that account.
func TestPickupsPageThroughACarrierAccount(t *testing.T) {
	t.Parallel()
	fake := upsfake.New(t)
	b := setup(t, withCarrierAccounts(map[carriers.ID]carriers.Endpoints{"UPS": {Production: fake.URL(), Test: fake.URL()}}))
	live := b.liveToken(b.account.ID)
	id := b.connectCarrierAccount(t, live, map[string]any{"carrier": "UPS", "credentials": map[string]any{
		"clientId": upsfake.ClientID, "clientSecret": upsfake.ClientSecret, "accountNumber": upsfake.AccountNumber}})
	br := b.browser()
	br.signIn(b.email)
	br.post("/settings/mode", url.Values{"mode": {"live"}, "next": {"/settings/pickups"}})
	must(t, "live pickups page", br.get("/settings/pickups"), http.StatusOK,
		`<option value="UPS|`+id+`">UPS (your account `+upsfake.AccountNumber+`)</option>`)
	p := br.post("/settings/pickups", pickupForm(nextMonday(b.clock.Now()), func(f url.Values) { f.Set("carrier", "UPS|"+id) }))
	if p.status != http.StatusSeeOther {
		t.Fatalf("schedule: %d\n%s", p.status, p.body)
	}
	_, list := b.api("GET", "/pickups", live, nil)
	data := list["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["carrierAccountId"] != id || fake.Requests(upsfake.OpPickup) != 1 {
		t.Fatalf("pickups %v, %d UPS pickup calls; want one through %s", data, fake.Requests(upsfake.OpPickup), id)
	}
}

// The form's default zone is the address's own, from its state: the pickup
// is booked at New York's offset of that day, which the API requires.
func TestPickupFormInTheAddressZone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	day := nextMonday(b.clock.Now())
	p := br.post("/settings/pickups", pickupForm(day, func(f url.Values) { f.Set("offset", ""); f.Set("key", "form-zone") }))
	if p.status != http.StatusSeeOther {
		t.Fatalf("schedule: %d\n%s", p.status, p.body)
	}
	status, api := b.api("GET", "/pickups", b.token, nil)
	data, _ := api["data"].([]any)
	if status != http.StatusOK || len(data) != 1 {
		t.Fatalf("the API sees %d %v", status, api)
	}
	want := day.Format(time.DateOnly) + "T09:00:00" + pickupForm(day).Get("offset")
	if got := data[0].(map[string]any)["readyAt"]; got != want {
		t.Errorf("readyAt %v, want %s", got, want)
	}
	// At another offset than New York's, the API's refusal is shown.
	must(t, "another offset", br.post("/settings/pickups", pickupForm(day, func(f url.Values) { f.Set("offset", "-08:00"); f.Set("key", "form-la") })),
		http.StatusUnprocessableEntity, "America/New_York")
}

// A pickup in Europe, from the form: its country typed, no state, the day
// and times in the address's own zone (Berlin's offset that day, which the
// API requires), listed with its country.
func TestPickupFormAbroad(t *testing.T) {
	t.Parallel()
	b := setup(t)
	br := b.browser()
	br.signIn(b.email)
	must(t, "the form", br.get("/settings/pickups"), http.StatusOK, `name="country"`, `value="US"`, "Central European standard")
	day := nextMonday(b.clock.Now())
	berlin := func(f url.Values) {
		f.Set("carrier", "GLS")
		f.Set("street1", "Friedrichstraße 43")
		f.Set("city", "Berlin")
		f.Del("state")
		f.Set("zip", "10117")
		f.Set("country", "de") // typed in lower case
		f.Set("phone", "+49 30 1234567")
		f.Set("offset", "")
		f.Set("key", "form-berlin")
	}
	p := br.post("/settings/pickups", pickupForm(day, berlin))
	if p.status != http.StatusSeeOther {
		t.Fatalf("schedule in Berlin: %d\n%s", p.status, p.body)
	}
	status, api := b.api("GET", "/pickups", b.token, nil)
	data, _ := api["data"].([]any)
	if status != http.StatusOK || len(data) != 1 {
		t.Fatalf("the API sees %d %v", status, api)
	}
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	pickup := data[0].(map[string]any)
	want := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, loc).Format(time.RFC3339)
	if address, _ := pickup["address"].(map[string]any); pickup["readyAt"] != want || address["country"] != "DE" || address["state"] != nil {
		t.Errorf("readyAt %v (want %s), address %v", pickup["readyAt"], want, pickup["address"])
	}
	must(t, "listed", br.get("/settings/pickups"), http.StatusOK, "Friedrichstraße 43, Berlin, 10117, DE")

	// In the US the state is still required: the API's refusal is shown.
	noState := pickupForm(day, func(f url.Values) { f.Del("state"); f.Set("offset", "-05:00"); f.Set("key", "form-no-state") })
	must(t, "a US address without a state", br.post("/settings/pickups", noState), http.StatusUnprocessableEntity, "state")
}
