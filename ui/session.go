package ui

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
)

// The session cookie holds the session id (32 random bytes; the database
// keeps only its SHA-256). It is HttpOnly (no script reads it) and
// SameSite=Lax (not sent on other sites' form posts); over TLS it is also
// Secure and named with the __Host- prefix, which pins it to this host and
// path / so no subdomain can plant one.
const (
	cookieName       = "shipd_session"
	secureCookieName = "__Host-shipd_session"
)

// secure reports whether the browser reached shipd over TLS: directly, or
// through a proxy at the configured https public URL.
func (u *UI) secure(r *http.Request) bool { return r.TLS != nil || u.httpsPublic }

func (u *UI) cookieName(r *http.Request) string {
	if u.secure(r) {
		return secureCookieName
	}
	return cookieName
}

// sessionID is the session id the browser sent, "" when none.
func (u *UI) sessionID(r *http.Request) string {
	c, err := r.Cookie(u.cookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}

func (u *UI) setSessionCookie(w http.ResponseWriter, r *http.Request, id string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: u.cookieName(r), Value: id, Path: "/", Expires: expires,
		HttpOnly: true, Secure: u.secure(r), SameSite: http.SameSiteLaxMode})
}

func (u *UI) clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: u.cookieName(r), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: u.secure(r), SameSite: http.SameSiteLaxMode})
}

// peerIP is the address of the TCP peer, the default client address.
func peerIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// pageHandler is a page or form of a signed-in user: c is the user's caller.
// A returned error is answered by fail.
type pageHandler func(w http.ResponseWriter, r *http.Request, c accounts.Caller) error

// signedIn resolves the session to its caller and runs h, or sends the
// browser to the sign-in page (and back here after it).
func (u *UI) signedIn(h pageHandler) http.Handler { return u.signedInParsing(h, u.parseForm) }

// signedInUpload is signedIn for a form that sends a file (a rate sheet):
// its multipart body is read after the session is known, within its own
// bound (parseUpload).
func (u *UI) signedInUpload(h pageHandler) http.Handler { return u.signedInParsing(h, u.parseUpload) }

func (u *UI) signedInParsing(h pageHandler, parse func(http.ResponseWriter, *http.Request, *accounts.Caller) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := u.accounts.SessionCaller(r.Context(), u.sessionID(r), u.clientIP(r))
		if errors.Is(err, accounts.ErrSessionEnded) {
			u.toSignIn(w, r)
			return
		}
		if err != nil {
			u.fail(w, r, nil, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store") // pages show account data and secrets
		if !parse(w, r, &c) {
			return
		}
		if err := h(w, r, c); err != nil {
			u.fail(w, r, &c, err)
		}
	})
}

// maxFormBytes bounds a posted form: the largest, a webhook endpoint's, is a few KiB.
const maxFormBytes = 64 << 10

// parseForm reads a posted form (once, for every handler after it); a form
// too large or malformed is answered here, and parseForm reports false.
func (u *UI) parseForm(w http.ResponseWriter, r *http.Request, c *accounts.Caller) bool {
	if r.Method != http.MethodPost {
		return true
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		u.renderError(w, r, c, http.StatusBadRequest, "The form could not be read. Reload the page and try again.")
		return false
	}
	return true
}

// maxUploadBytes bounds an uploaded form: a rate sheet of up to
// carriers.MaxRateSheetBytes, and the multipart framing around it.
const maxUploadBytes = carriers.MaxRateSheetBytes + 64<<10

// parseUpload reads a posted multipart form (a file and its fields), in
// memory: at most maxUploadBytes, so no temporary file is written.
func (u *UI) parseUpload(w http.ResponseWriter, r *http.Request, c *accounts.Caller) bool {
	if r.Method != http.MethodPost {
		return true
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	err := r.ParseMultipartForm(maxUploadBytes)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		u.renderError(w, r, c, http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than a rate sheet may be (%d MiB).", carriers.MaxRateSheetBytes>>20))
		return false
	case err != nil:
		u.renderError(w, r, c, http.StatusBadRequest, "The form could not be read. Reload the page and try again.")
		return false
	}
	if name, ok := unstorableValue(r.MultipartForm.Value); ok {
		u.renderError(w, r, c, http.StatusUnprocessableEntity, "The field “"+name+"” is not text this server can store. Remove it and try again.")
		return false
	}
	return true
}

// toSignIn sends the browser to the sign-in page, which brings it back to
// the page it asked for (a GET) once signed in.
func (u *UI) toSignIn(w http.ResponseWriter, r *http.Request) {
	if u.sessionID(r) != "" {
		u.clearSessionCookie(w, r)
	}
	target := Prefix + "/login"
	if r.Method == http.MethodGet {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	} else {
		target += "?ended=1"
	}
	redirect(w, r, target)
}

// localPath keeps next only when it is a page of the UI, so the sign-in
// form cannot be made to send anyone elsewhere.
func localPath(next string) string {
	if !strings.HasPrefix(next, Prefix+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix + "/"
	}
	return next
}

// logError logs an unexpected error of a page.
func (u *UI) logError(r *http.Request, err error) {
	u.log.ErrorContext(r.Context(), "ui error", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
}
