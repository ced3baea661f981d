package ui

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
)

// The sign-in page, sign-in and sign-out.

type loginPage struct {
	Email, Next string
}

// loginPage shows the sign-in form, or goes on to the UI when the browser
// already has a session.
func (u *UI) loginPage(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if id := u.sessionID(r); id != "" {
		if _, err := u.accounts.SessionCaller(r.Context(), id, u.clientIP(r)); err == nil {
			redirect(w, r, next)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	v := view{Title: "Sign in", Page: loginPage{Next: next}}
	if r.URL.Query().Get("ended") != "" {
		v.Problem = "Your session has ended. Sign in again."
	}
	u.render(w, r, http.StatusOK, "login", v)
}

// signInBusyRetryAfter is the Retry-After, in seconds, of a sign-in refused
// because every password check slot was taken.
const signInBusyRetryAfter = 1

// badCredentials is said for a wrong password and an unknown email alike.
const badCredentials = "The email or password is wrong."

// login checks the email and password (unless the email or address is
// throttled) and starts a session.
func (u *UI) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !u.parseForm(w, r, nil) {
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	password := r.PostFormValue("password")
	page := loginPage{Email: email, Next: localPath(r.PostFormValue("next"))}
	// The attempt is counted before the password is checked, so attempts
	// sent at once cannot all slip under the limit (throttle.take).
	slot, wait := u.throttle.take(email, u.clientIP(r))
	if wait > 0 {
		minutes := int(math.Ceil(wait.Minutes()))
		u.render(w, r, http.StatusTooManyRequests, "login", view{Title: "Sign in", Page: page,
			Problem: fmt.Sprintf("Too many failed sign-in attempts. Try again in %d %s.", minutes, plural(minutes, "minute"))})
		return
	}
	in, err := u.accounts.SignIn(r.Context(), email, password)
	switch {
	case errors.Is(err, accounts.ErrBadCredentials):
		// The attempt stays counted: it failed.
		u.render(w, r, http.StatusUnauthorized, "login", view{Title: "Sign in", Page: page, Problem: badCredentials})
		return
	case errors.Is(err, accounts.ErrPasswordChecksBusy):
		u.throttle.release(slot)
		w.Header().Set("Retry-After", strconv.Itoa(signInBusyRetryAfter))
		u.render(w, r, http.StatusServiceUnavailable, "login", view{Title: "Sign in", Page: page,
			Problem: "Too many sign-ins are being checked right now. Try again in a moment."})
		return
	case err != nil:
		u.throttle.release(slot)
		u.fail(w, r, nil, err)
		return
	}
	u.throttle.succeeded(slot)
	u.setSessionCookie(w, r, in.ID, in.ExpiresAt)
	redirect(w, r, page.Next)
}

// logout ends the session, in the database first: a copy of the cookie is
// worth nothing afterwards.
func (u *UI) logout(w http.ResponseWriter, r *http.Request) {
	if err := u.accounts.SignOut(r.Context(), u.sessionID(r)); err != nil {
		u.fail(w, r, nil, err)
		return
	}
	u.clearSessionCookie(w, r)
	redirect(w, r, Prefix+"/login?done=signed-out")
}

// switchMode makes the session look at the other mode, and goes back to
// the section the user was in (a detail page would be the other mode's).
func (u *UI) switchMode(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	mode, err := accounts.ParseMode(r.PostFormValue("mode"))
	if err != nil {
		u.renderError(w, r, &c, http.StatusBadRequest, "Choose test or live mode.")
		return nil
	}
	if err := u.accounts.SwitchMode(r.Context(), c, mode); err != nil {
		return err
	}
	redirect(w, r, section(r.PostFormValue("next")))
	return nil
}

// section is the list page of the section path belongs to.
func section(path string) string {
	rest, ok := strings.CutPrefix(localPath(path), Prefix+"/")
	first, _, _ := strings.Cut(rest, "/")
	first, _, _ = strings.Cut(first, "?")
	if !ok || first == "" {
		return Prefix + "/"
	}
	return Prefix + "/" + first
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
