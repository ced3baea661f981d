package ui

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// refuseNUL answers a request carrying U+0000 before any page reads it:
// PostgreSQL's text cannot hold NUL (the lookup or write would fail, an
// error page for what is the browser's mistake) while SQLite keeps it, so
// the check makes both backends answer alike, as the API's does. A path
// with NUL names no page (404); a form or query value with NUL is 422,
// naming the field.
func (u *UI) refuseNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.IndexByte(r.URL.Path, 0) >= 0 {
			u.renderError(w, r, nil, http.StatusNotFound, "There is no such page.")
			return
		}
		var values url.Values
		if strings.Contains(r.URL.RawQuery, "%00") {
			values = r.URL.Query()
		}
		if r.Method == http.MethodPost {
			// This is the one ParseForm of the request (the pages' parseForm
			// finds it done), so its error is answered here as there.
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := r.ParseForm(); err != nil {
				u.renderError(w, r, nil, http.StatusBadRequest, "The form could not be read. Reload the page and try again.")
				return
			}
			values = r.Form
		}
		for _, name := range slices.Sorted(maps.Keys(values)) {
			if strings.IndexByte(name, 0) >= 0 || slices.ContainsFunc(values[name], func(v string) bool { return strings.IndexByte(v, 0) >= 0 }) {
				u.renderError(w, r, nil, http.StatusUnprocessableEntity,
					"The field “"+strings.ReplaceAll(name, "\x00", "")+"” contains a NUL character, which is not allowed. Remove it and try again.")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
