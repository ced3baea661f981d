package ui

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/pickups"
)

// The pickups page: the pickups of the mode looked at, the form that
// schedules one (POST /api/v1/pickups does the same), and cancellation.

type pickupsPage struct {
	Pickups  []pickupRow
	Form     pickupForm
	Offsets  []pickupOffset
	Carriers []pickupCarrier
	First    bool
	More     bool
	Next     url.Values
}

// pickupRow is one pickup as the list shows it: the window in the
// address's own time, as it was given.
type pickupRow struct {
	pickups.Pickup
	Window, Where string
}

func pickupRowOf(p pickups.Pickup) pickupRow {
	closes := p.CloseAt.In(p.ReadyAt.Location())
	return pickupRow{Pickup: p,
		Window: p.ReadyAt.Format("Mon 2 Jan 2006, 15:04") + "–" + closes.Format("15:04") + " (UTC" + p.ReadyAt.Format("-07:00") + ")",
		Where:  strings.Join([]string{p.Address.Street1, p.Address.City, strings.TrimSpace(derefString(p.Address.State) + " " + p.Address.Zip), p.Address.Country}, ", ")}
}

// pickupForm is the schedule form as typed. The day and times are local to
// the pickup address, whose UTC offset is chosen from a list: the browser's
// own zone may not be the address's.
type pickupForm struct {
	Carrier, Name, Company, Phone, Email, Street1, Street2, City, State, Zip, Country string
	Date, Ready, Close, Offset, Packages, Instructions                                string
	// Key makes a double submit schedule one pickup (the idempotency key).
	Key string
}

type pickupOffset struct{ Value, Label string }

// pickupCarrier is a choice of the carrier select: a carrier (the API
// decides which of the account's carrier accounts books it), or in live mode
// one enabled carrier account, its value "CARRIER|ca_…".
type pickupCarrier struct{ Value, Label string }

// pickupCarriers are the carriers that book pickups, then the caller's
// enabled carrier accounts (live mode).
func (u *UI) pickupCarriers(r *http.Request, c accounts.Caller) ([]pickupCarrier, error) {
	var out []pickupCarrier
	for _, name := range u.pickups.PickupCarriers() {
		out = append(out, pickupCarrier{name, name})
	}
	if c.Mode != accounts.Live {
		return out, nil
	}
	list, _, err := u.carrierAccounts.ListCarrierAccounts(r.Context(), c, paging.Request{Limit: 100}) // an account has a few
	if err != nil {
		return nil, err
	}
	for _, ca := range list {
		if ca.Enabled {
			out = append(out, pickupCarrier{ca.Carrier + "|" + ca.ID, ca.Carrier + " (your account " + ca.AccountNumber + ")"})
		}
	}
	return out, nil
}

// pickupOffsets are the address's own zone (from its state or country, the
// default: the API refuses a readyAt at another offset than the address's),
// Europe's offsets, and the US mainland, Alaska and Hawaii offsets, standard
// and daylight time.
var pickupOffsets = []pickupOffset{
	{"", "The address's own (from its state or country)"},
	{"+03:00", "UTC+3 (Eastern European summer)"},
	{"+02:00", "UTC+2 (Central European summer, Eastern European standard)"},
	{"+01:00", "UTC+1 (Central European standard, British and Irish summer)"},
	{"+00:00", "UTC+0 (British, Irish and Portuguese standard)"},
	{"-04:00", "UTC−4 (Eastern daylight)"},
	{"-05:00", "UTC−5 (Eastern standard, Central daylight)"},
	{"-06:00", "UTC−6 (Central standard, Mountain daylight)"},
	{"-07:00", "UTC−7 (Mountain standard, Pacific daylight)"},
	{"-08:00", "UTC−8 (Pacific standard, Alaska daylight)"},
	{"-09:00", "UTC−9 (Alaska standard)"},
	{"-10:00", "UTC−10 (Hawaii)"},
}

const pickupsPerPage = 25

func (u *UI) pickupsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderPickups(w, r, c, http.StatusOK, u.blankPickupForm(), "")
}

// blankPickupForm proposes tomorrow, 9:00 to 17:00, in the address's zone.
func (u *UI) blankPickupForm() pickupForm {
	day := u.now().AddDate(0, 0, 1)
	if day.Weekday() == time.Sunday {
		day = day.AddDate(0, 0, 1)
	}
	carrier := ""
	if names := u.pickups.PickupCarriers(); len(names) > 0 {
		carrier = names[0]
	}
	return pickupForm{Carrier: carrier, Date: day.Format(time.DateOnly), Ready: "09:00", Close: "17:00", Offset: "",
		Country: "US", Packages: "1", Key: rand.Text()}
}

func (u *UI) renderPickups(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, form pickupForm, problem string) error {
	p, err := pageRequest(r, pickupsPerPage)
	if err != nil {
		return err
	}
	list, more, err := u.pickups.Pickups(r.Context(), c, p)
	if err != nil {
		return err
	}
	rows := make([]pickupRow, len(list))
	for i, p := range list {
		rows[i] = pickupRowOf(p)
	}
	choices, err := u.pickupCarriers(r, c)
	if err != nil {
		return err
	}
	page := pickupsPage{Pickups: rows, Form: form, Offsets: pickupOffsets, Carriers: choices, First: r.URL.Query().Get("after") == "", More: more}
	if more && len(list) > 0 {
		page.Next = nextPage(r, list[len(list)-1].ID)
	}
	u.render(w, r, status, "pickups", view{Title: "Pickups", Section: "pickups", Caller: &c, Problem: problem, Page: page})
	return nil
}

// schedulePickup schedules a pickup from the form; a refusal re-renders
// the form as typed, with the reason.
func (u *UI) schedulePickup(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	form := pickupForm{
		Carrier: v("carrier"), Name: v("name"), Company: v("company"), Phone: v("phone"), Email: v("email"),
		Street1: v("street1"), Street2: v("street2"), City: v("city"), State: v("state"), Zip: v("zip"), Country: strings.ToUpper(v("country")),
		Date: v("date"), Ready: v("ready"), Close: v("close"), Offset: v("offset"), Packages: v("packages"),
		Instructions: v("instructions"), Key: v("key"),
	}
	form.Key = formKey("ui-pickup-", form.Key)
	if form.Country == "" {
		form.Country = "US" // a form from before the field
	}
	address := shipping.Address{Name: optional(form.Name), Company: optional(form.Company), Phone: optional(form.Phone), Email: optional(form.Email),
		Street1: form.Street1, Street2: optional(form.Street2), City: form.City, State: optional(form.State), Zip: form.Zip, Country: form.Country}
	ready, err1 := pickupTime(address, form.Date, form.Ready, form.Offset)
	closes, err2 := pickupTime(address, form.Date, form.Close, form.Offset)
	if err1 != nil || err2 != nil {
		return u.renderPickups(w, r, c, http.StatusUnprocessableEntity, form, "Give the day (YYYY-MM-DD), the ready and close times (HH:MM), and the address's state (in a country of several time zones) or its UTC offset.")
	}
	carrier, account, _ := strings.Cut(form.Carrier, "|")
	in := pickups.NewPickup{
		Carrier: carrier, ReadyAt: ready, CloseAt: closes, Instructions: form.Instructions, Address: address,
		IdempotencyKey: "ui-pickup-" + form.Key,
	}
	if account != "" {
		in.CarrierAccountID = &account
	}
	if form.Packages != "" {
		// The count's bounds, and the address's required fields and
		// lengths, are the domain's (pickups.schemaIssues), as on the API.
		n, err := strconv.Atoi(form.Packages)
		if err != nil {
			return u.renderPickups(w, r, c, http.StatusUnprocessableEntity, form,
				fmt.Sprintf("The number of packages is a whole number from %d to %d.", pickups.MinPickupPackages, pickups.MaxPickupPackages))
		}
		in.PackageCount = &n
	}
	_, _, err := u.pickups.CreatePickup(r.Context(), c, in)
	if problem, status, ok := pickupProblem(err); ok {
		return u.renderPickups(w, r, c, status, form, problem)
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/pickups?done=pickup-scheduled")
	return nil
}

// pickupTime is a form's day and HH:MM at offset, or, without one, in the
// address's zone (pickups.AddressTime): an error when neither says it.
func pickupTime(a shipping.Address, day, clock, offset string) (time.Time, error) {
	if offset != "" {
		return time.Parse(time.RFC3339, day+"T"+clock+":00"+offset)
	}
	wall, err := time.Parse(time.DateOnly+"T15:04", day+"T"+clock)
	if err != nil {
		return time.Time{}, err
	}
	t, ok := pickups.AddressTime(a, wall)
	if !ok {
		return time.Time{}, errors.New("the address has no zone of its own")
	}
	return t, nil
}

func (u *UI) cancelPickup(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	_, err := u.pickups.CancelPickup(r.Context(), c, r.PathValue("id"))
	if problem, status, ok := pickupProblem(err); ok {
		return u.renderPickups(w, r, c, status, u.blankPickupForm(), problem)
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/pickups?done=pickup-cancelled")
	return nil
}

// pickupProblem is the page's message for an error a pickup can meet that
// the user can act on; false for the others.
func pickupProblem(err error) (string, int, bool) {
	var (
		input   *shipping.InputError
		carrier *shipping.CarriersError
	)
	switch {
	case err == nil:
		return "", 0, false
	case errors.As(err, &input):
		return sentence(err), http.StatusUnprocessableEntity, true
	case errors.Is(err, pickups.ErrPickupCancelled), errors.Is(err, pickups.ErrPickupRequesting):
		return sentence(err), http.StatusConflict, true
	case errors.Is(err, shipping.ErrCarrierNotConfigured):
		return sentence(err), http.StatusUnprocessableEntity, true
	case errors.Is(err, shipping.ErrCarrierRejected):
		return sentence(err), http.StatusUnprocessableEntity, true
	case errors.As(err, &carrier):
		return sentence(err), http.StatusBadGateway, true
	}
	return "", 0, false
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
