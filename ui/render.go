package ui

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/exchangerates"
	"github.com/shipd-dev/shipd/paging"
)

// pages holds one template set per page: the layout and the page's file.
type pages map[string]*template.Template

func loadPages() (pages, error) {
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := pages{}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", f)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			return formatTime(v)
		case *time.Time:
			if v == nil {
				return "—"
			}
			return formatTime(*v)
		}
		return ""
	},
	"money": money,
	"has":   func(list []string, v string) bool { return slices.Contains(list, v) },
	"join":  strings.Join,
	"deref": func(s *string) string { return derefString(s) },
	"deref64": func(v *int64) int64 {
		if v == nil {
			return 0
		}
		return *v
	},
	"label":       label,
	"query":       func(v url.Values) string { return v.Encode() },
	"upper":       strings.ToUpper,
	"inc":         func(i int) int { return i + 1 },
	"otherMode":   otherMode,
	"eventChoice": func(types, chosen []string) eventChoice { return eventChoice{Types: types, Chosen: chosen} },
}

// eventChoice is what the event checkboxes show: every type, and those chosen.
type eventChoice struct{ Types, Chosen []string }

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// money shows an amount of minor units in its currency: $12.34, or
// 12.34 EUR, or 1234 JPY (a currency's own number of decimals).
func money(cents int64, currency string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "−", -cents
	}
	currency = strings.ToUpper(currency)
	amount := strconv.FormatInt(cents, 10)
	if d := exchangerates.MinorUnits(currency); d > 0 {
		amount = fmt.Sprintf("%0*d", d+1, cents)
		amount = amount[:len(amount)-d] + "." + amount[len(amount)-d:]
	}
	if currency == "" || currency == "USD" {
		return sign + "$" + amount
	}
	return sign + amount + " " + currency
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// label turns an identifier (void_requested, tracker.updated) into words.
func label(s string) string {
	s = strings.NewReplacer("_", " ", ".", " ").Replace(s)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func otherMode(m accounts.Mode) accounts.Mode {
	if m == accounts.Live {
		return accounts.Test
	}
	return accounts.Live
}

// view is what every page's template gets: the layout's part and the page's.
type view struct {
	Title string
	// Section is the navigation entry to mark current ("" for none).
	Section string
	// Caller is the signed-in user; nil on the sign-in and error pages before sign-in.
	Caller *accounts.Caller
	// Notice says what the last form did; Problem what went wrong.
	Notice, Problem string
	Page            any
	// LiveCarriers are the carriers live mode can use (the live bar says
	// when there are none).
	LiveCarriers []string
}

// render writes a page with status.
func (u *UI) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := u.pages[name]
	if !ok {
		u.logError(r, fmt.Errorf("no template %q", name))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if v.Notice == "" {
		v.Notice = notices[r.URL.Query().Get("done")]
	}
	if v.Caller != nil && v.Caller.Mode == accounts.Live {
		live, err := u.shipping.LiveCarriersFor(r.Context(), *v.Caller)
		if err != nil {
			// The bar is a hint: the page itself still renders.
			u.logError(r, err)
			live = u.shipping.LiveCarriers()
		}
		v.LiveCarriers = live
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		u.logError(r, fmt.Errorf("template %s: %w", name, err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// notices are what ?done= says after a form's redirect.
var notices = map[string]string{
	"token-revoked":         "Token revoked: the API refuses it from now on.",
	"webhook-saved":         "Endpoint saved.",
	"webhook-paused":        "Endpoint paused: no new deliveries until you resume it.",
	"webhook-resumed":       "Endpoint resumed.",
	"webhook-deleted":       "Endpoint deleted; its pending deliveries were cancelled.",
	"test-sent":             "Test event queued: it appears in the delivery log below within seconds (reload to see it).",
	"retry-queued":          "Retry queued: the new attempt appears in the delivery log within seconds.",
	"return-created":        "Return label created: send it to your customer. It is charged when the carrier first scans it, never if it is not used.",
	"refund-requested":      "Refund requested: the label is voided with the carrier, then the price is credited to your balance.",
	"signed-out":            "You are signed out.",
	"manifest-created":      "Manifest created: the carrier is asked for its form, which appears below within seconds (reload to see it).",
	"pickup-scheduled":      "Pickup scheduled: the carrier confirmed it; its confirmation number is in the list.",
	"pickup-cancelled":      "Pickup cancelled with the carrier.",
	"carrier-connected":     "Carrier account connected: live quotes and labels of this account now go through your carrier accounts.",
	"carrier-connection-ok": "Connection works: the carrier granted a token for these credentials.",
	"carrier-disabled":      "Carrier account disabled: it quotes and buys nothing until you enable it; its labels are still voided and tracked through it.",
	"carrier-enabled":       "Carrier account enabled.",
	"carrier-deleted":       "Carrier account deleted; the labels it bought are still voided and tracked through it.",
}

// renderError writes the error page.
func (u *UI) renderError(w http.ResponseWriter, r *http.Request, c *accounts.Caller, status int, message string) {
	u.render(w, r, status, "error", view{Title: http.StatusText(status), Caller: c, Problem: message})
}

// fail answers an error a page returned: the domain's refusals in words,
// anything else as our fault (logged, never shown).
func (u *UI) fail(w http.ResponseWriter, r *http.Request, c *accounts.Caller, err error) {
	switch {
	case errors.Is(err, accounts.ErrSessionEnded):
		u.toSignIn(w, r)
	case errors.Is(err, accounts.ErrNotFound):
		u.renderError(w, r, c, http.StatusNotFound, "There is no such object in this account.")
	case errors.Is(err, accounts.ErrWrongMode):
		mode := accounts.Test
		if c != nil {
			mode = otherMode(c.Mode)
		}
		u.renderError(w, r, c, http.StatusNotFound,
			fmt.Sprintf("This belongs to %s mode. Switch to %s mode to see it.", mode, mode))
	case errors.Is(err, paging.ErrInvalidCursor):
		u.renderError(w, r, c, http.StatusBadRequest, "This page link is out of date. Start again from the first page.")
	default:
		u.logError(r, err)
		u.renderError(w, r, c, http.StatusInternalServerError, "Something went wrong on our side. Try again.")
	}
}

// pageRequest reads the ?after= cursor of a list page.
func pageRequest(r *http.Request, limit int) (paging.Request, error) {
	after := r.URL.Query().Get("after")
	p, err := paging.Decode(&after, &limit)
	return p, err
}

// nextPage is the query of the page after the last item, keeping the filters.
func nextPage(r *http.Request, lastID string) url.Values {
	q := url.Values{}
	for k, v := range r.URL.Query() {
		if k != "after" && k != "done" {
			q[k] = v
		}
	}
	q.Set("after", paging.Encode(lastID))
	return q
}

// sentence makes an error message a sentence: capitalised, with a full stop.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
